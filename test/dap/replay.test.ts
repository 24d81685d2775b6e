// The debug adapter as a DAP client sees it: dist/debugAdapter.js over stdio, replaying the arithmetic corpus
// program (no endpoint) with its tools really executed: [generate python code] answered from the recording,
// [code execute] running the code with /usr/bin/python3.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { corpusPath } from '../support/corpus';
import { ADAPTER, DapClient, DapError } from './dapClient';

const PROGRAM = corpusPath('programs/arithmetic.art');
/** The "Elementary Math" program (Janet's ducks): generate python code, code execute, Ans: 18. */
const DUCKS = 1;
const lineOf = (prefix: string, nth = 0) => {
  const lines = readFileSync(PROGRAM, 'utf8').split('\n');
  let seen = -1;
  const i = lines.findIndex(l => l.startsWith(prefix) && ++seen === nth);
  assert.ok(i >= 0, `no line ${prefix}`);
  return i + 1;
};

type Stopped = DebugProtocol.StoppedEvent;
type Vars = DebugProtocol.VariablesResponse;

async function variables(c: DapClient, scopeName: string): Promise<Record<string, string>> {
  const frames = await c.request<DebugProtocol.StackTraceResponse>('stackTrace', { threadId: 1 });
  const scopes = await c.request<DebugProtocol.ScopesResponse>('scopes', { frameId: frames.body.stackFrames[0].id });
  const scope = scopes.body.scopes.find(s => s.name === scopeName);
  assert.ok(scope, `no "${scopeName}" scope: ${scopes.body.scopes.map(s => s.name).join(', ')}`);
  const vars = await c.request<Vars>('variables', { variablesReference: scope.variablesReference });
  return Object.fromEntries(vars.body.variables.map(v => [v.name, v.value]));
}

