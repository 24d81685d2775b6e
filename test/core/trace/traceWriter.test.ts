// A trace that cannot be written (here /dev/full: every write fails with ENOSPC, as on a full disk) is reported once,
// not once per record, and the run goes on.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { prepareRun } from '../../../core/launch/launch';
import { TraceWriter } from '../../../core/trace/trace';
import { fixturePath, runWithoutPauses } from '../../support/runs';

const FULL = '/dev/full';
const chunk = (i: number) => ({ t: 'chunk' as const, at: i, n: 1, text: `token ${i}` });

describe('TraceWriter on a full disk (Linux: /dev/full)', () => {
  test('the error reporter is told once, in one line naming the file, for many records', () => {
    const lines: string[] = [];
    const w = new TraceWriter(FULL, [], line => lines.push(line));
    for (let i = 0; i < 50; i++) w.write(chunk(i));
    w.close();
    assert.equal(lines.length, 1);
    assert.match(lines[0], /^\/dev\/full: cannot write the trace \(ENOSPC\): it ends after 0 record\(s\)/);
    assert.ok(!lines[0].includes('\n'));
  });

  test('without a reporter the first failing write throws, and only that one', () => {
    const w = new TraceWriter(FULL);
    assert.throws(() => w.write(chunk(0)), /cannot write the trace \(ENOSPC\)/);
    for (let i = 1; i < 20; i++) w.write(chunk(i));
    w.close();
  });

  test('a run traced to a full disk: one log line, the run finishes', async () => {
    const log: string[] = [];
    const run = await prepareRun({
      program: fixturePath('programs/arithmetic.art'),
      task: 1,
      mode: 'replay',
      trusted: true,
      trace: FULL,
      pauseAfterTool: false,
      pauseOnToolError: false,
      log: l => log.push(l),
    });
    const result = await runWithoutPauses(run.runner);
    await run.dispose();
    assert.equal(result.reason, 'finished', result.error);
    const said = log.filter(l => /trace/.test(l));
    assert.equal(said.length, 1, log.join('\n'));
    assert.match(said[0], /^\/dev\/full: cannot write the trace \(ENOSPC\)/);
  });
});
