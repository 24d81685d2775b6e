// prepareRun's checks of the options it passes to the runner.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { prepareRun } from '../../../core/launch/launch';
import { LaunchError } from '../../../core/launch/options';
import { MAX_TOOL_TIMEOUT_MS } from '../../../core/tools/common';
import { fixturePath } from '../../support/runs';

const PROGRAM = fixturePath('programs/arithmetic.art');

describe('prepareRun: toolTimeoutMs', () => {
  // Past 2^31-1 ms: checked where the timeout enters the runner (below the options' own bounds).
  for (const ms of [2 ** 31, 1e12, Number.MAX_SAFE_INTEGER]) {
    test(`${ms}: a one-line error before anything runs (setTimeout would fire at once)`, async () => {
      await assert.rejects(
        prepareRun({ program: PROGRAM, mode: 'replay', task: 1, trusted: true, toolTimeoutMs: ms }),
        (e: Error) =>
          e instanceof LaunchError &&
          /^toolTimeoutMs: a tool timeout is a whole number of milliseconds from 1 to \d+ \(about 24 days\), not /.test(e.message),
      );
    });
  }

  // Not a positive whole number: the options' declaration says so first, in one line.
  for (const ms of [0, -5, 1.5]) {
    test(`${ms}: rejected by the options' declaration in one line`, async () => {
      await assert.rejects(
        prepareRun({ program: PROGRAM, mode: 'replay', task: 1, trusted: true, toolTimeoutMs: ms }),
        (e: Error) =>
          e instanceof LaunchError &&
          /^launch attribute "toolTimeoutMs": expected an integer of at least 1, not /.test(e.message) &&
          !e.message.includes('\n'),
      );
    });
  }

  test('the largest allowed timeout: tools run to their end, none times out', async () => {
    const run = await prepareRun({
      program: PROGRAM,
      mode: 'replay',
      task: 1,
      trusted: true,
      pauseAfterTool: false,
      toolTimeoutMs: MAX_TOOL_TIMEOUT_MS,
    });
    const timedOut: string[] = [];
    run.runner.on('toolEnd', ({ call }) => void (call.timedOut && timedOut.push(call.tool)));
    try {
      const result = await run.runner.run();
      assert.equal(result.reason, 'finished', result.error);
    } finally {
      await run.dispose();
    }
    assert.deepEqual(timedOut, []);
  });
});

describe('dispose failures', () => {
  test('stopping the tools fails: said once in the run log, dispose still resolves', async () => {
    const { openSession } = await import('../../../core/launch/session');
    const log: string[] = [];
    const session = await openSession({ program: PROGRAM, mode: 'replay', task: 1, trusted: true, log: l => log.push(l) });
    let calls = 0;
    session.tools.dispose = () => (calls++ === 0 ? Promise.reject(new Error('MCP server "notes" did not stop')) : Promise.resolve());
    await session.dispose();
    await session.dispose();
    assert.deepEqual(log, ['tools: stopping the MCP servers failed: MCP server "notes" did not stop (a server process may be left running)']);
  });
});
