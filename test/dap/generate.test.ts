// The debug adapter in generate mode, over real HTTP: dist/debugAdapter.js runs the arithmetic library's ducks
// task against the scripted OpenAI-compatible server (the real `openai` client streams it); an output overridden
// in the Variables view is what the next request to the model contains. The key comes from the environment
// variable `apiKeyEnv` names and appears in no trace. With `otlp`, a debugged run's spans reach a local OTLP receiver
// when it ends (the override as an event), a run stopped while paused is sent too, and a collector that never answers
// does not hold the debugger.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { ScriptedServer } from '../support/scriptedServer';
import { OtlpReceiver } from '../support/otlpReceiver';
import { CODEGEN_SCRIPT, DUCKS, DUCKS_SCRIPT, fixturePath } from '../support/runs';
import { ArtDebugClient } from './adapter';

const PROGRAM = fixturePath('programs/arithmetic.art');
const KEY = 'sk-test-0123456789abcdef';
const OTLP_KEY = 'sk-test-0tlpDap9Zq8fK2mWp4Lx9Rb7';

describe('debug adapter over stdio: generate mode against the scripted server', () => {
  const server = new ScriptedServer();
  const work = mkdtempSync(join(tmpdir(), 'art-dap-gen-'));
  let c: ArtDebugClient;

  let receiver: OtlpReceiver;

  before(async () => {
    await server.start();
    server.setScripts(DUCKS_SCRIPT, CODEGEN_SCRIPT);
    receiver = await new OtlpReceiver().start();
  });
  after(async () => {
    await ArtDebugClient.closeAll();
    await server.close();
    await receiver.close();
  });

  /** The launch arguments of the ducks task generated against the scripted server, with `extra`. */
  const ducks = (extra: Record<string, unknown>) => ({
    program: PROGRAM,
    task: DUCKS,
    mode: 'generate',
    baseURL: server.baseURL,
    model: 'scripted',
    apiKeyEnv: 'ART_TEST_KEY',
    ...extra,
  });

  test('an override set with setVariable is what the next request contains', async () => {
    c = await ArtDebugClient.start({ cwd: work, env: { ART_TEST_KEY: KEY } });
    const tracePath = join(work, 'generate.jsonl');
    const stopped = c.waitForEvent('stopped');
    await c.launchWith(ducks({ trace: tracePath }));

    const first = (await stopped) as DebugProtocol.StoppedEvent;
    assert.equal(first.body.reason, 'tool call');
    assert.match(first.body.description ?? '', /generate python code/);

    // The program is the model's, not the file's: the frame points at the generated text.
    const frames = await c.stackTraceRequest({ threadId: 1 });
    const source = frames.body.stackFrames[0].source!;
    assert.ok(source.sourceReference && source.sourceReference > 0, 'a generated source');
    assert.equal(source.path, undefined);
    const content = await c.sourceRequest({ source, sourceReference: source.sourceReference! });
    const text = content.body.content;
    assert.match(text, /^Description: \(Elementary Math\)[\s\S]*\nQ1: \[generate python code\]/);
    assert.equal(text.split('\n')[frames.body.stackFrames[0].line - 1].startsWith('Q1:'), true, 'the frame line is the step');

    const nextStop = c.waitForEvent('stopped');
    await c.continueRequest({ threadId: 1 });
    const second = (await nextStop) as DebugProtocol.StoppedEvent;
    assert.match(second.body.description ?? '', /\[code execute\]/);
    const stack = await c.stackTraceRequest({ threadId: 1 });
    const scopes = await c.scopesRequest({ frameId: stack.body.stackFrames[0].id });
    const ref = scopes.body.scopes.find(s => s.name === 'Tool call')!.variablesReference;
    const vars = await c.variablesRequest({ variablesReference: ref });
    assert.equal(vars.body.variables.find(v => v.name === 'output')?.value, '18', 'Python ran the generated code');
    // A JSON string is unquoted (how a multi-line value is typed in one line).
    await c.setVariableRequest({ variablesReference: ref, name: 'output', value: '"42"' });

    const before = server.requests.length;
    const ended = c.waitForEvent('art/end');
    const terminated = c.waitForEvent('terminated');
    await c.continueRequest({ threadId: 1 });
    const end = await ended;
    await terminated;
    assert.equal(end.body.reason, 'finished', end.body.error);
    assert.equal(end.body.answer, '18');

    // The request after the override carries it, and nothing was generated past a tool call.
    const next = server.requests.slice(before).find(r => !r.prompt.endsWith('Python code:\n'));
    assert.ok(next, 'a request after the override');
    assert.ok(next.prompt.endsWith('get the value of "ans"\n#2: 42\n'), next.prompt.slice(-80));
    assert.equal(server.tokensAfterCall, 0);
    assert.match(c.output('stdout'), /#2: 42\nQ3: \[EOQ\]\nAns: 18/);

    // The key reached the endpoint's client but no trace.
    const trace = readFileSync(tracePath, 'utf8');
    assert.ok(trace.includes('"t":"request"'));
    assert.ok(!trace.includes(KEY), 'the key is not in the trace');
    assert.ok(!c.output().includes(KEY), 'the key is not in the output');
    await c.close();
  });

  test('noDebug runs to the end without stopping', async () => {
    c = await ArtDebugClient.start({ cwd: work });
    const ended = c.waitForEvent('art/end');
    await c.launchWith({ program: PROGRAM, task: DUCKS, mode: 'generate', baseURL: server.baseURL, model: 'scripted', noDebug: true });
    const end = await ended;
    assert.equal(end.body.answer, '18');
    assert.equal(c.count('stopped'), 0, 'no stop without debugging');
    await c.close();
  });

  // OpenTelemetry export, the `otlp` launch attribute as art.telemetry.endpoint fills it (docs/telemetry.md).
  const launch = (c: ArtDebugClient) => c.launchWith(ducks({ otlp: receiver.baseURL }));

  test('a debugged run is sent when it ends: its spans, and the override as an event', async () => {
    receiver.mode = 'ok';
    const c = await ArtDebugClient.start({ cwd: work, env: { ART_TEST_KEY: OTLP_KEY } });
    let stopped = c.waitForEvent('stopped');
    await launch(c);
    await stopped;
    stopped = c.waitForEvent('stopped');
    await c.continueRequest({ threadId: 1 });
    await stopped; // after [code execute]
    const stack = await c.stackTraceRequest({ threadId: 1 });
    const scopes = await c.scopesRequest({ frameId: stack.body.stackFrames[0].id });
    const ref = scopes.body.scopes.find(s => s.name === 'Tool call')!.variablesReference;
    await c.setVariableRequest({ variablesReference: ref, name: 'output', value: '"42"' });
    assert.equal(receiver.requests.length, 0, 'nothing is sent while the run is paused');
    const ended = c.waitForEvent('art/end');
    await c.continueRequest({ threadId: 1 });
    await ended;
    await receiver.waitFor(spans => spans.some(s => s.name.startsWith('invoke_agent ')));
    const run = receiver.spans.find(s => s.name.startsWith('invoke_agent '))!;
    assert.equal(run.attributes['art.run.end_reason'], 'finished');
    const override = run.events.find(e => e.name === 'art.override');
    assert.ok(override, run.events.map(e => e.name).join(', '));
    assert.equal(override.attributes['art.override.what'], 'output');
    assert.equal(override.attributes['art.override.text'], undefined, 'content is opt-in');
    const tools = receiver.spans.filter(s => s.parentSpanId === run.spanId && s.name.startsWith('execute_tool '));
    assert.deepEqual(
      tools.map(s => s.name),
      ['execute_tool generate python code', 'execute_tool code execute'],
    );
    assert.equal(tools[1].attributes['art.tool.overridden'], true);
    assert.ok(!Buffer.concat(receiver.requests.map(q => q.body)).includes(OTLP_KEY), 'no key');
    await c.close();
  });

  test('a run stopped while paused is sent; a collector that never answers holds neither the end nor the exit', async () => {
    receiver.clear();
    receiver.mode = 'hang';
    const c = await ArtDebugClient.start({ cwd: work, env: { ART_TEST_KEY: OTLP_KEY } });
    const stopped = c.waitForEvent('stopped');
    await launch(c);
    await stopped;
    const terminated = c.waitForEvent('terminated');
    await c.disconnectRequest({ terminateDebuggee: true });
    await terminated;
    await c.close();
    // The run's spans went out when it was stopped (the collector held the request; the adapter did not wait for it).
    assert.ok(receiver.requests.length >= 1, 'the stopped run was sent');
    const body = receiver.requests.at(-1)!.body;
    assert.ok(body.includes(Buffer.from('invoke_agent')), 'the run span');
    assert.ok(body.includes(Buffer.from('stopped')), 'its end reason');
  });
});
