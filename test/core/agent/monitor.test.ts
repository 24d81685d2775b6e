import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { StreamMonitor, commonPrefix, monitorText, type CompiledAgent, type MonitorEvent, type MonitorOptions } from '../../../core/agent';
import { compiled, fixtureAgent, prng, reactTrace, replaceOnce } from './helpers';

const react = compiled(fixtureAgent('react'));
const trace = reactTrace();

const REACT_STATES = ['Ques', 'Tht', 'Act', 'Act-Inp', 'Obs', 'Tht', 'Act', 'Act-Inp', 'Obs', 'Final-Tht', 'Ans'];

/** Remove the one line that starts with `prefix`. */
function dropLine(text: string, prefix: string): string {
  const lines = text.split('\n');
  assert.equal(lines.filter(l => l.startsWith(prefix)).length, 1, `one line starts with ${prefix}`);
  const i = lines.findIndex(l => l.startsWith(prefix));
  lines.splice(i, 1);
  return lines.join('\n');
}

function lines(names: [string, string][]): string {
  return names.map(([tag, body]) => `[${tag}] ${body}\n`).join('');
}

describe('monitorText on the ReACT trace', () => {
  test('the paper trace is valid, with the right states in order', () => {
    const r = monitorText(react, trace, { complete: true });
    assert.equal(r.valid, true);
    assert.deepEqual(r.states, REACT_STATES);
    assert.equal(r.violation, null);
    assert.equal(r.corrected, trace);
  });

  test('a skipped action: truncated before [Action Input], corrected with [Action]', () => {
    const broken = dropLine(trace, '[Action] Search');
    const r = monitorText(react, broken);
    const offset = broken.indexOf('[Action Input] Milhouse');
    assert.equal(r.valid, false);
    assert.deepEqual(r.violation, { offset, found: 'Act-Inp', expected: ['Act'] });
    assert.equal(r.corrected, `${broken.slice(0, offset)}[Action]`);
    assert.deepEqual(r.states, ['Ques', 'Tht']);
  });

  test('an answer right after an observation: expected Tht or Final-Tht, corrected with "["', () => {
    const broken = dropLine(trace, '[Final Thought]');
    const r = monitorText(react, broken);
    const offset = broken.indexOf('[Answer]');
    assert.deepEqual(r.violation, { offset, found: 'Ans', expected: ['Tht', 'Final-Tht'] });
    assert.equal(r.corrected, `${broken.slice(0, offset)}[`);
    assert.ok(r.corrected.endsWith('Milhous.\n['));
  });

  test('text before the first state: corrected to start with [Question]', () => {
    const broken = `  \nSure! Let me think.\n${trace}`;
    const r = monitorText(react, broken);
    assert.deepEqual(r.violation, { offset: 3, found: null, expected: ['Ques'] });
    assert.equal(r.corrected, '  \n[Question]');
    assert.deepEqual(r.states, []);
  });

  test('white space before the first state is fine', () => {
    assert.equal(monitorText(react, `\n\n  ${trace}`, { complete: true }).valid, true);
  });

  test('complete: a run that stops in a state that is not final', () => {
    const cut = trace.slice(0, trace.indexOf('[Final Thought]'));
    assert.equal(monitorText(react, cut).valid, true, 'a prefix of a valid run is fine while streaming');
    const r = monitorText(react, cut, { complete: true });
    assert.deepEqual(r.violation, { offset: cut.length, found: null, expected: ['Tht', 'Final-Tht'] });
    assert.equal(r.corrected, `${cut}[`);
    const empty = monitorText(react, '', { complete: true });
    assert.deepEqual(empty.violation, { offset: 0, found: null, expected: ['Ques'] });
  });

  test('anything after the final state is a violation with nothing to append', () => {
    const r = monitorText(react, `${trace}[Question] again?\n`);
    assert.deepEqual(r.violation, { offset: trace.length, found: 'Ques', expected: [] });
    assert.equal(r.corrected, trace);
  });

  test('longest match first, and prompt texts count anywhere in a line', () => {
    const r = monitorText(react, '[Question] q [Thought] t [Action] Search [Action Input] x [Observation] o');
    assert.deepEqual(r.states, ['Ques', 'Tht', 'Act', 'Act-Inp', 'Obs']);
    assert.equal(r.valid, true);
  });
});

