// Inline <<Calculator>> triggers inside an ART step the model answers, through the debug adapter: with the launch
// option inlineTriggers, the replayed program stops at each trigger like at a tool call (a function breakpoint on
// the tool before it runs, a `tool call` stop after it with the calculator's real output); without it, the
// triggers are text and the run goes through.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { fixturePath } from '../support/fixtures';
import { ArtDebugClient } from './adapter';

const PROGRAM = fixturePath('programs/inline-triggers.art');

describe('debug adapter over stdio: inline triggers inside an ART step', () => {
  after(() => ArtDebugClient.closeAll());

  test('inlineTriggers: the debugger stops at each <<Calculator>> in the answer of [think step-by-step]', async () => {
    const c = await ArtDebugClient.start({ cwd: mkdtempSync(join(tmpdir(), 'art-dap-inline-')) });
    const ended = c.waitForEvent('art/end');
    let stopped = c.waitForEvent('stopped');
    await c.launchWith({ program: PROGRAM, task: 1, mode: 'replay', inlineTriggers: true }, async d => {
      await d.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'Calculator' }] });
    });
    const seen: string[][] = [];
    for (let i = 0; i < 4; i++) {
      const stop = (await stopped) as DebugProtocol.StoppedEvent;
      const tool = await c.variables('Tool call');
      const frames = await c.stackTraceRequest({ threadId: 1 });
      seen.push([stop.body.reason, frames.body.stackFrames[0].name, tool.tool, tool.input, tool.output]);
      stopped = c.waitForEvent('stopped');
      if (i === 3) stopped.catch(() => {});
      await c.continueRequest({ threadId: 1 });
    }
    const end = await ended;
    assert.deepEqual(seen, [
      ['function breakpoint', 'Q1 [Calculator]', 'Calculator', 'The pens cost 3 * 4', ''],
      ['tool call', 'Q1 [Calculator]', 'Calculator', 'The pens cost 3 * 4', '12'],
      ['function breakpoint', 'Q1 [Calculator]', 'Calculator', 'The change is 20 - 12', ''],
      ['tool call', 'Q1 [Calculator]', 'Calculator', 'The change is 20 - 12', '8'],
    ]);
    assert.equal(end.body.reason, 'finished');
    assert.equal(end.body.answer, '8');
    assert.match(end.body.text, /\n#1: The pens cost 3 \* 4 <<Calculator>> 12 dollars\. The change is 20 - 12 <<Calculator>> 8 dollars\.\n/);
    await c.close();
  });

  test('without the option (the default) the triggers are text: no stop, the run goes through', async () => {
    const c = await ArtDebugClient.start({ cwd: mkdtempSync(join(tmpdir(), 'art-dap-inline-')) });
    const ended = c.waitForEvent('art/end');
    await c.launchWith({ program: PROGRAM, task: 1, mode: 'replay' }, async d => {
      await d.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'Calculator' }] });
    });
    const end = await ended;
    assert.equal(end.body.reason, 'finished');
    assert.equal(c.count('stopped'), 0);
    await c.close();
  });
});
