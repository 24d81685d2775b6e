// The agent diagram (core/agent/diagram.ts): what dagre is given (sized boxes, the start dot, the transitions), the
// laid-out SVG with its states, and the highlight of where a run stands.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { compileAgent } from '../../../core/agent/compile';
import { parseAgentFile } from '../../../core/agent/parse';
import { diagramInput, highlightOf, layoutDiagram, renderDiagramSvg, START_ID, wrapText } from '../../../core/agent/diagram';
import { fixturePath } from '../../support/fixtures';

const react = compileAgent(parseAgentFile(readFileSync(fixturePath('agents/react.agent'), 'utf8')).agents[0]);

describe('agent diagram', () => {
  test('the layout input: one sized box per state with its name and prompt text, the start dot, every transition', () => {
    const input = diagramInput(react);
    assert.deepEqual(
      input.nodes.map(n => n.lines[0] ?? n.id),
      [START_ID, 'Ques', 'Tht', 'Act', 'Act-Inp', 'Obs', 'Final-Tht', 'Ans'],
    );
    const obs = input.nodes.find(n => n.node?.name === 'Obs')!;
    assert.deepEqual(obs.lines, ['Obs', '[Observation]']);
    assert.ok(obs.node!.envInput);
    assert.ok(obs.width > '[Observation]'.length * 6 && obs.height > 2 * 12);
    const name = (id: string) => input.nodes.find(n => n.id === id)!.node?.name ?? 'start';
    assert.deepEqual(input.edges.map(e => `${name(e.from)}>${name(e.to)}`).sort(), [
      'Act-Inp>Obs',
      'Act>Act-Inp',
      'Final-Tht>Ans',
      'Obs>Final-Tht',
      'Obs>Tht',
      'Ques>Final-Tht',
      'Ques>Tht',
      'Tht>Act',
      'start>Ques',
    ]);
  });

  test('long prompt texts wrap at words, at most three lines', () => {
    assert.deepEqual(wrapText('one two three', 7), ['one two', 'three']);
    const lines = wrapText('word '.repeat(40), 10, 3);
    assert.equal(lines.length, 3);
    assert.ok(lines[2].endsWith('…'));
  });

  test('dagre lays it out left to right without overlaps; the SVG has every state and edge', () => {
    const layout = layoutDiagram(diagramInput(react));
    const boxes = layout.nodes;
    for (const a of boxes)
      for (const b of boxes)
        if (a !== b)
          assert.ok(
            Math.abs(a.x - b.x) >= (a.width + b.width) / 2 || Math.abs(a.y - b.y) >= (a.height + b.height) / 2,
            `${a.id} and ${b.id} overlap`,
          );
    const x = (n: string) => boxes.find(b => b.node?.name === n)!.x;
    assert.ok(x('Ques') < x('Tht') && x('Tht') < x('Act') && x('Final-Tht') < x('Ans'));
    assert.ok(layout.edges.every(e => e.points.length >= 2));
    const svg = renderDiagramSvg(layout);
    assert.equal((svg.match(/<g class="state/g) ?? []).length, 7);
    assert.equal((svg.match(/<path class="transition/g) ?? []).length, 9);
    assert.match(svg, /<g class="state env-input" data-state="Obs"/);
    assert.match(svg, /<g class="state final" data-state="Ans"/);
    assert.doesNotMatch(svg, /<script|href="http/);
  });

  test('the highlight: the state a transcript is in and the states allowed next', () => {
    const h = highlightOf(react, '[Question] who?\n[Thought] search it\n[Action] Search\n');
    assert.deepEqual(h, { current: 'Act', expected: ['Act-Inp'] });
    const svg = renderDiagramSvg(layoutDiagram(diagramInput(react)), h);
    assert.match(svg, /<g class="state current" data-state="Act"/);
    assert.match(svg, /<g class="state expected" data-state="Act-Inp"/);
    assert.equal((svg.match(/class="transition next"/g) ?? []).length, 1);
    assert.deepEqual(highlightOf(react, ''), { current: null, expected: ['Ques'] });
  });

  test('a monitor correction marks the edge it took, with what was corrected; one gone from the text marks nothing', () => {
    const before = '[Question] who?\n[Thought] search it\n';
    const text = `${before}[Action] Search\n[Action Input] Milhouse\n`;
    const correction = { offset: before.length, found: 'Act-Inp', expected: ['Act'], removed: '[Action Input] Milhouse', inserted: '[Action]' };
    const h = highlightOf(react, text, [correction]);
    assert.deepEqual(h.current, 'Act-Inp');
    assert.deepEqual(
      h.corrections?.map(c => [c.from, c.to]),
      [['Tht', 'Act']],
    );
    assert.match(h.corrections![0].title, /after Tht the model wrote the state Act-Inp; the spec allows Act, so "\[Action\]" was inserted/);
    const svg = renderDiagramSvg(layoutDiagram(diagramInput(react)), h);
    const marked = svg.match(/<path class="transition[^"]*corrected" data-from="([^"]*)" data-to="([^"]*)"[^>]*><title>([^<]*)<\/title>/g) ?? [];
    assert.equal(marked.length, 1, 'exactly one edge is marked');
    assert.match(marked[0], /data-from="Tht" data-to="Act"/);
    assert.match(marked[0], /the model wrote the state Act-Inp/);
    assert.match(svg, /<text class="correction-label" data-from="Tht" data-to="Act"[^>]*><title>[^<]+<\/title>corrected<\/text>/);

    // Text before the first state: the edge from the start. Not yet entered: the edges to each state allowed.
    const start = highlightOf(react, '[Question] who?\n', [
      { offset: 0, found: null, expected: ['Ques'], removed: 'Sure! ', inserted: '[Question]' },
    ]);
    assert.deepEqual(
      start.corrections?.map(c => [c.from, c.to]),
      [[null, 'Ques']],
    );
    assert.match(renderDiagramSvg(layoutDiagram(diagramInput(react)), start), /class="transition corrected" data-from="" data-to="Ques"/);
    const early = highlightOf(react, `${before}[`, [{ offset: before.length, found: null, expected: ['Act'], removed: '', inserted: '[' }]);
    assert.deepEqual(
      early.corrections?.map(c => [c.from, c.to]),
      [['Tht', 'Act']],
    );
    // A correction whose text is no longer there (the run stepped back before it) marks nothing.
    assert.equal(highlightOf(react, before, [correction]).corrections, undefined);
  });
});
