import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createReactTools } from '../../../core/tools/react';
import { readFixture } from '../../support/fixtures';
import { CORPUS_DIR, ctx } from './helpers';

/** `[Action Input]` / `[Observation]` pairs of the fixture ReACT trace (the corpus suite checks the paper's own). */
function traceObservations(trace = readFixture('traces/react-milhouse.txt')): { action: string; input: string; observation: string }[] {
  const steps: { action: string; input: string; observation: string }[] = [];
  const re = /\[Action\] (.+)\n\[Action Input\] (.+)\n\[Observation\] (.+)/g;
  for (const m of trace.matchAll(re)) steps.push({ action: m[1].trim(), input: m[2].trim(), observation: m[3].trim() });
  return steps;
}

describe('ReACT Search / Lookup', () => {
  test('replays the Milhouse trace: every observation is what the trace shows', async () => {
    const tools = createReactTools({ corpusDir: CORPUS_DIR });
    const steps = traceObservations();
    assert.deepEqual(
      steps.map(s => s.action),
      ['Search', 'Lookup'],
    );
    for (const s of steps) {
      const tool = s.action === 'Search' ? tools.search : tools.lookup;
      const r = await tool.run({ instruction: s.input }, ctx());
      assert.ok(r.ok, JSON.stringify(r));
      assert.equal(r.output, s.observation);
    }
  });

  test('Lookup walks through the matches, then says there are no more', async () => {
    const tools = createReactTools({ corpusDir: CORPUS_DIR });
    const s = await tools.search.run({ instruction: 'The Simpsons' }, ctx());
    assert.ok(s.ok);
    assert.match(s.output, /^The Simpsons is an American animated sitcom/);
    const outputs: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await tools.lookup.run({ instruction: 'longest-running' }, ctx());
      assert.ok(r.ok);
      outputs.push(r.output);
    }
    assert.match(outputs[0], /^\(Result 1 \/ 1\) The Simpsons is the longest-running American animated series/);
    assert.equal(outputs[1], 'No more results.');
    const named1 = await tools.lookup.run({ instruction: '"named"' }, ctx());
    const named2 = await tools.lookup.run({ instruction: 'NAMED' }, ctx());
    assert.ok(named1.ok && named2.ok);
    assert.equal(named1.output, '(Result 1 / 2) They live in the fictional town of Springfield, whose state is never named.');
    assert.match(named2.output, /^\(Result 2 \/ 2\) Groening named most of the family/);
  });

  test('Search[...] brackets are accepted; an unknown entity is an observation, Lookup without Search an error', async () => {
    const tools = createReactTools({ corpusDir: CORPUS_DIR });
    const lookupFirst = await tools.lookup.run({ instruction: 'named after' }, ctx());
    assert.equal(lookupFirst.ok, false);
    assert.match(!lookupFirst.ok ? lookupFirst.error : '', /needs a successful Search first/);
    const hit = await tools.search.run({ instruction: '[Apollo 11]' }, ctx());
    assert.ok(hit.ok);
    assert.match(hit.output, /^Apollo 11 \(July 16 to 24, 1969\)/);
    const miss = await tools.search.run({ instruction: 'Qwxyzzy' }, ctx());
    assert.ok(miss.ok);
    assert.equal(miss.output, 'Could not find "Qwxyzzy" in the corpus.');
    const after = await tools.lookup.run({ instruction: 'Moon' }, ctx());
    assert.equal(after.ok, false, 'a failed Search forgets the previous document');
  });

  test('state belongs to one pair of tools (one run)', async () => {
    const a = createReactTools({ corpusDir: CORPUS_DIR });
    const b = createReactTools({ corpusDir: CORPUS_DIR });
    await a.search.run({ instruction: 'Milhouse' }, ctx());
    assert.equal((await b.lookup.run({ instruction: 'named after' }, ctx())).ok, false);
    assert.equal((await a.lookup.run({ instruction: 'named after' }, ctx())).ok, true);
    a.reset();
    assert.equal((await a.lookup.run({ instruction: 'named after' }, ctx())).ok, false);
  });
});
