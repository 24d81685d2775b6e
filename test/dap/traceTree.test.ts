// The "ART Trace" view's tree, built from the trace of a real run (replayed fixture program, Python really runs,
// one output overridden): requests with their chunks and completion, tool calls with override and duration, the
// end with its tokens.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ReplayModel } from '../../core/replay/programReplay';
import { createArtRunner } from '../../core/launch/create';
import { MemoryTrace } from '../../core/trace/trace';
import { oneLine, traceTree, type TraceNode } from '../../client/views/traceTree';
import { DUCKS, arithmeticLibrary, realTools } from '../support/runs';

const find = (nodes: readonly TraceNode[], label: RegExp) => nodes.find(n => label.test(n.label));

test('a run trace as a tree: run, requests and chunks, tool calls with override and duration, end with tokens', async () => {
  const tools = await realTools();
  try {
    const library = arithmeticLibrary();
    const trace = new MemoryTrace();
    const model = ReplayModel.fromArtProgram(library, DUCKS, name => tools.get(name) !== undefined);
    const runner = createArtRunner({ library, program: DUCKS }, { model, tools, trace });
    runner.on('paused', ({ call }) => {
      if (call?.tool === 'code execute') runner.setToolOutput('42');
      runner.continue();
    });
    const result = await runner.run();
    assert.equal(result.reason, 'finished', result.error);

    const tree = traceTree(trace.records);
    assert.equal(tree[0].label, 'Run (art)');
    // Why each demonstration is in the prompt.
    const demos = tree[0].children!.find(n => n.label === 'demonstrations')!;
    assert.deepEqual(
      demos.children!.map(n => [n.label, n.description]),
      [['Aqua-rat', 'same-file: a program of the library being run']],
    );
    assert.match(tree[0].description ?? '', /^replay/);
    const requests = tree.filter(n => /^Request \d+$/.test(n.label));
    assert.equal(requests.length, trace.records.filter(r => r.t === 'request').length);
    const chunks = requests[0].children!.find(n => n.label === 'chunks')!;
    assert.equal(Number(chunks.description), trace.records.filter(r => r.t === 'chunk' && r.n === 1).length);
    assert.ok(chunks.children!.length > 1, 'the chunks as they arrived');
    assert.ok(requests[0].children!.some(n => n.label === 'completion'));

    const exec = find(tree, /^Tool call #2 \[code execute\]$/)!;
    assert.match(exec.description ?? '', /\d ms · overridden/);
    const fields = Object.fromEntries(exec.children!.map(n => [n.label, n.tooltip]));
    assert.equal(fields.output, '18');
    assert.equal(fields.override, '42');
    assert.match(fields['previous answer']!, /total_eggs = 16/);
    assert.ok(find(tree, /^Edit: output of call #2$/));
    assert.ok(tree.filter(n => n.label.startsWith('Paused')).length >= 2);

    const end = tree.at(-1)!;
    assert.equal(end.label, 'End: finished');
    // A replay asks no endpoint: no token count is claimed.
    assert.match(end.description ?? '', /^answer 18 · no tokens reported · \d+ requests?$/);
    assert.match(end.children!.find(n => n.label === 'program')!.tooltip!, /#2: 42\n/);
  } finally {
    await tools.dispose();
  }
});

test('a sample and its vote', () => {
  const tree = traceTree([
    { t: 'run', at: 0, kind: 'art', model: 'm', honoursStop: true, prompt: 'p', header: 'h', config: {}, options: {}, sample: { index: 2, of: 3 } },
    {
      t: 'vote',
      at: 1,
      answer: '18',
      agree: 2,
      of: 3,
      samples: [
        { index: 1, answer: '18', reason: 'finished' },
        { index: 2, answer: null, reason: 'error' },
        { index: 3, answer: '18', reason: 'finished' },
      ],
    },
  ]);
  assert.equal(tree[0].label, 'Run (art) · sample 2 of 3');
  assert.equal(tree[1].label, 'Vote: 18');
  assert.equal(tree[1].description, '2 of 3 samples');
  assert.deepEqual(
    tree[1].children!.map(n => [n.label, n.description]),
    [
      ['sample 1', '18'],
      ['sample 2', '(error)'],
      ['sample 3', '18'],
    ],
  );
});

test('rows are one shortened line', () => {
  assert.equal(oneLine('a\nb   c'), 'a⏎b c');
  assert.equal(oneLine('x'.repeat(100), 10), `${'x'.repeat(9)}…`);
  assert.deepEqual(traceTree([]), []);
});