describe('debug adapter over stdio: replay mode', () => {
  const work = mkdtempSync(join(tmpdir(), 'art-dap-'));
  let c: DapClient;

  before(() => assert.ok(existsSync(ADAPTER), 'build first: node scripts/build.mjs (dist/debugAdapter.js)'));
  after(() => DapClient.closeAll());

  test('launch, stop at each tool call, read and override the output, continue to the answer', async () => {
    c = DapClient.start({ cwd: work });
    const launched = await c.launch({ program: PROGRAM, task: DUCKS, mode: 'replay', trace: join(work, 'run.jsonl') });
    assert.equal(launched.success, true);

    // Stopped after [generate python code], reason `tool call`, the description naming the tool.
    let m = 0;
    const first = await c.waitFor<Stopped>('stopped', m);
    assert.equal(first.body.reason, 'tool call');
    assert.match(first.body.description ?? '', /generate python code/);
    const threads = await c.request<DebugProtocol.ThreadsResponse>('threads');
    assert.equal(threads.body.threads.length, 1);
    let tool = await variables(c, 'Tool call');
    assert.equal(tool.tool, 'generate python code');
    assert.match(tool.output, /ans = sold_eggs \* dollars_per_egg/);
    assert.match(tool.duration, /ms$/);
    assert.equal(tool.error, '');

    m = c.mark();
    await c.request('continue', { threadId: 1 });
    const second = await c.waitFor<Stopped>('stopped', m);
    assert.equal(second.body.reason, 'tool call');
    assert.match(second.body.description ?? '', /\[code execute\]/);

    // The frame is the file's own `Q2:` line (the run replays the file's program).
    const frames = await c.request<DebugProtocol.StackTraceResponse>('stackTrace', { threadId: 1 });
    const frame = frames.body.stackFrames[0];
    assert.equal(frame.source?.path, PROGRAM);
    assert.equal(frame.line, lineOf('Q2: [code execute]', 1));
    assert.match(frame.name, /Q2 \[code execute\]/);

    // The code really ran: Python computed 18.
    tool = await variables(c, 'Tool call');
    assert.equal(tool.tool, 'code execute');
    assert.equal(tool.output, '18');
    assert.match(tool.input, /Execute the python code in #1/);
    const program = await variables(c, 'Program');
    assert.match(program['#1'], /total_eggs = 16/);

    // Override the output; the view and the program show the new value.
    const scopes = await c.request<DebugProtocol.ScopesResponse>('scopes', { frameId: frame.id });
    const ref = scopes.body.scopes.find(s => s.name === 'Tool call')!.variablesReference;
    const set = await c.request<DebugProtocol.SetVariableResponse>('setVariable', { variablesReference: ref, name: 'output', value: '42' });
    assert.equal(set.body.value, '42');
    assert.equal((await variables(c, 'Tool call')).output, '42');
    await assert.rejects(c.request('setVariable', { variablesReference: ref, name: 'tool', value: 'x' }), (e: unknown) => e instanceof DapError && /cannot be changed/.test(e.message));
    await assert.rejects(c.request('setVariable', { variablesReference: ref, name: 'input', value: 'x' }), /only be changed before the tool runs/);

    m = c.mark();
    await c.request('continue', { threadId: 1 });
    const end = await c.waitFor<DebugProtocol.Event>('art/end', m);
    await c.waitFor('terminated', m);
    assert.equal(end.body.reason, 'finished');
    assert.equal(end.body.answer, '18');
    assert.match(end.body.text, /\n#2: 42\nQ3: \[EOQ\]\nAns: 18$/);
    assert.equal(end.body.calls[1].override, '42');

    // The Debug Console got the program as it grew, and the answer.
    const stdout = c.output('stdout');
    assert.match(stdout, /Q1: \[generate python code\][\s\S]*#2: 42\n/);
    assert.match(c.output('console'), /Answer: 18/);
    const exited = await c.waitFor<DebugProtocol.ExitedEvent>('exited', m);
    assert.equal(exited.body.exitCode, 0);

    // The trace has the calls and the override.
    const trace = readFileSync(join(work, 'run.jsonl'), 'utf8').trim().split('\n').map(l => JSON.parse(l));
    assert.deepEqual(trace.filter(r => r.t === 'tool').map(r => r.call.tool), ['generate python code', 'code execute']);
    assert.equal(trace.find(r => r.t === 'edit')?.text, '42');
    await c.close();

    // The trace replays in the debugger without calling anything: the recorded outputs, the override in place.
    c = DapClient.start({ cwd: work });
    await c.launch({ program: join(work, 'run.jsonl') });
    m = 0;
    for (const tool of ['generate python code', 'code execute']) {
      const stop = await c.waitFor<Stopped>('stopped', m);
      assert.match(stop.body.description ?? '', new RegExp(`\\[${tool}\\]`));
      m = c.mark();
      await c.request('continue', { threadId: 1 });
    }
    const replayed = await c.waitFor<DebugProtocol.Event>('art/end', m);
    assert.equal(replayed.body.text, end.body.text, 'the same program');
    await c.close();
  });

  test('pauseBeforeTool: a stop before the tool runs, its input editable; breakpoints on a Q line and a tool name', async () => {
    c = DapClient.start({ cwd: work });
    // The Aqua-rat program: its `Q3: [compare]` is a step the model answers (a breakpoint stops there).
    const q3 = lineOf('Q3: [compare]');
    await c.launch({ program: PROGRAM, task: 'Aqua-rat', mode: 'replay', pauseBeforeTool: true }, async dap => {
      const bps = await dap.request<DebugProtocol.SetBreakpointsResponse>('setBreakpoints', {
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
      await dap.request('setBreakpoints', { source: { path: PROGRAM }, breakpoints: [{ line: q3 }] });
    });

    let m = 0;
    const before = await c.waitFor<Stopped>('stopped', m);
    assert.equal(before.body.reason, 'tool call');
    assert.match(before.body.description ?? '', /before tool \[generate python code\]/);
    let tool = await variables(c, 'Tool call');
    assert.equal(tool.duration, '(not run yet)');
    assert.equal(tool.output, '');
    // After the tool ran: a stop with the output.
    m = c.mark();
    await c.request('continue', { threadId: 1 });
    const afterGen = await c.waitFor<Stopped>('stopped', m);
    assert.match(afterGen.body.description ?? '', /returned/);

    // Before [code execute]: a function breakpoint on it stops there (once, though pauseBeforeTool stops there too).
    await c.request('setFunctionBreakpoints', { breakpoints: [{ name: 'code execute' }] });
    m = c.mark();
    await c.request('continue', { threadId: 1 });
    const atTool = await c.waitFor<Stopped>('stopped', m);
    assert.equal(atTool.body.reason, 'function breakpoint');
    const frames = await c.request<DebugProtocol.StackTraceResponse>('stackTrace', { threadId: 1 });
    const scopes = await c.request<DebugProtocol.ScopesResponse>('scopes', { frameId: frames.body.stackFrames[0].id });
    const ref = scopes.body.scopes.find(s => s.name === 'Tool call')!.variablesReference;
    await c.request('setVariable', { variablesReference: ref, name: 'input', value: 'Run the code in #1 and read "ans"' });
    tool = await variables(c, 'Tool call');
    assert.equal(tool.input, 'Run the code in #1 and read "ans"');

    m = c.mark();
    await c.request('continue', { threadId: 1 });
    const afterExec = await c.waitFor<Stopped>('stopped', m);
    assert.equal(afterExec.body.reason, 'tool call');
    assert.equal(Number((await variables(c, 'Tool call')).output), 1, 'sympy solved it: a 1 hour flight');

    // The breakpoint on `Q3:`.
    m = c.mark();
    await c.request('continue', { threadId: 1 });
    const atQ3 = await c.waitFor<Stopped>('stopped', m);
    assert.equal(atQ3.body.reason, 'breakpoint');
    const f = await c.request<DebugProtocol.StackTraceResponse>('stackTrace', { threadId: 1 });
    assert.equal(f.body.stackFrames[0].line, q3);
    assert.deepEqual(Object.keys(await variables(c, 'Program')).slice(0, 2), ['#1', '#2']);

    m = c.mark();
    await c.request('continue', { threadId: 1 });
    const end = await c.waitFor<DebugProtocol.Event>('art/end', m);
    assert.equal(end.body.answer, 'A');
    assert.match(end.body.text, /\nQ2: \[code execute\] Run the code in #1 and read "ans"\n#2: 1(\.0)?\nQ3: \[compare\]/, 'the edited input is in the program');
    await c.close();
  });

  test('next goes to the next step; terminate ends the run; restart runs it again', async () => {
    c = DapClient.start({ cwd: work });
    await c.launch({ program: PROGRAM, task: DUCKS, mode: 'replay', stopOnEntry: true });
    let m = 0;
    const entry = await c.waitFor<Stopped>('stopped', m);
    assert.equal(entry.body.reason, 'entry');
    m = c.mark();
    await c.request('next', { threadId: 1 });
    const step = await c.waitFor<Stopped>('stopped', m);
    assert.equal(step.body.reason, 'step');
    assert.match(step.body.description ?? '', /generate python code/);

    m = c.mark();
    await c.request('restart', { arguments: { program: PROGRAM, task: DUCKS, mode: 'replay' } });
    const again = await c.waitFor<Stopped>('stopped', m);
    assert.equal(again.body.reason, 'tool call', 'the restarted run stops at the first tool call');
    assert.ok(!c.events.slice(m).some(e => e.event === 'terminated'), 'a restart does not end the session');
    assert.match(c.output('console'), /restarted/);

    m = c.mark();
    await c.request('terminate');
    const end = await c.waitFor<DebugProtocol.Event>('art/end', m);
    assert.equal(end.body.reason, 'stopped');
    await c.waitFor('terminated', m);
    await c.close();
  });

  test('pause stops the streaming model mid-way; continue goes on from there', async () => {
    c = DapClient.start({ cwd: work });
    await c.launch({ program: PROGRAM, task: DUCKS, mode: 'replay', replayDelayMs: 20 });
    await c.waitFor('art/text');
    await c.request('pause', { threadId: 1 });
    const paused = await c.waitFor<Stopped>('stopped');
    assert.equal(paused.body.reason, 'pause');
    const m = c.mark();
    await c.request('continue', { threadId: 1 });
    const next = await c.waitFor<Stopped>('stopped', m);
    assert.equal(next.body.reason, 'tool call');
    assert.match(next.body.description ?? '', /generate python code/);
    await c.request('terminate');
    await c.waitFor('terminated', m);
    await c.close();
  });

  test('launch errors are one clear line', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ program: join(work, 'missing.art'), mode: 'replay' }, /missing\.art: no such file/],
      [{ program: PROGRAM, task: 'Nope', mode: 'replay' }, /no task named "Nope": the file has 0: Aqua-rat, 1: Elementary Math/],
      [{ program: PROGRAM, task: 2, mode: 'replay' }, /program 2 is the prompt template/],
      [{ program: PROGRAM, task: DUCKS, mode: 'generate' }, /no endpoint/],
      [{ program: PROGRAM, task: DUCKS, mode: 'replay', trusted: false }, /not trusted/],
      [{ program: PROGRAM, mode: 'fast' }, /^launch attribute "mode": expected "generate" or "replay", not "fast"$/],
      [{ program: PROGRAM, task: DUCKS, mode: 'replay', pythonTimeoutMs: 'soon' }, /^launch attribute "pythonTimeoutMs": expected an integer of at least 1, not "soon"$/],
    ];
    for (const [args, message] of cases) {
      c = DapClient.start({ cwd: work });
      await assert.rejects(c.launch(args), (e: unknown) => e instanceof DapError && message.test(e.message) && !e.message.includes('\n'));
      await c.close();
    }
  });

  test('run options from the launch configuration reach the tools: wordList, pythonTimeoutMs', async () => {
    const dir = join(__dirname, '../fixtures/run-options');
    c = DapClient.start({ cwd: work });
    await c.launch({ program: join(dir, 'options.art'), cwd: dir, task: 0, mode: 'replay', wordList: 'words.txt' });
    await c.waitFor<Stopped>('stopped');
    const lookup = await variables(c, 'Tool call');
    assert.equal(lookup.tool, 'lookup');
    assert.equal(lookup.output, 'nwist');
    await c.request('terminate');
    await c.close();

    c = DapClient.start({ cwd: work });
    await c.launch({ program: join(dir, 'options.art'), task: 2, mode: 'replay', pythonTimeoutMs: 5 });
    await c.waitFor<Stopped>('stopped');
    const exec = await variables(c, 'Tool call');
    assert.equal(exec.tool, 'code execute');
    assert.match(exec.error, /stopped after the time limit of 0\.005 s/);
    await c.request('terminate');
    await c.close();
  });
});