describe('nested loops', () => {
  const reflexion = compiled(fixtureAgent('reflexion'));
  const pass = compiled(fixtureAgent('pass'));
  const trial = lines([
    ['Thought', 't'],
    ['Action', 'Search'],
    ['Action Input', 'x'],
    ['Observation', 'o'],
  ]);

  test('reflexion accepts two reflections with repeated trials', () => {
    const text =
      lines([['Question', 'q']]) +
      trial +
      trial +
      lines([
        ['Final Thought', 'f'],
        ['Proposed Answer', 'p'],
        ['Evaluation', 'wrong'],
        ['Reflection', 'r'],
      ]) +
      trial +
      lines([
        ['Final Thought', 'f'],
        ['Proposed Answer', 'p'],
        ['Evaluation', 'right'],
        ['Reflection', 'r'],
        ['Answer', 'a'],
      ]);
    const r = monitorText(reflexion, text, { complete: true });
    assert.equal(r.valid, true, JSON.stringify(r.violation));
    assert.equal(r.states.length, 1 + 4 + 4 + 4 + 4 + 5);
  });

  test('reflexion rejects a proposed answer straight after an observation', () => {
    const text = lines([['Question', 'q']]) + trial + lines([['Proposed Answer', 'p']]);
    const r = monitorText(reflexion, text);
    assert.deepEqual(r.violation?.expected, ['Tht', 'Final-Tht']);
    assert.equal(r.violation?.found, 'Prop-Ans');
    assert.ok(r.corrected.endsWith('[Observation] o\n['));
  });

  test('reflexion after a reflection: another trial, a final thought, or the answer', () => {
    const text = lines([
      ['Question', 'q'],
      ['Final Thought', 'f'],
      ['Proposed Answer', 'p'],
      ['Evaluation', 'e'],
      ['Reflection', 'r'],
      ['Observation', 'o'],
    ]);
    const r = monitorText(reflexion, text);
    assert.deepEqual(r.violation?.expected, ['Tht', 'Final-Tht', 'Ans']);
    assert.ok(r.corrected.endsWith('[Reflection] r\n['));
  });

  test('pass accepts plans with and without actions, and rejects a half action', () => {
    const ok = lines([
      ['Question', 'q'],
      ['Thought', 'plan'],
      ['Action', 'a'],
      ['Action Input', 'i'],
      ['Action', 'b'],
      ['Action Input', 'j'],
      ['Summary', 's'],
      ['Thought', 'plan 2'],
      ['Summary', 's2'],
      ['Final Thought', 'f'],
      ['Answer', 'x'],
    ]);
    assert.equal(monitorText(pass, ok, { complete: true }).valid, true);
    const bad = lines([
      ['Question', 'q'],
      ['Thought', 'plan'],
      ['Action', 'a'],
      ['Summary', 's'],
    ]);
    const r = monitorText(pass, bad);
    assert.deepEqual(r.violation?.expected, ['Act-Inp']);
    assert.ok(r.corrected.endsWith('[Action] a\n[Action Input]'));
    const noSum = lines([
      ['Question', 'q'],
      ['Thought', 'plan'],
      ['Final Thought', 'f'],
    ]);
    assert.deepEqual(monitorText(pass, noSum).violation?.expected, ['Act', 'Sum']);
  });
});

