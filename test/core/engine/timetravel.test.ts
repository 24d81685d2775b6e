// Time travel in the runner: checkpoints at every pause (step back, reverse continue, restart frame) restore the
// run exactly and keep the future they leave as a trace branch; a re-run answered from a trace pays only from the
// first changed request; alternatives at a step are ranked by the endpoint's logprobs and one is continued with.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CachedModel } from '../../../core/replay/cachedModel';
import { OpenAIModel } from '../../../core/model/openai';
import { ReplayModel } from '../../../core/replay/programReplay';
import { ContinuationScript } from '../../../core/replay/script';
import { createArtRunner } from '../../../core/launch/create';
import { MemoryTrace, mainLine } from '../../../core/trace/trace';
import { cacheEntries } from '../../../core/replay/cachedModel';
import type { Runner } from '../../../core/engine/runner';
import { rankAlternatives } from '../../../core/engine/alternatives';
import type { PauseInfo } from '../../../core/engine/types';
import type { ToolLookup } from '../../../core/protocols/types';
import type { TraceRecord } from '../../../core/trace/schema';
import type { RunnerOptions } from '../../../core/engine/runnerOptions';
import type { Tool } from '../../../core/tools/types';
import { prng } from '../../support/random';
import { ScriptedServer } from '../../support/scriptedServer';
import { countingLibrary } from '../../support/runs';

const LIBRARY = countingLibrary();

const SCRIPT = ContinuationScript.parse(
  ' [add one] add one to the input\n#⟂1:⟦ 4⟧\nQ2: [add one] add one to #1\n#⟂2:⟦ 5⟧\nQ3: [add one] add one to #2\n#⟂3:⟦ 6⟧\nQ4: [add one] add one to #3\n#⟂4:⟦ 7⟧\nQ5: [EOQ]\nAns: 7\n----\nDescription: (Other)',
  'Q1:',
);

const addOne: Tool = {
  info: { name: 'add one', description: 'adds one to the previous answer', input: 'text', origin: 'user' },
  run: async input => ({ ok: true, output: String(Number(input.previousAnswer ?? '3') + 1) }),
};
const TOOLS: ToolLookup = { get: name => (name.trim().toLowerCase() === 'add one' ? addOne : undefined) };

function runner(opts: Partial<RunnerOptions> & { trace: MemoryTrace }): Runner {
  const model = opts.model ?? ReplayModel.fromArtProgram(LIBRARY, 0, n => TOOLS.get(n) !== undefined);
  return createArtRunner({ library: LIBRARY, program: 0 }, { tools: TOOLS, ...opts, model });
}

/** The records of the main line as they compare between runs: no times, no durations. */
function comparable(records: TraceRecord[]): unknown[] {
  return mainLine(records).map(r => {
    const { at: _at, ...rest } = r as TraceRecord & { call?: { durationMs?: number } };
    if (rest.call) rest.call = { ...rest.call, durationMs: undefined };
    return rest;
  });
}

