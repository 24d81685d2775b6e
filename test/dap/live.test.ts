// The live debugger over DAP: dist/debugAdapter.js generates the zoo's program (test/support/modelZoo.ts) with chat
// endpoints that misbehave as real models do. What a person sees in VS Code is checked on the messages: the first
// line says the mode and why, informational lines are `console` and only problems `stderr`, the stack frame's line
// lies inside the document it names, the tool call's scope comes first and is not expensive (VS Code expands it),
// the reasoning of the step is a variable, each kind of repair is said once, and a run that ends without progress
// or with a reply that is no program says so in one line.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { THOUGHT, ZOO_ANSWER, ZOO_LIBRARY, ZOO_PROGRAM, ZooServer, type Habit } from '../support/modelZoo';
import { ArtDebugClient } from './adapter';

const work = mkdtempSync(join(tmpdir(), 'art-dap-live-'));
const LIBRARY = join(work, 'zoo.art');
writeFileSync(LIBRARY, ZOO_LIBRARY);

const servers: ZooServer[] = [];
after(async () => {
  await ArtDebugClient.closeAll();
  await Promise.all(servers.map(s => s.close()));
});

/** An adapter launched live against a zoo endpoint with `habit`; resolves once the launch was answered. */
async function launch(habit: Habit, extra: Record<string, unknown> = {}): Promise<{ c: ArtDebugClient; server: ZooServer }> {
  const server = await new ZooServer(habit).start();
  servers.push(server);
  const c = await ArtDebugClient.start({ cwd: work });
  await c.launchWith({
    program: LIBRARY,
    task: ZOO_PROGRAM,
    mode: 'generate',
    baseURL: server.baseURL,
    model: `zoo-${habit}`,
    api: 'chat',
    modeReason: 'the run mode is Live (the status bar, art.run.mode)',
    ...extra,
  });
  return { c, server };
}

/** Continues to the end; resolves with the end event's body. */
async function finish(c: ArtDebugClient): Promise<DebugProtocol.Event['body']> {
  const ended = c.waitForEvent('art/end');
  const terminated = c.waitForEvent('terminated');
  await c.continueRequest({ threadId: 1 });
  const end = await ended;
  await terminated;
  return end.body;
}

