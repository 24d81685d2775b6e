// Time travel over stdio (dist/debugAdapter.js against the scripted server): step back from the second tool call to
// the first, override it and go on, with no request for the kept prefix and both branches in the trace; an override
// kept at the stop stepped back to, and said; one frame
// per step; restart served from the previous run; alternatives and chooseAlternative as custom requests.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { ContinuationScript } from '../../core/replay/script';
import { mainLine, readTraceFile } from '../../core/trace/trace';
import { ScriptedServer } from '../support/scriptedServer';
import { CODEGEN_SCRIPT, DUCKS, DUCKS_CODE, DUCKS_SCRIPT, fixturePath } from '../support/runs';
import { ArtDebugClient } from './adapter';

const PROGRAM = fixturePath('programs/arithmetic.art');

describe('debug adapter over stdio: step back, restart frame, alternatives', () => {
  const server = new ScriptedServer();
  const work = mkdtempSync(join(tmpdir(), 'art-dap-tt-'));

  before(async () => {
    await server.start();
  });
  after(async () => {
    await ArtDebugClient.closeAll();
    await server.close();
  });

  const launch = (c: ArtDebugClient, trace: string) =>
    c.launchWith({ program: PROGRAM, task: DUCKS, mode: 'generate', baseURL: server.baseURL, model: 'scripted', trace });

  test('step back to the first tool call after the second, override, continue: nothing of the kept prefix is requested again', async () => {
    server.reset();
    server.setScripts(DUCKS_SCRIPT, CODEGEN_SCRIPT);
    const probe = await ArtDebugClient.start({ cwd: work });
    const init = await probe.initializeRequest({ adapterID: 'art', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
    assert.equal(init.body?.supportsStepBack, true);
    assert.equal(init.body?.supportsRestartFrame, true);
    await probe.close();
    const c = await ArtDebugClient.start({ cwd: work });
    const tracePath = join(work, 'stepback.jsonl');
    let stopped = c.waitForEvent('stopped');
    await launch(c, tracePath);
    await stopped;
    stopped = c.waitForEvent('stopped');
    await c.continueRequest({ threadId: 1 });
    const second = (await stopped) as DebugProtocol.StoppedEvent;
    assert.match(second.body.description ?? '', /\[code execute\]/);

    // One frame per step, each at its line of the generated program.
    const frames = (await c.stackTraceRequest({ threadId: 1 })).body.stackFrames;
    assert.deepEqual(
      frames.map(f => f.name),
      ['Q2 [code execute]', 'Q1 [generate python code]'],
    );
    const source = frames[0].source!;
    const text = (await c.sourceRequest({ source, sourceReference: source.sourceReference! })).body.content.split('\n');
    assert.ok(text[frames[0].line - 1].startsWith('Q2:') && text[frames[1].line - 1].startsWith('Q1:'));
    assert.ok(frames.every(f => f.canRestart));

    const kept = server.requests.length;
    assert.equal(kept, 3, 'Q1, the code generator, Q2');
    stopped = c.waitForEvent('stopped');
    await c.stepBackRequest({ threadId: 1 });
    await stopped;
    assert.equal((await c.variables('Tool call')).tool, 'generate python code');
    assert.equal((await c.variables('Tool call')).output, DUCKS_CODE);
    await c.customRequest('art/setToolOutput', { text: 'ans = 7\nprint(ans)' });
    stopped = c.waitForEvent('stopped');
    await c.continueRequest({ threadId: 1 });
    await stopped;
    assert.equal((await c.variables('Tool call')).output, '7', 'the overridden code ran');
    const ended = c.waitForEvent('art/end');
    await c.continueRequest({ threadId: 1 });
    const end = await ended;
    assert.equal(end.body.reason, 'finished', end.body.error);

    const after = server.requests.slice(kept);
    assert.ok(after.length > 0);
    for (const q of after) assert.ok(q.prompt.includes('ans = 7'), `a request of the kept prefix was sent again: …${q.prompt.slice(-60)}`);
    assert.equal(server.tokensAfterCall, 0);

    // Both branches are in the trace: the future left (code execute on the generated code), and the main line.
    const { records } = readTraceFile(tracePath);
    const branch = records.find(r => r.t === 'branch');
    assert.ok(branch && branch.t === 'branch' && branch.why === 'step-back');
    const left = records.slice(branch.from, branch.to);
    assert.ok(
      left.some(r => r.t === 'request'),
      'the requests of the future left',
    );
    assert.ok(
      branch.calls?.some(k => k.tool === 'code execute' && k.output === '18'),
      'the call the run was paused at when it left',
    );
    assert.match(branch.text ?? '', /#1:\n[\s\S]*Q2: \[code execute\]/, 'the program as it was when left');
    const main = mainLine(records);
    assert.ok(main.some(r => r.t === 'tool' && r.call.tool === 'code execute' && r.call.output === '7'));
    assert.ok(!main.some(r => r.t === 'tool' && r.call.output === '18'));
    await c.close();
  });

  test('an override at a stop is kept when stepping back to it: the Variables view shows it, the Debug Console says so, the run goes on from it', async () => {
    server.reset();
    server.setScripts(DUCKS_SCRIPT, CODEGEN_SCRIPT);
    const c = await ArtDebugClient.start({ cwd: work });
    const toStop = async (send: () => Promise<unknown>) => {
      const stopped = c.waitForEvent('stopped');
      await send();
      return (await stopped) as DebugProtocol.StoppedEvent;
    };
    await toStop(() => launch(c, join(work, 'kept.jsonl')));
    // After [generate python code]: its output set by hand, as the Variables view does it.
    const ref = await c.scopeReference('Tool call');
    await c.setVariableRequest({ variablesReference: ref, name: 'output', value: 'ans = 7\nprint(ans)' });
    await toStop(() => c.continueRequest({ threadId: 1 }));
    assert.equal((await c.variables('Tool call')).output, '7', 'the overridden code ran');
    await toStop(() => c.stepBackRequest({ threadId: 1 }));
    const back = await c.variables('Tool call');
    assert.equal(back.tool, 'generate python code');
    assert.equal(back.output, 'ans = 7\nprint(ans)', 'the override made at this stop is kept');
    assert.equal(back['tool output'], DUCKS_CODE, "the tool's own output beside it");
    assert.match(
      c.output('console'),
      /Back at Q1 \[generate python code\]: the output set at this stop is kept \("ans = 7 print\(ans\)"; the tool gave "total_eggs = 16 .*"\); the run goes on from it/,
    );
    await toStop(() => c.continueRequest({ threadId: 1 }));
    assert.equal((await c.variables('Tool call')).output, '7', 'the run went on from the override again');
    const ended = c.waitForEvent('art/end');
    await c.continueRequest({ threadId: 1 });
    const end = await ended;
    assert.equal(end.body.reason, 'finished', end.body.error);
    await c.close();
  });

  test('restart frame returns to a step of the call stack; a restart is answered from the previous run', async () => {
    server.reset();
    server.setScripts(DUCKS_SCRIPT, CODEGEN_SCRIPT);
    const c = await ArtDebugClient.start({ cwd: work });
    let stopped = c.waitForEvent('stopped');
    await launch(c, join(work, 'restartframe.jsonl'));
    await stopped;
    stopped = c.waitForEvent('stopped');
    await c.continueRequest({ threadId: 1 });
    await stopped;
    const frames = (await c.stackTraceRequest({ threadId: 1 })).body.stackFrames;
    stopped = c.waitForEvent('stopped');
    await c.restartFrameRequest({ frameId: frames[1].id });
    await stopped;
    assert.equal((await c.variables('Tool call')).tool, 'generate python code');
    const sent = server.requests.length;

    // Restart: every request identical to one of the run before comes from it.
    stopped = c.waitForEvent('stopped');
    await c.restartRequest({
      arguments: {
        program: PROGRAM,
        task: DUCKS,
        mode: 'generate',
        baseURL: server.baseURL,
        model: 'scripted',
      } as DebugProtocol.LaunchRequestArguments,
    });
    await stopped;
    assert.equal(server.requests.length, sent, 'the restarted run asked the endpoint nothing for its first step');
    assert.equal((await c.variables('Tool call')).output, DUCKS_CODE);
    await c.close();
  });

  test('alternatives and chooseAlternative as custom requests', async () => {
    server.reset();
    const dollars = ContinuationScript.parse(
      " [generate python code] Write down the arithmetic or algebra equations as python code, storing the answer as 'ans'\n" +
        `#⟂1:⟦\n${DUCKS_CODE}⟧\n` +
        'Q2: [code execute] Execute the python code in #1 and get the value of "ans"\n' +
        '#⟂2:⟦ 18⟧\n' +
        'Q3: [EOQ]\n' +
        'Ans: 18 dollars\n----\nDescription: (Another task)',
      'Q1:',
    );
    server.setScripts(DUCKS_SCRIPT, dollars, CODEGEN_SCRIPT);
    server.scriptLogprobs.set(dollars, -0.1);
    server.scriptLogprobs.set(DUCKS_SCRIPT, -0.9);
    const c = await ArtDebugClient.start({ cwd: work });
    let stopped = c.waitForEvent('stopped');
    await launch(c, join(work, 'alternatives.jsonl'));
    await stopped;
    await assert.rejects(c.customRequest('chooseAlternative', { index: 0 }), /ask for alternatives at this pause first/);
    stopped = c.waitForEvent('stopped');
    await c.continueRequest({ threadId: 1 });
    await stopped;
    const r = await c.customRequest('alternatives', { k: 2 });
    const alternatives = r.body.alternatives as { text: string; nll: number | null }[];
    assert.deepEqual(
      alternatives.map(a => a.text),
      ['Q3: [EOQ]\nAns: 18 dollars', 'Q3: [EOQ]\nAns: 18'],
    );
    assert.ok(alternatives[0].nll! < alternatives[1].nll!);
    const before = server.requests.length;
    const ended = c.waitForEvent('art/end');
    await c.customRequest('chooseAlternative', { index: 0 });
    const end = await ended;
    assert.equal(end.body.answer, '18 dollars');
    assert.equal(server.requests.length, before, 'the chosen alternative is not asked for again');
    await c.close();
  });

  test('replay mode: a step back to a pause after the edit, or to the pause of the edit (the edit kept), stays live; back before it, the recording answers again', async () => {
    server.reset();
    server.setScripts(DUCKS_SCRIPT, CODEGEN_SCRIPT);
    const c = await ArtDebugClient.start({ cwd: work });
    const tracePath = join(work, 'rejoin.jsonl');
    const toStop = async (send: () => Promise<unknown>) => {
      const stopped = c.waitForEvent('stopped');
      await send();
      return (await stopped) as DebugProtocol.StoppedEvent;
    };
    await toStop(() =>
      c.launchWith({
        program: PROGRAM,
        task: DUCKS,
        mode: 'replay',
        baseURL: server.baseURL,
        model: 'scripted',
        pauseBeforeTool: true,
        trace: tracePath,
      }),
    );
    // Before [generate python code]: edit its input. The replay departs here.
    const ref = await c.scopeReference('Tool call');
    await c.setVariableRequest({ variablesReference: ref, name: 'input', value: 'Write the equations as python code, the answer in ans' });
    await toStop(() => c.continueRequest({ threadId: 1 })); // after it: the code generator asked the live model
    assert.equal(server.requests.length, 1, "the code generator's own request went to the endpoint");
    const beforeExec = await toStop(() => c.continueRequest({ threadId: 1 }));
    assert.match(beforeExec.body.description ?? '', /before tool \[code execute\]/);
    assert.equal(server.requests.length, 2, 'the next step was written live');

    // Back to the pause after the edit: still live (the step is asked of the endpoint again).
    await toStop(() => c.stepBackRequest({ threadId: 1 }));
    assert.equal((await c.variables('Tool call')).tool, 'generate python code');
    await toStop(() => c.continueRequest({ threadId: 1 }));
    assert.equal(server.requests.length, 3, 'after the edit the run stays live');

    // Back to the edit's own pause: the edit is kept there (and said), so the run stays live.
    await toStop(() => c.stepBackRequest({ threadId: 1 }));
    const atEdit = await toStop(() => c.stepBackRequest({ threadId: 1 }));
    assert.match(atEdit.body.description ?? '', /before tool \[generate python code\]/);
    assert.equal((await c.variables('Tool call')).input, 'Write the equations as python code, the answer in ans', 'the edit is kept');
    assert.match(c.output('console'), /Back at Q1 \[generate python code\]: the input edited at this stop is kept/);
    assert.doesNotMatch(c.output('console'), /Back before the change/);
    // Once more, before the edit: the recording answers again, the endpoint sees nothing.
    const atEntry = await toStop(() => c.stepBackRequest({ threadId: 1 }));
    assert.equal(atEntry.body.reason, 'entry');
    const original = await toStop(() => c.continueRequest({ threadId: 1 }));
    assert.match(original.body.description ?? '', /before tool \[generate python code\]/);
    assert.match((await c.variables('Tool call')).input, /^Write down the arithmetic or algebra equations/, 'the edit is undone');
    let stops = 0;
    for (;;) {
      const ended = c.waitForEvent('art/end');
      const stopped = c.waitForEvent('stopped');
      await c.continueRequest({ threadId: 1 });
      const next = await Promise.race([ended.then(e => ({ end: e })), stopped.then(() => ({ end: undefined }))]);
      if (next.end) {
        assert.equal(next.end.body.reason, 'finished', next.end.body.error);
        assert.equal(next.end.body.answer, '18');
        break;
      }
      assert.ok(++stops < 6, 'the run ends');
    }
    assert.equal(server.requests.length, 3, 'the recording wrote the rest: 0 model requests');
    assert.match(
      c.output('console'),
      /Back before the change that left the recording \(the input of \[generate python code\] was edited\): the run follows its recording again/,
    );
    const { records } = readTraceFile(tracePath);
    assert.deepEqual(
      records.filter(r => r.t === 'live' || r.t === 'rejoin').map(r => r.t),
      ['live', 'rejoin'],
    );
    await c.close();
  });
});
