// Self-consistency in the debugger, over stdio against the scripted server: `samples: 3` runs three programs, each a
// DAP thread. The server hands the three scripts out in turn, so the samples write different programs (two answer
// 18, one 32). A sample stops alone (allThreadsStopped false) and stays paused while the others run to their end; the
// Samples scope shows each answer and the vote; the vote is written into every sample's trace.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { ContinuationScript } from '../../core/replay/script';
import { ScriptedServer } from '../support/scriptedServer';
import { until } from '../support/until';
import { DUCKS, fixturePath } from '../support/runs';
import { ArtDebugClient } from './adapter';

const PROGRAM = fixturePath('programs/arithmetic.art');
const ANCHOR = 'How many dollars does he take at the market each day?\nQ1:';
const script = (expression: string, result: string) =>
  ContinuationScript.parse(` [calculator] ${expression}\n#⟂1:⟦ ${result}⟧\nQ2: [EOQ]\nAns: ${result}\n----\nDescription: (Next)`, ANCHOR);

describe('debug adapter over stdio: self-consistency samples as threads', () => {
  const server = new ScriptedServer();
  const work = mkdtempSync(join(tmpdir(), 'art-dap-samples-'));

  before(async () => {
    await server.start();
    server.rotateScripts = true;
    server.setScripts(script('(16 - 3 - 4) * 2', '18'), script('16 * 2', '32'), script('(16 - 7) * 2', '18'));
  });
  after(async () => {
    await ArtDebugClient.closeAll();
    await server.close();
  });

  test('each sample a thread: one stays paused while the others finish; each answer and the vote in Variables and traces', async () => {
    const c = await ArtDebugClient.start({ cwd: work });
    const stops: DebugProtocol.StoppedEvent[] = [];
    const exited: number[] = [];
    c.on('stopped', (e: DebugProtocol.StoppedEvent) => stops.push(e));
    c.on('thread', (e: DebugProtocol.ThreadEvent) => e.body.reason === 'exited' && exited.push(e.body.threadId));
    const ends: DebugProtocol.Event[] = [];
    c.on('art/end', (e: DebugProtocol.Event) => ends.push(e));
    const trace = join(work, 'sc.jsonl');
    await c.launchWith({ program: PROGRAM, task: DUCKS, mode: 'generate', baseURL: server.baseURL, model: 'scripted', samples: 3, trace });

    // Every sample stops after its calculator call, each on its own thread.
    await until(() => stops.length === 3, { what: 'three stops' });
    assert.deepEqual(stops.map(s => s.body.threadId).sort(), [1, 2, 3]);
    for (const s of stops) {
      assert.equal(s.body.allThreadsStopped, false, 'a sample stops alone');
      assert.equal(s.body.reason, 'tool call');
      assert.match(s.body.description ?? '', new RegExp(`^Sample ${s.body.threadId}: Tool call \\[calculator\\] returned`));
    }
    const threads = await c.threadsRequest();
    assert.deepEqual(
      threads.body.threads.map(t => [t.id, t.name]),
      [
        [1, 'Sample 1 · Elementary Math'],
        [2, 'Sample 2 · Elementary Math'],
        [3, 'Sample 3 · Elementary Math'],
      ],
    );
    // Each thread's stack and tool call are its own sample's.
    const inputs = new Set<string>();
    for (const t of [1, 2, 3]) {
      const frames = await c.stackTraceRequest({ threadId: t });
      const scopes = await c.scopesRequest({ frameId: frames.body.stackFrames[0].id });
      assert.deepEqual(
        scopes.body.scopes.map(s => s.name),
        ['Tool call', 'Program', 'Samples'],
      );
      const tool = await c.variablesRequest({ variablesReference: scopes.body.scopes[0].variablesReference });
      inputs.add(tool.body.variables.find(v => v.name === 'input')!.value);
      const source = frames.body.stackFrames[0].source!;
      const text = (await c.sourceRequest({ source, sourceReference: source.sourceReference! })).body.content;
      assert.match(text, /\nQ1: \[calculator\] /);
    }
    assert.deepEqual([...inputs].sort(), ['(16 - 3 - 4) * 2', '(16 - 7) * 2', '16 * 2'], 'three different programs');
    // Show Prompt of a thread: its sample's prompt (the same for every sample) and what that sample wrote.
    const prompts = await Promise.all([1, 2].map(threadId => c.customRequest('art/prompt', { threadId }).then(r => r.body)));
    assert.deepEqual(
      prompts.map(p => p.sample),
      [
        { index: 1, of: 3 },
        { index: 2, of: 3 },
      ],
    );
    assert.equal(prompts[0].prompt, prompts[1].prompt);
    assert.notEqual(prompts[0].generated, prompts[1].generated);

    // Continue samples 2 and 3: they run to their end while sample 1 stays paused.
    await c.continueRequest({ threadId: 2 }).then(r => assert.equal(r.body.allThreadsContinued, false));
    await c.continueRequest({ threadId: 3 });
    await until(() => exited.length === 2, { what: 'samples 2 and 3 ended' });
    assert.deepEqual(exited.sort(), [2, 3]);
    assert.equal(stops.length, 3, 'no other stop');
    assert.equal(ends.length, 0, 'the run ends when every sample has');
    const state = await c.customRequest('art/state', { threadId: 1 });
    assert.equal(state.body.state, 'paused');
    assert.deepEqual(
      (await c.threadsRequest()).body.threads.map(t => t.id),
      [1],
    );

    // Sample 1's Samples scope: the answers of 2 and 3, its own still open, the vote not final.
    const frames = await c.stackTraceRequest({ threadId: 1 });
    const scopes = await c.scopesRequest({ frameId: frames.body.stackFrames[0].id });
    const ref = scopes.body.scopes.find(s => s.name === 'Samples')!.variablesReference;
    const vars = Object.fromEntries((await c.variablesRequest({ variablesReference: ref })).body.variables.map(v => [v.name, v.value]));
    assert.equal(vars['sample 1'], '(paused)');
    const first = stops.find(s => s.body.threadId === 1)!;
    assert.ok(first);
    const answers = [vars['sample 2'], vars['sample 3']].sort();
    assert.ok(['18', '32'].includes(answers[0]) && ['18', '32'].includes(answers[1]), JSON.stringify(vars));
    assert.match(vars.vote, /^(18|32) \(\d of 2 finished, 3 samples; not final\)$/);
    const evaluated = await c.evaluateRequest({ expression: 'vote', frameId: frames.body.stackFrames[0].id });
    assert.equal(evaluated.body.result, vars.vote);

    // Sample 1 goes on: the vote over all three, the end of each sample, then the session's.
    const terminated = c.waitForEvent('terminated');
    await c.continueRequest({ threadId: 1 });
    await terminated;
    assert.deepEqual(
      ends.map(e => e.body.sample),
      [
        { index: 1, of: 3 },
        { index: 2, of: 3 },
        { index: 3, of: 3 },
      ],
    );
    assert.deepEqual(ends.map(e => e.body.answer).sort(), ['18', '18', '32']);
    assert.match(c.output('console'), /\nVote: 18 \(2 of 3 samples\)\n/);

    // Each sample's trace: which sample it is, and the vote at its end.
    for (const k of [1, 2, 3]) {
      const path = join(work, `sc.sample-${k}.jsonl`);
      assert.ok(existsSync(path), path);
      const records = readFileSync(path, 'utf8')
        .trim()
        .split('\n')
        .map(l => JSON.parse(l));
      assert.deepEqual(records[0].sample, { index: k, of: 3 });
      const last = records.at(-1);
      assert.equal(last.t, 'vote');
      assert.equal(last.answer, '18');
      assert.equal(last.agree, 2);
      assert.equal(last.of, 3);
      assert.deepEqual(
        last.samples.map((s: { index: number; trace: string }) => [s.index, s.trace]),
        [1, 2, 3].map(i => [i, join(work, `sc.sample-${i}.jsonl`)]),
      );
      assert.equal(last.samples[k - 1].answer, ends[k - 1].body.answer);
      assert.equal(records.at(-2).t, 'end');
    }
    assert.ok(!existsSync(trace), 'no trace under the name asked for: each sample has its own');
    await c.close();
  });

  test('pause one sample: only its thread stops, the other stays where it was', async () => {
    const c = await ArtDebugClient.start({ cwd: work });
    const stops: DebugProtocol.StoppedEvent[] = [];
    c.on('stopped', (e: DebugProtocol.StoppedEvent) => stops.push(e));
    await c.launchWith({
      program: PROGRAM,
      task: DUCKS,
      mode: 'generate',
      baseURL: server.baseURL,
      model: 'scripted',
      samples: 2,
      stopOnEntry: true,
    });
    await until(() => stops.length === 2, { what: 'both samples stop on entry' });
    assert.ok(stops.every(s => s.body.reason === 'entry' && s.body.allThreadsStopped === false));
    // Thread 2 steps to its tool call; thread 1 does not move.
    await c.nextRequest({ threadId: 2 });
    await until(() => stops.length === 3, { what: 'a stop of thread 2' });
    assert.equal(stops[2].body.threadId, 2);
    assert.equal((await c.customRequest('art/state', { threadId: 1 })).body.text.endsWith('Q1:'), true, 'sample 1 has written nothing');
    // The pause request of a running thread stops that thread only (the model writes slowly: the pause comes first).
    server.tokenDelayMs = 40;
    try {
      await c.continueRequest({ threadId: 1 });
      await c.pauseRequest({ threadId: 1 });
      await until(() => stops.length === 4, { what: 'thread 1 paused' });
    } finally {
      server.tokenDelayMs = 1;
    }
    assert.equal(stops[3].body.threadId, 1);
    assert.equal(stops[3].body.reason, 'pause');
    assert.equal(stops[3].body.allThreadsStopped, false);
    assert.equal((await c.customRequest('art/state', { threadId: 2 })).body.state, 'paused', 'sample 2 stays where it was');
    await c.close();
  });
});
