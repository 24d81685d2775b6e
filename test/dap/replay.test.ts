// The debug adapter as a DAP client sees it: dist/debugAdapter.js over stdio, replaying the arithmetic fixture
// program (no endpoint) with its tools really executed: [generate python code] answered from the recording,
// [code execute] running the code with /usr/bin/python3.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { requireDebianPackage } from '../support/debian';
import { ScriptedServer } from '../support/scriptedServer';
import { CODEGEN_SCRIPT, DUCKS_SCRIPT } from '../support/runs';
import { fixturePath } from '../support/fixtures';
import { ADAPTER, ArtDebugClient } from './adapter';

const PROGRAM = fixturePath('programs/arithmetic.art');
/** The "Elementary Math" program (eggs sold at the market): generate python code, code execute, Ans: 18. */
const DUCKS = 1;
const lineOf = (prefix: string, nth = 0) => {
  const lines = readFileSync(PROGRAM, 'utf8').split('\n');
  let seen = -1;
  const i = lines.findIndex(l => l.startsWith(prefix) && ++seen === nth);
  assert.ok(i >= 0, `no line ${prefix}`);
  return i + 1;
};

type Stopped = DebugProtocol.StoppedEvent;

/** Sends `continue` and resolves with the next stop. */
async function continueToStop(c: ArtDebugClient): Promise<Stopped> {
  const stopped = c.waitForEvent('stopped');
  await c.continueRequest({ threadId: 1 });
  return (await stopped) as Stopped;
}