describe('StreamMonitor', () => {
  test('pauses at env-input states and exposes what may come next', () => {
    const m = new StreamMonitor(react);
    const events = m.feed(trace.slice(0, trace.indexOf('[Observation]') + '[Observation]'.length));
    const last = events[events.length - 1];
    assert.deepEqual(last.type === 'state' && [last.state, last.envInput], ['Obs', true]);
    assert.equal(m.current, 'Obs');
    assert.equal(m.inEnvInput, true);
    assert.deepEqual(m.expectedNext(), ['Tht', 'Final-Tht']);
    assert.equal(m.expectedPrefix(), '[');
    assert.equal(m.isFinal, false);
  });

  test('holds back a tail that may still become a longer prompt text', () => {
    const m = new StreamMonitor(react);
    m.feed('[Question] q\n[Thought] t\n[Action');
    assert.equal(m.current, 'Tht', '"[Action" is not decided yet');
    assert.equal(m.safeLength, '[Question] q\n[Thought] t\n'.length);
    m.feed('] Search\n[Action');
    assert.equal(m.current, 'Act', '"[Action]" is complete and nothing longer starts with "[Action]"');
    const events = m.feed(' Input] x');
    assert.deepEqual(
      events.map(e => e.type === 'state' && e.state),
      ['Act-Inp'],
    );
  });

  test('the held-back tail is decided at end()', () => {
    // "Thought:" is a prefix of "Thought: final", so it stays undecided until more text or the end.
    const agent = compiled(
      '(define t (:states (Q (:text "Question:")) (T (:text "Thought:")) (F (:text "Thought: final"))) (:behavior (next Q (until T F))))',
    );
    const m = new StreamMonitor(agent);
    assert.deepEqual(
      m.feed('Question: q\nThought:').map(e => e.type === 'state' && e.state),
      ['Q'],
    );
    assert.equal(m.current, 'Q');
    assert.deepEqual(
      m.end().map(e => e.type === 'state' && e.state),
      ['T'],
    );
    const partial = new StreamMonitor(react);
    partial.feed('[Question] q\n[Thou');
    assert.deepEqual(partial.end(), [], 'an incomplete prompt text at the end is just text');
    assert.equal(partial.result().valid, true);
  });

  test('after a violation the runner can resume from the correction', () => {
    const broken = dropLine(trace, '[Final Thought]');
    const m = new StreamMonitor(react);
    const events = m.feed(broken);
    const v = events.find(e => e.type === 'violation');
    assert.ok(v && v.type === 'violation');
    assert.equal(m.feed('more text').length, 0, 'nothing is checked past a violation');
    m.resumeWithCorrection();
    assert.equal(m.violation, null);
    assert.equal(m.text, v.corrected);
    assert.equal(m.current, 'Obs', 'the held-back "[" may still become [Thought] or [Final Thought]');
    m.feed('Final Thought] so\n[Answer] Richard Nixon\n');
    m.end();
    assert.equal(m.result().valid, true);
    assert.equal(m.isFinal, true);
  });

  test('any chunking gives exactly the batch result and events', () => {
    const reflexion = compiled(fixtureAgent('reflexion'));
    const texts: [CompiledAgent, string, MonitorOptions][] = [
      [react, trace, { complete: true }],
      [react, dropLine(trace, '[Action] Search'), {}],
      [react, dropLine(trace, '[Final Thought]'), {}],
      [react, `Hello\n${trace}`, {}],
      [react, trace.slice(0, trace.indexOf('[Answer]') + 4), { complete: true }],
      [react, replaceOnce(trace, '[Action Input] Milhouse', '[Action][Action Input] Milhouse'), {}],
      [
        reflexion,
        '[Question] q [Thought] [Action] [Action Input] [Observation] [Final Thought] [Proposed Answer] [Evaluation] [Reflection] [Answer] a',
        { complete: true },
      ],
    ];
    const random = prng(42);
    for (const [agent, text, options] of texts) {
      const batch = monitorText(agent, text, options);
      const whole = new StreamMonitor(agent, options);
      const wholeEvents = [...whole.feed(text), ...whole.end()];
      assert.deepEqual(whole.result(), batch);
      for (let round = 0; round < 60; round++) {
        const m = new StreamMonitor(agent, options);
        const events: MonitorEvent[] = [];
        let at = 0;
        while (at < text.length) {
          const size = random() < 0.3 ? 1 : 1 + Math.floor(random() * 24);
          events.push(...m.feed(text.slice(at, at + size)));
          at += size;
        }
        events.push(...m.end());
        assert.deepEqual(m.result(), batch, `round ${round}`);
        assert.deepEqual(events, wholeEvents, `round ${round}`);
      }
    }
  });

  test('commonPrefix', () => {
    assert.equal(commonPrefix(['[Thought]', '[Final Thought]']), '[');
    assert.equal(commonPrefix(['[Action]']), '[Action]');
    assert.equal(commonPrefix([]), '');
  });
});
