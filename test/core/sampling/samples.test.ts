// Self-consistency in core (core/sampling/samples.ts): the samples' traces, their states read from the runners, the
// vote over the finished ones, and the vote record written into every sample's trace.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareSamples, recordVote, sampleStates, sampleTracePath, tally } from '../../../core/sampling/samples';
import { parseTrace } from '../../../core/trace/trace';
import { DUCKS, fixturePath, runWithoutPauses } from '../../support/runs';

describe('self-consistency samples', () => {
  test("sample k's trace sits beside the one asked for", () => {
    assert.equal(sampleTracePath('/r/run.jsonl', 2), '/r/run.sample-2.jsonl');
    assert.equal(sampleTracePath('/r/run', 1), '/r/run.sample-1.jsonl');
  });

  test('the vote counts finished samples only, on the normalised answer', () => {
    const t = tally([
      { index: 1, state: 'finished', answer: '18', reason: 'finished' },
      { index: 2, state: 'paused', answer: null },
      { index: 3, state: 'finished', answer: ' 18.', reason: 'finished' },
      { index: 4, state: 'finished', answer: '32', reason: 'error' },
    ]);
    assert.deepEqual(t, { answer: '18', agree: 2, answered: 2, of: 4 });
    assert.deepEqual(tally([{ index: 1, state: 'running', answer: null }]), { answer: null, agree: 0, answered: 0, of: 1 });
  });

  test('prepared samples run; each trace says which sample it is and ends with the vote', async () => {
    const work = mkdtempSync(join(tmpdir(), 'art-samples-'));
    const trace = join(work, 'run.jsonl');
    const runs = await prepareSamples(
      {
        program: fixturePath('programs/arithmetic.art'),
        task: DUCKS,
        mode: 'replay',
        trusted: true,
        trace,
        pauseAfterTool: false,
        pauseOnToolError: false,
      },
      2,
    );
    try {
      assert.deepEqual(
        sampleStates(runs).map(s => [s.index, s.state, s.answer]),
        [
          [1, 'idle', null],
          [2, 'idle', null],
        ],
      );
      await Promise.all(runs.map(r => runWithoutPauses(r.runner)));
      assert.deepEqual(
        sampleStates(runs).map(s => [s.state, s.answer, s.reason]),
        [
          ['finished', '18', 'finished'],
          ['finished', '18', 'finished'],
        ],
      );
      assert.deepEqual(recordVote(runs), { answer: '18', agree: 2, answered: 2, of: 2 });
    } finally {
      await Promise.all(runs.map(r => r.dispose()));
    }
    for (const k of [1, 2]) {
      const { records, errors } = parseTrace(readFileSync(sampleTracePath(trace, k), 'utf8'));
      assert.deepEqual(errors, [], 'the schema accepts the sample and vote records');
      const run = records[0];
      assert.ok(run.t === 'run');
      assert.deepEqual(run.sample, { index: k, of: 2 });
      const vote = records.at(-1)!;
      assert.ok(vote.t === 'vote');
      assert.deepEqual(vote.samples, [
        { index: 1, answer: '18', reason: 'finished', trace: sampleTracePath(trace, 1) },
        { index: 2, answer: '18', reason: 'finished', trace: sampleTracePath(trace, 2) },
      ]);
    }
  });

  test('samples cannot all be answered from one trace', async () => {
    await assert.rejects(
      prepareSamples({ program: fixturePath('programs/arithmetic.art'), mode: 'replay', trusted: true, from: 'x.jsonl' }, 2),
      /samples: "from" would answer every sample from the same trace/,
    );
  });
});