describe('debug adapter over stdio: replay mode', () => {
  const work = mkdtempSync(join(tmpdir(), 'art-dap-'));
  let c: ArtDebugClient;

  before(() => assert.ok(existsSync(ADAPTER), 'build first: node scripts/build.mjs (dist/debugAdapter.js)'));
  after(() => ArtDebugClient.closeAll());

  test('launch, stop at each tool call, read and override the output, continue to the answer', async () => {
    c = await ArtDebugClient.start({ cwd: work });
    const stopped = c.waitForEvent('stopped');
    const launched = await c.launchWith({ program: PROGRAM, task: DUCKS, mode: 'replay', trace: join(work, 'run.jsonl') });
    assert.equal(launched.success, true);

    // Stopped after [generate python code], reason `tool call`, the description naming the tool.
    const first = (await stopped) as Stopped;
    assert.equal(first.body.reason, 'tool call');
    assert.match(first.body.description ?? '', /generate python code/);
    const threads = await c.threadsRequest();
    assert.equal(threads.body.threads.length, 1);
    let tool = await c.variables('Tool call');
    assert.equal(tool.tool, 'generate python code');
    assert.match(tool.output, /ans = sold_eggs \* dollars_per_egg/);
    assert.match(tool.duration, /ms$/);
    assert.match(tool.constrained, /^no /, 'a replay sends no decoding constraint');
    assert.equal(tool.error, undefined, 'no error row when the tool did not fail');

    const second = await continueToStop(c);
    assert.equal(second.body.reason, 'tool call');
    assert.match(second.body.description ?? '', /\[code execute\]/);

    // The frame is the file's own `Q2:` line (the run replays the file's program).
    const frames = await c.stackTraceRequest({ threadId: 1 });
    const frame = frames.body.stackFrames[0];
    assert.equal(frame.source?.path, PROGRAM);
    assert.equal(frame.line, lineOf('Q2: [code execute]', 1));
    assert.match(frame.name, /Q2 \[code execute\]/);

    // The code really ran: Python computed 18.
    tool = await c.variables('Tool call');
    assert.equal(tool.tool, 'code execute');
    assert.equal(tool.output, '18');
    assert.match(tool.input, /Execute the python code in #1/);
    const program = await c.variables('Program');
    assert.match(program['#1'], /total_eggs = 16/);

    // Override the output; the view and the program show the new value.
    const scopes = await c.scopesRequest({ frameId: frame.id });
    const ref = scopes.body.scopes.find(s => s.name === 'Tool call')!.variablesReference;
    const set = await c.setVariableRequest({ variablesReference: ref, name: 'output', value: '42' });
    assert.equal(set.body.value, '42');
    assert.equal((await c.variables('Tool call')).output, '42');
    await assert.rejects(
      c.setVariableRequest({ variablesReference: ref, name: 'tool', value: 'x' }),
      (e: unknown) => e instanceof Error && /cannot be changed/.test(e.message),
    );
    await assert.rejects(c.setVariableRequest({ variablesReference: ref, name: 'input', value: 'x' }), /only be changed before the tool runs/);

    // The run departed from its recording: with no endpoint it cannot say what the model writes after 42, so it
    // ends there and says why, instead of replaying the recorded `Ans: 18` as if it still followed.
    const ended = c.waitForEvent('art/end');
    const terminated = c.waitForEvent('terminated');
    const exitedEvent = c.waitForEvent('exited');
    await c.continueRequest({ threadId: 1 });
    const end = await ended;
    await terminated;
    assert.equal(end.body.reason, 'departed');
    assert.match(
      end.body.error,
      /departed from its recording \(#2's output was set by hand\)[\s\S]*set a model \(in VS Code the status bar's run mode item/,
    );
    assert.match(end.body.text, /\n#2: 42\n$/, 'nothing after the change came from the recording');
    assert.doesNotMatch(end.body.text, /Ans:/);
    assert.equal(end.body.calls[1].override, '42');

    // The Debug Console got the program as it grew, and where it left the recording.
    assert.match(c.output('stdout'), /Q1: \[generate python code\][\s\S]*#2: 42\n/);
    assert.match(c.output('console'), /departs from its recording here \(#2's output was set by hand\)/);
    const exited = (await exitedEvent) as DebugProtocol.ExitedEvent;
    assert.equal(exited.body.exitCode, 1);

    // The trace has the calls, the override and the point where the recording stopped applying.
    const trace = readFileSync(join(work, 'run.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map(l => JSON.parse(l));
    assert.deepEqual(
      trace.filter(r => r.t === 'tool').map(r => r.call.tool),
      ['generate python code', 'code execute'],
    );
    assert.equal(trace.find(r => r.t === 'edit')?.text, '42');
    assert.match(trace.find(r => r.t === 'live')?.why ?? '', /#2's output was set by hand/);
    await c.close();
  });

  test('an override in replay mode with an endpoint goes on live: the endpoint sees the new value and nothing before it', async () => {
    const server = new ScriptedServer();
    await server.start();
    server.setScripts(DUCKS_SCRIPT, CODEGEN_SCRIPT);
    try {
      c = await ArtDebugClient.start({ cwd: work });
      const tracePath = join(work, 'live.jsonl');
      const stopped = c.waitForEvent('stopped');
      await c.launchWith({
        program: PROGRAM,
        task: DUCKS,
        mode: 'replay',
        baseURL: server.baseURL,
        model: 'scripted',
        pauseBeforeTool: true,
        trace: tracePath,
      });
      await stopped; // before [generate python code]
      await continueToStop(c); // after it
      const beforeExec = await continueToStop(c);
      assert.match(beforeExec.body.description ?? '', /before tool \[code execute\]/);
      // Edit the input: the tool reads another variable, and the recording no longer applies.
      const frames = await c.stackTraceRequest({ threadId: 1 });
      const scopes = await c.scopesRequest({ frameId: frames.body.stackFrames[0].id });
      const ref = scopes.body.scopes.find(s => s.name === 'Tool call')!.variablesReference;
      await c.setVariableRequest({ variablesReference: ref, name: 'input', value: 'Execute the python code in #1 and get the value of "sold_eggs"' });
      const afterExec = await continueToStop(c);
      assert.equal((await c.variables('Tool call')).output, '9', 'the tool ran the edited input');
      assert.equal(afterExec.body.reason, 'tool call');
      assert.equal(server.requests.length, 0, 'the recorded prefix cost no request');

      const ended = c.waitForEvent('art/end');
      await c.continueRequest({ threadId: 1 });
      const end = await ended;
      assert.equal(end.body.reason, 'finished', end.body.error);
      assert.equal(server.requests.length, 1, 'one live request, from the change on');
      assert.match(server.requests[0].prompt, /get the value of "sold_eggs"\n#2: 9\n$/, 'the endpoint saw the edited step and its output');
      assert.match(
        c.output('console'),
        /departs from its recording here \(the input of \[code execute\] was edited\): from the next request on, \S*scripted\S* writes the rest live/,
      );
      const trace = readFileSync(tracePath, 'utf8')
        .trim()
        .split('\n')
        .map(l => JSON.parse(l));
      assert.equal(trace.filter(r => r.t === 'live').length, 1);
      await c.close();
    } finally {
      await server.close();
    }
  });

  test('pauseBeforeTool: a stop before the tool runs, breakpoints on a Q line and a tool name', async () => {
    requireDebianPackage('python3-sympy');
    c = await ArtDebugClient.start({ cwd: work });
    // The Aqua-rat program: its `Q3: [compare]` is a step the model answers (a breakpoint stops there).
    const q3 = lineOf('Q3: [compare]');
    const firstStop = c.waitForEvent('stopped');
    await c.launchWith({ program: PROGRAM, task: 'Aqua-rat', mode: 'replay', pauseBeforeTool: true }, async dap => {
      const bps = await dap.setBreakpointsRequest({
        source: { path: PROGRAM },
        breakpoints: [{ line: q3 }, { line: lineOf('Input:') }, { line: lineOf('#1:') + 2 }, { line: lineOf('Q4: [EOQ]') }],
      });
      const [onQ3, onInput, inAnswer, onEoq] = bps.body.breakpoints;
      assert.equal(onEoq.verified, false, '[EOQ] ends the program: no stop there');
      assert.equal(onQ3.verified, true);
      assert.equal(onQ3.line, q3);
      assert.equal(onInput.verified, false, 'an Input: line holds no breakpoint');
      assert.match(onInput.message ?? '', /Qk:/);
      assert.equal(inAnswer.line, lineOf('Q1:'), 'a line inside a step moves to its Q line');
      // The list is whole each time, as VS Code sends it: keep only the one on Q3.
      await dap.setBreakpointsRequest({ source: { path: PROGRAM }, breakpoints: [{ line: q3 }] });
    });

    const before = (await firstStop) as Stopped;
    assert.equal(before.body.reason, 'tool call');
    assert.match(before.body.description ?? '', /before tool \[generate python code\]/);
    let tool = await c.variables('Tool call');
    assert.equal(tool.duration, '(not run yet)');
    assert.equal(tool.output, '');
    // After the tool ran: a stop with the output.
    const afterGen = await continueToStop(c);
    assert.match(afterGen.body.description ?? '', /returned/);

    // Before [code execute]: a function breakpoint on it stops there (once, though pauseBeforeTool stops there too).
    await c.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'code execute' }] });
    const atTool = await continueToStop(c);
    assert.equal(atTool.body.reason, 'function breakpoint');
    // The input is editable here (an edit would end the replay: see the test with an endpoint above).
    tool = await c.variables('Tool call');
    assert.match(tool.input, /#1/);
    assert.equal(tool.duration, '(not run yet)');

    const afterExec = await continueToStop(c);
    assert.equal(afterExec.body.reason, 'tool call');
    assert.equal(Number((await c.variables('Tool call')).output), 1, 'sympy solved it: a 1 hour flight');

    // The breakpoint on `Q3:`.
    const atQ3 = await continueToStop(c);
    assert.equal(atQ3.body.reason, 'breakpoint');
    const f = await c.stackTraceRequest({ threadId: 1 });
    assert.equal(f.body.stackFrames[0].line, q3);
    assert.deepEqual(Object.keys(await c.variables('Program')).slice(0, 2), ['#1', '#2']);

    const ended = c.waitForEvent('art/end');
    await c.continueRequest({ threadId: 1 });
    const end = await ended;
    assert.equal(end.body.answer, 'A');
    assert.match(end.body.text, /\nQ2: \[code execute\][^\n]*\n#2: 1(\.0)?\nQ3: \[compare\]/, 'the program ran on through the breakpoint on Q3');
    await c.close();
  });

  test('next goes to the next step; terminate ends the run; restart runs it again', async () => {
    c = await ArtDebugClient.start({ cwd: work });
    const entryStop = c.waitForEvent('stopped');
    await c.launchWith({ program: PROGRAM, task: DUCKS, mode: 'replay', stopOnEntry: true });
    const entry = (await entryStop) as Stopped;
    assert.equal(entry.body.reason, 'entry');
    const stepStop = c.waitForEvent('stopped');
    await c.nextRequest({ threadId: 1 });
    const step = (await stepStop) as Stopped;
    assert.equal(step.body.reason, 'step');
    assert.match(step.body.description ?? '', /generate python code/);

    const terminatedBefore = c.count('terminated');
    const restartStop = c.waitForEvent('stopped');
    await c.restartRequest({ arguments: { program: PROGRAM, task: DUCKS, mode: 'replay' } as DebugProtocol.LaunchRequestArguments });
    const again = (await restartStop) as Stopped;
    assert.equal(again.body.reason, 'tool call', 'the restarted run stops at the first tool call');
    assert.equal(c.count('terminated'), terminatedBefore, 'a restart does not end the session');
    assert.match(c.output('console'), /restarted/);

    const ended = c.waitForEvent('art/end');
    const terminated = c.waitForEvent('terminated');
    await c.terminateRequest();
    const end = await ended;
    assert.equal(end.body.reason, 'stopped');
    await terminated;
    await c.close();
  });

  test('pause stops the streaming model mid-way; continue goes on from there', async () => {
    c = await ArtDebugClient.start({ cwd: work });
    const text = c.waitForEvent('art/text');
    await c.launchWith({ program: PROGRAM, task: DUCKS, mode: 'replay', replayDelayMs: 20 });
    await text;
    const pauseStop = c.waitForEvent('stopped');
    await c.pauseRequest({ threadId: 1 });
    const paused = (await pauseStop) as Stopped;
    assert.equal(paused.body.reason, 'pause');
    const next = await continueToStop(c);
    assert.equal(next.body.reason, 'tool call');
    assert.match(next.body.description ?? '', /generate python code/);
    const terminated = c.waitForEvent('terminated');
    await c.terminateRequest();
    await terminated;
    await c.close();
  });

  test('launch errors are one clear line', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ program: join(work, 'missing.art'), mode: 'replay' }, /missing\.art: no such file/],
      [{ program: PROGRAM, task: 'Nope', mode: 'replay' }, /no task named "Nope": the file has 0: Aqua-rat, 1: Elementary Math/],
      [{ program: PROGRAM, task: 2, mode: 'replay' }, /program 2 is the prompt template/],
      [{ program: PROGRAM, task: DUCKS, mode: 'generate' }, /no model: give a local GGUF model file/],
      [{ program: PROGRAM, task: DUCKS, mode: 'replay', trusted: false }, /not trusted/],
      [{ program: PROGRAM, mode: 'fast' }, /^launch attribute "mode": expected "generate" or "replay", not "fast"$/],
      [
        { program: PROGRAM, task: DUCKS, mode: 'replay', pythonTimeoutMs: 'soon' },
        /^launch attribute "pythonTimeoutMs": expected an integer of at least 1, not "soon"$/,
      ],
    ];
    for (const [args, message] of cases) {
      c = await ArtDebugClient.start({ cwd: work });
      await assert.rejects(c.launchWith(args), (e: unknown) => e instanceof Error && message.test(e.message) && !e.message.includes('\n'));
      await c.close();
    }
  });

  test('run options from the launch configuration reach the tools: wordList, pythonTimeoutMs', async () => {
    const dir = join(__dirname, '../fixtures/run-options');
    c = await ArtDebugClient.start({ cwd: work });
    let stopped = c.waitForEvent('stopped');
    await c.launchWith({ program: join(dir, 'options.art'), cwd: dir, task: 0, mode: 'replay', wordList: 'words.txt' });
    await stopped;
    const lookup = await c.variables('Tool call');
    assert.equal(lookup.tool, 'lookup');
    assert.equal(lookup.output, 'nwist');
    await c.terminateRequest();
    await c.close();

    c = await ArtDebugClient.start({ cwd: work });
    stopped = c.waitForEvent('stopped');
    await c.launchWith({ program: join(dir, 'options.art'), task: 2, mode: 'replay', pythonTimeoutMs: 5 });
    await stopped;
    const exec = await c.variables('Tool call');
    assert.equal(exec.tool, 'code execute');
    assert.match(exec.error, /stopped after the time limit of 0\.005 s/);
    await c.terminateRequest();
    await c.close();
  });
});