describe('debug adapter over stdio: the live path against the model zoo', () => {
  test('think: to the tool stop; first line, console categories, frame line inside its document, scopes, reasoning', async () => {
    const server = await new ZooServer('think').start();
    servers.push(server);
    const c = await ArtDebugClient.start({ cwd: work });
    const stopped = c.waitForEvent('stopped');
    await c.launchWith({
      program: LIBRARY,
      task: ZOO_PROGRAM,
      mode: 'generate',
      baseURL: server.baseURL,
      model: 'zoo-think',
      api: 'chat',
      modeReason: 'the run mode is Live (the status bar, art.run.mode)',
    });
    const stop = (await stopped) as DebugProtocol.StoppedEvent;
    assert.equal(stop.body.reason, 'tool call');

    // The first line: the mode, the model and why.
    const first = c.output().split('\n')[0];
    assert.match(first, /^Live: zoo-think at http:\/\/127\.0\.0\.1:\d+\/v1 writes .+ \(the run mode is Live \(the status bar, art\.run\.mode\)\)$/);
    // The sandbox's isolation is information: a console line, nothing on stderr for a clean run.
    assert.match(c.output('console'), /^tools: /m);
    assert.equal(c.output('stderr'), '');

    // The top frame names the generated program, and its line is the step's, inside that document.
    const frames = await c.stackTraceRequest({ threadId: 1 });
    const top = frames.body.stackFrames[0];
    const source = top.source!;
    const content = (await c.sourceRequest({ source, sourceReference: source.sourceReference! })).body.content;
    const lines = content.split('\n');
    for (const f of frames.body.stackFrames) {
      if (f.source?.sourceReference !== source.sourceReference) continue;
      assert.ok(f.line >= 1 && f.line <= lines.length, `frame "${f.name}" at line ${f.line} of a ${lines.length}-line document`);
    }
    assert.match(lines[top.line - 1], /^Q1: \[calculator\] 3 \+ 7/);

    // The tool call's scope first and not expensive (VS Code expands the first such scope at a stop).
    const scopes = (await c.scopesRequest({ frameId: top.id })).body.scopes;
    assert.deepEqual(
      scopes.map(s => [s.name, s.expensive]),
      [
        ['Tool call', false],
        ['Program', false],
      ],
    );
    const tool = await c.variables('Tool call');
    assert.equal(tool.output, '10');
    // What the model thought while it wrote the step: a variable, never program text.
    assert.equal(tool.reasoning, THOUGHT);
    assert.ok(!content.includes(THOUGHT));
    // The <think> block was a repair of the reply: said once.
    assert.equal([...c.output('console').matchAll(/the chat reply was repaired: /g)].length, 1, c.output());

    const end = await finish(c);
    assert.equal(end.reason, 'finished', end.error);
    assert.equal(end.answer, ZOO_ANSWER);
    assert.equal(c.output('stderr'), '');
    await c.close();
  });

  test('think, a run without a stop (no debugging): the reasoning is in the Debug Console at the end, collapsed', async () => {
    const { c } = await launch('think', { noDebug: true });
    const ended = c.waitForEvent('art/end');
    await c.waitForEvent('terminated');
    assert.equal((await ended).body.answer, ZOO_ANSWER);
    const console = c.output('console');
    assert.match(console, /\[request 1\] reasoning, \d+ characters\n/);
    assert.ok(console.includes(THOUGHT), console);
    assert.ok(!c.output('stdout').includes(THOUGHT), 'never program text');
    await c.close();
  });

  test('wrapper: each kind of repair said once in the Debug Console, the run finishes with the answer', async () => {
    const { c } = await launch('wrapper', { pauseBeforeTool: false });
    await c.waitForEvent('stopped');
    const end = await finish(c);
    assert.equal(end.answer, ZOO_ANSWER, end.error);
    const said = [...c.output('console').matchAll(/\[request \d+\] the chat reply was repaired: (.*)/g)].map(m => m[1]);
    assert.equal(said.length, 2, c.output());
    assert.equal(new Set(said).size, said.length, 'no repair said twice');
    assert.doesNotMatch(c.output('stdout'), /Sure|```/);
    await c.close();
  });

  test('refusal: the end is one stderr line saying the reply does not continue the program', async () => {
    const { c } = await launch('refusal');
    await c.waitForEvent('terminated');
    const err = c.output('stderr').trim();
    assert.equal(err.split('\n').length, 1, err);
    assert.match(err, /^The run ended \(malformed\): the model's reply does not continue the program: "I'm sorry/);
    await c.close();
  });

  test('empty: the end is one stderr line saying no progress was made', async () => {
    const { c } = await launch('empty');
    // The first step is a tool call: continue past it.
    await c.waitForEvent('stopped');
    const terminated = c.waitForEvent('terminated');
    await c.continueRequest({ threadId: 1 });
    await terminated;
    const err = c.output('stderr').trim();
    assert.equal(err.split('\n').length, 1, err);
    assert.match(err, /^The run ended \(no-progress\): no progress in 3 requests in a row/);
    await c.close();
  });

  test('replay with a model set: the first line says the model goes on after a departure', async () => {
    const server = await new ZooServer('plain').start();
    servers.push(server);
    const c = await ArtDebugClient.start({ cwd: work });
    const stopped = c.waitForEvent('stopped');
    await c.launchWith({ program: LIBRARY, task: ZOO_PROGRAM, mode: 'replay', baseURL: server.baseURL, model: 'zoo-plain' });
    await stopped;
    assert.match(
      c.output().split('\n')[0],
      /^Replay: .+ from its recording \(the launch configuration's "mode"\); the tools run again, and once the run departs from the recording zoo-plain at http:\/\/127\.0\.0\.1:\d+\/v1 writes the rest live$/,
    );
    await c.close();
  });
});
