// An agent spec through the debug adapter: ReACT from the fixture spec against the scripted server, the real
// Search/Lookup tools over a small corpus; each `:env-input` state is a tool call that stops the run, the frame
// points at the state's line in the spec, and the decoding monitor's correction is shown in the Debug Console.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { ContinuationScript } from '../../core/replay/script';
import { ScriptedServer } from '../support/scriptedServer';
import { fixturePath, tempCorpus } from '../support/runs';
import { ArtDebugClient } from './adapter';

const SPEC = fixturePath('agents/react.agent');
const QUESTION = 'Who was Milhouse named after?';
const HEADER = `[Question] ${QUESTION}\n`;
const TAIL =
  '[Action Input] Milhouse\n' +
  '[Observation]⟂⟦ Milhouse is a character.⟧\n' +
  '[Thought] I can look up "named after".\n' +
  '[Action] Lookup\n' +
  '[Action Input] named after\n' +
  '[Observation]⟂⟦ (Result 1 / 1) Named after Nixon.⟧\n' +
  '[Final Thought] So the answer is Richard Nixon.\n' +
  '[Answer] Richard Nixon\n';
const REACT = ContinuationScript.parse('[Thought] I need to search Milhouse.\n[Action] Search\n' + TAIL, HEADER);
/** The model forgets `[Action]`: the monitor cuts the text and inserts the state it expected. */
const OFF_SPEC = ContinuationScript.parse('[Thought] I need to search Milhouse.\n' + TAIL, HEADER);

describe('debug adapter over stdio: an agent spec', () => {
  const server = new ScriptedServer();
  const work = mkdtempSync(join(tmpdir(), 'art-dap-agent-'));
  const corpus = tempCorpus();
  let c: ArtDebugClient;
  before(() => server.start());
  after(async () => {
    await ArtDebugClient.closeAll();
    await server.close();
  });
  const launchArgs = { program: SPEC, input: QUESTION, mode: 'generate', baseURL: '', model: 'scripted', corpus };

  test("stops at each environment input with the real tool output; the frame is the state's line in the spec", async () => {
    server.setScripts(REACT);
    c = await ArtDebugClient.start({ cwd: work });
    const stopped = c.waitForEvent('stopped');
    await c.launchWith({ ...launchArgs, baseURL: server.baseURL });
    const stop = (await stopped) as DebugProtocol.StoppedEvent;
    assert.equal(stop.body.reason, 'tool call');
    assert.match(stop.body.description ?? '', /\[Search\]/);
    const frames = await c.stackTraceRequest({ threadId: 1 });
    const frame = frames.body.stackFrames[0];
    assert.equal(frame.source?.path, SPEC);
    const specLines = readFileSync(SPEC, 'utf8').split('\n');
    assert.match(specLines[frame.line - 1], /\(Obs /, "the env-input state's definition");
    const tool = await c.variables('Tool call');
    assert.equal(tool.tool, 'Search');
    assert.equal(tool.input, 'Milhouse');
    assert.match(tool.output, /^Milhouse Mussolini Van Houten is a recurring character/);
    const program = await c.variables('Program');
    assert.equal(program.Act, 'Search');
    assert.match(program['expected next'], /Obs/);

    const next = c.waitForEvent('stopped');
    await c.continueRequest({ threadId: 1 });
    await next;
    assert.ok('Tht (2)' in (await c.variables('Program')), 'a repeated state is numbered');
    const ended = c.waitForEvent('art/end');
    await c.continueRequest({ threadId: 1 });
    const end = await ended;
    assert.equal(end.body.reason, 'finished', end.body.error);
    assert.equal(end.body.answer, 'Richard Nixon');
    assert.equal(end.body.kind, 'agent');
    await c.close();
  });

  test('a breakpoint on a state line stops when the run enters that state', async () => {
    server.setScripts(REACT);
    c = await ArtDebugClient.start({ cwd: work });
    const line =
      readFileSync(SPEC, 'utf8')
        .split('\n')
        .findIndex(l => l.includes('(Final-Tht ')) + 1;
    let stopped = c.waitForEvent('stopped');
    await c.launchWith({ ...launchArgs, baseURL: server.baseURL }, async dap => {
      const r = await dap.setBreakpointsRequest({ source: { path: SPEC }, breakpoints: [{ line }] });
      assert.equal(r.body.breakpoints[0].verified, true);
    });
    const reasons: string[] = [];
    for (;;) {
      const stop = (await stopped) as DebugProtocol.StoppedEvent;
      reasons.push(stop.body.reason);
      if (stop.body.reason === 'breakpoint') break;
      stopped = c.waitForEvent('stopped');
      await c.continueRequest({ threadId: 1 });
    }
    assert.deepEqual(reasons, ['tool call', 'tool call', 'breakpoint']);
    const f = await c.stackTraceRequest({ threadId: 1 });
    assert.equal(f.body.stackFrames[0].line, line);
    await c.terminateRequest();
    await c.close();
  });

  test('a monitor correction is shown in the Debug Console, not hidden', async () => {
    server.setScripts(OFF_SPEC);
    c = await ArtDebugClient.start({ cwd: work });
    const ended = c.waitForEvent('art/end');
    await c.launchWith({ ...launchArgs, baseURL: server.baseURL, noDebug: true });
    const end = await ended;
    assert.match(c.output('console'), /\[monitor\] off-spec at offset \d+: found state Act-Inp, expected Act; removed .*inserted "\[Action\]/);
    assert.match(end.body.text, /\[Action\]/);
    await c.close();
  });

  test('an agent needs a question, and a recording beside it to replay', async () => {
    for (const [args, message] of [
      [{ ...launchArgs, input: undefined, baseURL: 'http://127.0.0.1:9/v1' }, /needs an input: the question for react-agent/],
      [{ ...launchArgs, mode: 'replay', input: undefined }, /react\.agent has none beside it: add react\.transcript\.txt/],
      [{ ...launchArgs, task: 'nope', baseURL: 'http://127.0.0.1:9/v1' }, /no agent named "nope": the file has 0: react-agent/],
    ] as const) {
      c = await ArtDebugClient.start({ cwd: work });
      await assert.rejects(c.launchWith(args), (e: unknown) => e instanceof Error && message.test(e.message));
      await c.close();
    }
  });

  test('the example agent replays its recorded run with no endpoint, stopping at each observation', async () => {
    const example = join(__dirname, '../../examples/agents/react.agent');
    c = await ArtDebugClient.start({ cwd: work });
    const stopped = c.waitForEvent('stopped');
    await c.launchWith({ program: example, mode: 'replay', corpus: join(__dirname, '../../examples/corpus') });
    assert.equal(((await stopped) as DebugProtocol.StoppedEvent).body.reason, 'tool call');
    const tool = await c.variables('Tool call');
    assert.equal(tool.tool, 'Search');
    assert.equal(tool.input, 'Mark Twain');
    assert.match(tool.output, /^Samuel Langhorne Clemens/);
    await c.terminateRequest();
    await c.close();
  });
});