describe('runner time travel: checkpoints', () => {
  test('step back then forward with the same outputs: the same program and main-line trace as never stepping back (property)', async () => {
    for (let seed = 1; seed <= 30; seed++) {
      const rnd = prng(seed);
      const options = { pauseBeforeTool: rnd() < 0.5, stopOnEntry: rnd() < 0.3, breakpoints: { steps: rnd() < 0.5 ? [2] : [3] } };
      const baseTrace = new MemoryTrace();
      const base = runner({ ...options, trace: baseTrace });
      base.on('paused', () => base.continue());
      const expected = await base.run();
      assert.equal(expected.reason, 'finished');

      const trace = new MemoryTrace();
      const r = runner({ ...options, trace });
      let rewinds = 0;
      const actions: string[] = [];
      r.on('paused', (p: PauseInfo) => {
        const cps = r.checkpointList();
        assert.equal(cps[cps.length - 1].textLength, p.snapshot.text.length, 'the current pause is the last checkpoint');
        const x = rnd();
        if (rewinds < 6 && cps.length > 1 && x < 0.6) {
          rewinds++;
          if (x < 0.3) {
            actions.push('stepBack');
            r.stepBack();
          } else if (x < 0.45) {
            actions.push('reverseContinue');
            r.reverseContinue();
          } else {
            const to = cps[Math.floor(rnd() * cps.length)];
            actions.push(`restartFrame(${to.step})`);
            r.restartFrame(to.step);
          }
        } else r.continue();
      });
      const result = await r.run();
      const why = `seed ${seed}: ${actions.join(', ')}`;
      assert.equal(result.reason, 'finished', why);
      assert.equal(result.snapshot.text, expected.snapshot.text, why);
      assert.deepEqual(comparable(trace.records), comparable(baseTrace.records), why);
      assert.equal(trace.records.filter(x => x.t === 'branch').length, rewinds, why);
    }
  });

  test('step back restores the text and the calls; an override there changes what follows, and the left future is a branch', async () => {
    const trace = new MemoryTrace();
    const r = runner({ trace });
    let pauses = 0;
    const texts: string[] = [];
    r.on('paused', p => {
      pauses++;
      texts.push(p.snapshot.text);
      if (pauses === 2) {
        assert.equal(p.call?.step, 2);
        r.stepBack();
      } else if (pauses === 3) {
        assert.equal(p.call?.step, 1, 'back at the first call');
        assert.equal(p.snapshot.text, texts[0], 'the text of the first pause');
        assert.equal(p.snapshot.calls.length, 1, 'the second call is gone');
        r.setToolOutput('40');
        r.continue();
      } else r.continue();
    });
    const result = await r.run();
    assert.equal(result.reason, 'finished');
    assert.match(result.snapshot.text, /#1: 40\n.*\n#2: 41\n.*\n#3: 42\n.*\n#4: 43\n/s);
    const branch = trace.records.find(x => x.t === 'branch');
    assert.ok(branch && branch.t === 'branch' && branch.why === 'step-back' && branch.from !== undefined && branch.to !== undefined);
    const left = trace.records.slice(branch.from, branch.to);
    assert.ok(
      left.some(x => x.t === 'tool' && x.call.step === 1 && x.call.output === '4'),
      'the future left holds the first call as it was appended',
    );
    assert.ok(!mainLine(trace.records).some(x => x.t === 'tool' && x.call.output === '5'), 'the main line has no trace of it');
  });

  test('an output set at a stop is kept when the run steps back to that stop: the run goes on from it, and rewound says so', async () => {
    const trace = new MemoryTrace();
    const r = runner({ trace });
    let pauses = 0;
    const kept: (string | undefined)[] = [];
    r.on('rewound', e => kept.push(e.kept));
    r.on('paused', p => {
      pauses++;
      if (pauses === 1) {
        assert.equal(p.call?.step, 1);
        r.setToolOutput('40');
        r.continue();
      } else if (pauses === 2) {
        assert.equal(p.call?.output, '41', 'the run went on from the override');
        r.stepBack();
      } else if (pauses === 3) {
        assert.equal(p.call?.step, 1, 'back at the stop of the override');
        assert.equal(p.call?.override, '40', 'the override made at this stop is kept');
        assert.equal(p.call?.output, '4', "the tool's own output beside it");
        assert.equal(r.textOnResume().match(/#1: (\d+)/)?.[1], '40', 'the model goes on from the override');
        r.continue();
      } else r.continue();
    });
    const result = await r.run();
    assert.equal(result.reason, 'finished', result.error);
    assert.match(result.snapshot.text, /#1: 40\n.*\n#2: 41\n.*\n#3: 42\n.*\n#4: 43\n/s);
    assert.equal(kept.length, 1);
    assert.match(kept[0] ?? '', /the output set at this stop is kept \("40"; the tool gave "4"\)/);
  });

  test('an input edited before a tool and a skipped tool are kept at their stop; stepping back before that stop undoes them', async () => {
    const trace = new MemoryTrace();
    const r = runner({ trace, pauseBeforeTool: true, pauseAfterTool: false, stopOnEntry: true });
    const seen: string[] = [];
    let pauses = 0;
    r.on('paused', p => {
      pauses++;
      const c = p.call;
      seen.push(`${p.reason}:${c?.step ?? '-'}:${c?.input ?? ''}:${c?.skipped ? 'skipped' : ''}`);
      if (pauses === 2) {
        r.setToolInput('add one to 9');
        r.continue();
      } else if (pauses === 3) {
        r.skipTool();
        r.continue();
      } else if (pauses === 4) r.stepBack();
      else if (pauses === 5) {
        assert.equal(c?.step, 2);
        assert.ok(c?.skipped, 'the skip made at this stop is kept');
        r.stepBack();
      } else if (pauses === 6) {
        assert.equal(c?.step, 1);
        assert.equal(c?.input, 'add one to 9', 'the input edited at this stop is kept');
        assert.ok(r.textOnResume().includes('Q1: [add one] add one to 9\n'), 'and the program text shows it');
        r.stepBack();
      } else if (pauses === 7) {
        assert.equal(p.reason, 'entry', 'before the stop of the edit');
        r.continue();
      } else if (pauses === 8) {
        assert.equal(c?.step, 1);
        assert.equal(c?.input, 'add one to the input', 'back before the stop of the edit: undone');
        assert.ok(!c?.inputEdited);
        r.continue();
      } else if (pauses === 9) {
        assert.equal(c?.step, 2);
        assert.ok(!c?.skipped, 'and the skip, made later, too');
        r.continue();
      } else r.continue();
    });
    const result = await r.run();
    assert.equal(result.reason, 'finished', `${result.error}: ${seen.join(' | ')}`);
    assert.ok(pauses >= 9, seen.join(' | '));
  });

  test('restartFrame goes back to the first pause of a step; stepping back from the start says why it cannot', async () => {
    const trace = new MemoryTrace();
    const r = runner({ trace, stopOnEntry: true });
    let pauses = 0;
    r.on('paused', p => {
      pauses++;
      if (pauses === 1) {
        assert.equal(p.reason, 'entry');
        assert.throws(() => r.stepBack(), /at its start/);
        r.continue();
      } else if (pauses === 4) {
        assert.equal(p.call?.step, 3);
        assert.throws(() => r.restartFrame(9), /did not pause at step 9/);
        r.restartFrame(2);
      } else if (pauses === 5) {
        assert.equal(p.call?.step, 2);
        r.reverseContinue();
      } else if (pauses === 6) {
        assert.equal(p.reason, 'entry', 'no breakpoint before: back to the start');
        r.continue();
      } else r.continue();
    });
    assert.equal((await r.run()).reason, 'finished');
    assert.deepEqual(
      trace.records.flatMap(x => (x.t === 'branch' ? [x.why] : [])),
      ['restart-frame', 'reverse-continue'],
    );
  });
});

describe('runner time travel: over HTTP', () => {
  const server = new ScriptedServer();
  before(() => server.start());
  after(() => ScriptedServer.closeAll());

  test('a re-run answered from the trace: edit the output at step 2, and only the requests after it reach the endpoint', async () => {
    server.reset();
    server.setScripts(SCRIPT);
    const model = () => new OpenAIModel({ baseURL: server.baseURL, model: 'scripted', apiKey: 'k' });
    const first = new MemoryTrace();
    const r1 = runner({ trace: first, model: model(), pauseAfterTool: false });
    assert.equal((await r1.run()).answer, '7');
    const sent = server.requests.length;
    assert.equal(sent, 5, 'one request per step');

    server.reset();
    const cache = new CachedModel(model(), cacheEntries(first.records));
    const second = new MemoryTrace();
    const r2 = runner({ trace: second, model: cache });
    r2.on('paused', p => {
      if (p.call?.step === 2) r2.setToolOutput('50');
      r2.continue();
    });
    const result = await r2.run();
    assert.equal(result.reason, 'finished', result.error);
    assert.equal(cache.hits, 2, 'the requests that wrote steps 1 and 2 came from the trace');
    assert.equal(server.requests.length, 3);
    for (const q of server.requests) assert.ok(q.prompt.includes('#2: 50'), 'every request the endpoint saw follows the edit');
    const completions = second.records.filter(x => x.t === 'completion');
    assert.deepEqual(
      completions.map(c => c.t === 'completion' && !!c.cached),
      [true, true, false, false, false],
    );
    assert.equal(result.snapshot.usage.completionTokens > 0, true);

    // --until 2: only the requests made before step 2 was complete.
    assert.equal(cacheEntries(first.records, 2).length, 2);
    assert.equal(cacheEntries(first.records, 1).length, 1);
  });

  test('alternatives at a step: k samples in one request, ranked by NLL; the chosen one is continued, the others are branches', async () => {
    server.reset();
    const ends = ContinuationScript.parse(
      ' [add one] add one to the input\n#⟂1:⟦ 4⟧\nQ2: [add one] add one to #1\n#⟂2:⟦ 5⟧\nQ3: [EOQ]\nAns: 5\n----\nDescription: (Other)',
      'Q1:',
    );
    server.setScripts(SCRIPT, ends);
    server.scriptLogprobs.set(SCRIPT, -0.2);
    server.scriptLogprobs.set(ends, -1.5);
    const trace = new MemoryTrace();
    const r = runner({ trace, model: new OpenAIModel({ baseURL: server.baseURL, model: 'scripted', apiKey: 'k' }) });
    let offered: { text: string; nll: number | null; votes: number }[] = [];
    r.on('paused', p => {
      if (p.call?.step !== 2) return r.continue();
      const before = server.requests.length;
      void r.alternatives(3).then(list => {
        offered = list;
        assert.equal(server.requests.length, before + 1, 'one request with n = 3');
        assert.equal(server.requests.at(-1)!.body.n, 3);
        r.chooseAlternative(1);
      });
    });
    const result = await r.run();
    assert.equal(offered.length, 2, 'identical samples are one alternative');
    assert.equal(offered[0].text, 'Q3: [add one] add one to #2');
    assert.equal(offered[0].votes, 2);
    assert.ok(Math.abs(offered[0].nll! - 0.2) < 1e-9 && Math.abs(offered[1].nll! - 1.5) < 1e-9);
    assert.equal(result.answer, '5', 'the run went on with the chosen alternative');
    const branches = trace.records.filter(x => x.t === 'branch');
    assert.deepEqual(
      branches.map(b => b.t === 'branch' && [b.why, b.text]),
      [['alternative', 'Q3: [add one] add one to #2']],
    );
    const forced = trace.records.find(x => x.t === 'request' && x.alternative === 1);
    assert.ok(forced, 'the chosen alternative is the next request of the trace, not sent again');
  });

  test('ranking without logprobs is by vote', () => {
    assert.deepEqual(
      rankAlternatives([{ text: 'a' }, { text: 'b' }, { text: 'b' }]).map(a => [a.text, a.votes, a.nll]),
      [
        ['b', 2, null],
        ['a', 1, null],
      ],
    );
  });
});
