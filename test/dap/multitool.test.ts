// A MultiTool-CoT prompt through the debug adapter: the shipped example replays its recorded answer with no
// endpoint and stops at each <<Calculator>> trigger with the calculator's real output.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { ArtDebugClient } from './adapter';

const EXAMPLE = join(__dirname, '../../examples/word-problems.cot.txt');

describe('debug adapter over stdio: a MultiTool-CoT prompt', () => {
  after(() => ArtDebugClient.closeAll());

  test('replay mode stops at each trigger, then runs to the answer', async () => {
    const c = await ArtDebugClient.start({ cwd: mkdtempSync(join(tmpdir(), 'art-dap-cot-')) });
    const ended = c.waitForEvent('art/end');
    let stopped = c.waitForEvent('stopped');
    await c.launchWith({ program: EXAMPLE, mode: 'replay' });
    const seen: [string, string, string][] = [];
    for (let i = 0; i < 2; i++) {
      assert.equal(((await stopped) as DebugProtocol.StoppedEvent).body.reason, 'tool call');
      const tool = await c.variables('Tool call');
      seen.push([tool.tool, tool.input, tool.output]);
      stopped = c.waitForEvent('stopped');
      if (i === 1) stopped.catch(() => {});
      await c.continueRequest({ threadId: 1 });
    }
    const end = await ended;
    assert.deepEqual(seen, [
      ['Calculator', 'The library buys 6 * 45', '270'],
      ['Calculator', 'After giving 38 books away, it keeps 270 - 38', '232'],
    ]);
    assert.equal(end.body.reason, 'finished');
    assert.equal(end.body.answer, '232');
    await c.close();
  });
});
