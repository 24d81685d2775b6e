// OpenTelemetry export from the debug adapter (dist/debugAdapter.js over stdio), the `otlp` launch attribute as
// art.telemetry.endpoint fills it: a debugged run's spans reach a local OTLP receiver when it ends, with the output
// overridden in the Variables view as an event; a run stopped while paused is sent too; a collector that never
// answers does not hold the debugger (the run ends and the adapter exits as without telemetry).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScriptedServer } from '../support/scriptedServer';
import { OtlpReceiver } from '../support/otlpReceiver';
import { CODEGEN_SCRIPT, DUCKS, DUCKS_SCRIPT, fixturePath } from '../core/runner/helpers';
import { ArtDebugClient } from './adapter';

const PROGRAM = fixturePath('programs/arithmetic.art');
const KEY = 'sk-test-0tlpDap9Zq8fK2mWp4Lx9Rb7';

describe('debug adapter: OpenTelemetry export', () => {
  const server = new ScriptedServer();
  const work = mkdtempSync(join(tmpdir(), 'art-dap-otlp-'));
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
  const launch = (c: ArtDebugClient) =>
    c.launchWith({
      program: PROGRAM,
      task: DUCKS,
      mode: 'generate',
      baseURL: server.baseURL,
      model: 'scripted',
      apiKeyEnv: 'ART_TEST_KEY',
      otlp: receiver.baseURL,
    });

  test('a debugged run is sent when it ends: its spans, and the override as an event', async () => {
    receiver.mode = 'ok';
    const c = await ArtDebugClient.start({ cwd: work, env: { ART_TEST_KEY: KEY } });
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
    assert.ok(!Buffer.concat(receiver.requests.map(q => q.body)).includes(KEY), 'no key');
    await c.close();
  });

  test('a run stopped while paused is sent; a collector that never answers holds neither the end nor the exit', async () => {
    receiver.clear();
    receiver.mode = 'hang';
    const c = await ArtDebugClient.start({ cwd: work, env: { ART_TEST_KEY: KEY } });
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
