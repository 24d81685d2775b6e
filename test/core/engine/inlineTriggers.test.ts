// Inline `<<Tool>>` triggers inside the answers the model writes in an ART program (the run option inlineTriggers),
// over real HTTP (scripted server + the real `openai` client) and the real calculator: off by default (the trigger
// stays text the model goes on writing), on: the request ends at the trigger, the tool runs and its output is
// written after it, within the same answer; a failing tool leaves the output to the model.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseArt } from '../../../core/art/parse';
import { checkArt } from '../../../core/art/check';
import { OpenAIModel } from '../../../core/model/openai';
import { ContinuationScript } from '../../../core/replay/script';
import { ART_STOPS, ART_TRIGGER_STOPS } from '../../../core/protocols/artProtocol';
import { createArtRunner } from '../../../core/launch/create';
import { MemoryTrace } from '../../../core/trace/trace';
import { replayTrace } from '../../../core/replay/traceReplay';
import type { RunnerOptions } from '../../../core/engine/runnerOptions';
import { failingTool, fixturePath, runContinuing, runWithoutPauses, scriptedSuite } from '../../support/runs';

const LIBRARY = parseArt(readFileSync(fixturePath('programs/inline-triggers.art'), 'utf8'));
/** The program run: Ana's pens (3 * 4 = 12, change 8). */
const ANA = 1;
const QUERY = ' [think step-by-step] Work out what the pens cost, then the change.\n';

/** What the model writes after `Q1:`; `⟦...⟧` are the numbers it would make up after each trigger (wrong on purpose). */
const SCRIPT = ContinuationScript.parse(
  QUERY +
    '#1: The pens cost 3 * 4 <<Calculator>>⟦ 13⟧ dollars. The change is 20 - 12 <<Calculator>>⟦ 9⟧ dollars.\n' +
    'Q2: [EOQ]\nAns: 8\n----\nDescription: (Another task) the model goes on with another program',
  'Q1:',
);

/** An answer with a `>>` that closes no trigger and a line that starts with `#` (both end a request at a stop). */
const AMBIGUOUS_SCRIPT = ContinuationScript.parse(
  QUERY +
    '#1: The pens cost 3 * 4 <<Calculator>>⟦ 13⟧ dollars; in Python 12 >> 1 is 6.\n' +
    '# a line the model starts with a hash\n' +
    'The change is 20 - 12 <<Calculator>>⟦ 9⟧ dollars.\n' +
    'Q2: [EOQ]\nAns: 8\n----\nDescription: (Another task) the model goes on with another program',
  'Q1:',
);

const ANSWER_WITH_TOOLS = '#1: The pens cost 3 * 4 <<Calculator>> 12 dollars. The change is 20 - 12 <<Calculator>> 8 dollars.';

describe('inline triggers inside ART answers against the scripted server', { timeout: 120_000 }, () => {
  const { server, tools } = scriptedSuite({ resetEachTest: true });
  const model = (honoursStop = true) =>
    new OpenAIModel({ baseURL: server.baseURL, model: 'scripted', honoursStop, retry: { initialDelayMs: 5, maxDelayMs: 50 } });
  const runner = (inlineTriggers: boolean | undefined, opts: Partial<RunnerOptions> = {}) =>
    createArtRunner({ library: LIBRARY, program: ANA, inlineTriggers }, { model: model(), tools, pauseAfterTool: false, ...opts });

  test('off by default: the trigger stays text, no tool runs, the model writes the numbers', async t => {
    server.setScripts(SCRIPT);
    const trace = new MemoryTrace();
    const result = await runWithoutPauses(runner(undefined, { trace }), t.signal);
    assert.equal(result.reason, 'finished', result.error);
    assert.deepEqual(result.snapshot.calls, []);
    assert.match(result.snapshot.text, /\n#1: The pens cost 3 \* 4 <<Calculator>> 13 dollars\. The change is 20 - 12 <<Calculator>> 9 dollars\.\n/);
    for (const q of server.requests) assert.deepEqual(q.stop, ART_STOPS);
    assert.equal(server.requests.length, 2, 'one request to the query, one for the answer and the rest');
    const run = trace.records.find(r => r.t === 'run')!;
    assert.deepEqual(run.t === 'run' && run.config, {});
  });

  for (const honoursStop of [true, false]) {
    test(`on: each trigger is a call, its output is written after it and the answer goes on (${honoursStop ? 'stop sequences' : 'abort'})`, async t => {
      server.setScripts(SCRIPT);
      server.honourStop = honoursStop;
      server.callPauseMs = honoursStop ? 0 : 1000;
      const trace = new MemoryTrace();
      const r = createArtRunner(
        { library: LIBRARY, program: ANA, inlineTriggers: true },
        { model: model(honoursStop), tools, pauseAfterTool: false, trace },
      );
      const result = await runWithoutPauses(r, t.signal);
      await server.settled();
      assert.equal(result.reason, 'finished', result.error);
      assert.equal(result.answer, '8');
      assert.deepEqual(
        result.snapshot.calls.map(c => [c.tool, c.input, c.output, c.step, c.inline]),
        [
          ['Calculator', 'The pens cost 3 * 4', '12', 1, true],
          ['Calculator', 'The change is 20 - 12', '8', 1, true],
        ],
      );
      // The calculator's numbers, not the model's, in the one answer of step 1.
      assert.ok(result.snapshot.text.endsWith(`\nQ1:${QUERY}${ANSWER_WITH_TOOLS}\nQ2: [EOQ]\nAns: 8`), result.snapshot.text);
      assert.deepEqual(
        result.snapshot.steps.map(s => [s.label, s.tool, s.answer]),
        [
          ['Q1', false, ANSWER_WITH_TOOLS.slice(4)],
          ['Q2', false, undefined],
        ],
      );
      if (honoursStop) {
        // The answer's requests end at the trigger's `>>`: not one token past a call.
        assert.deepEqual(
          server.requests.map(q => q.stop),
          [ART_STOPS, ART_TRIGGER_STOPS, ART_TRIGGER_STOPS, ART_TRIGGER_STOPS],
        );
        assert.equal(server.tokensAfterCall, 0);
      } else for (const q of server.requests) assert.ok(q.tokensAfterCall <= 1, `${q.tokensAfterCall} tokens past a call`);
      // The trace records the calls as tool records, and the run's option, so the trace replays as it ran.
      const calls = trace.records.flatMap(x => (x.t === 'tool' ? [x.call] : []));
      assert.deepEqual(
        calls.map(c => [c.tool, c.output, c.appended, c.inline]),
        [
          ['Calculator', '12', '>> 12', true],
          ['Calculator', '8', '>> 8', true],
        ],
      );
      const run = trace.records.find(x => x.t === 'run')!;
      assert.deepEqual(run.t === 'run' && run.config, { inlineTriggers: true });
      const again = await replayTrace(trace.records);
      assert.deepEqual(again.mismatches, []);
      assert.equal(again.result.snapshot.text, result.snapshot.text);
    });
  }

  test('on: the run pauses at the trigger like at a tool call, before the tool (a tool breakpoint) and after it', async () => {
    server.setScripts(SCRIPT);
    const r = runner(true, { pauseAfterTool: true, breakpoints: { tools: ['calculator'] } });
    const pauses: string[] = [];
    r.on('paused', p => {
      pauses.push(`${p.reason}:${p.call?.tool}:${p.call?.output ?? '-'}:${p.step?.label}`);
      if (p.reason === 'breakpoint') assert.ok(r.text.endsWith('3 * 4 <<Calculator') || r.text.endsWith('20 - 12 <<Calculator'), r.text);
      r.continue();
    });
    const result = await r.run();
    assert.equal(result.reason, 'finished', result.error);
    assert.deepEqual(pauses, [
      'breakpoint:Calculator:-:Q1',
      'after-tool:Calculator:12:Q1',
      'breakpoint:Calculator:-:Q1',
      'after-tool:Calculator:8:Q1',
    ]);
  });

  test('on: a step breakpoint holds at its query, not again at the triggers inside its answer', async () => {
    server.setScripts(SCRIPT);
    const r = runner(true, { breakpoints: { steps: [1] } });
    const pauses: string[] = [];
    r.on('paused', p => {
      pauses.push(`${p.reason}:${p.call?.tool ?? '-'}`);
      r.continue();
    });
    const result = await r.run();
    assert.equal(result.reason, 'finished', result.error);
    assert.deepEqual(pauses, ['breakpoint:-']);
    assert.equal(result.snapshot.calls.length, 2);
  });

  test('on, the tool fails: the failure is shown, then the model writes the output after `>>`', async () => {
    server.setScripts(SCRIPT);
    const failing = failingTool(tools, 'calculator', 'calculator offline');
    const r = runner(true, { tools: failing });
    const { result, pauses: errors } = await runContinuing(r);
    assert.equal(result.reason, 'finished', result.error);
    assert.deepEqual(errors, ['tool-error:calculator offline', 'tool-error:calculator offline']);
    assert.ok(result.snapshot.calls.every(c => c.fallback && c.appended === '>>'));
    assert.match(
      result.snapshot.text,
      /<<Calculator>> 13 dollars\. The change is 20 - 12 <<Calculator>> 9 dollars\.\n/,
      'the model wrote its own outputs',
    );
  });

  test('on, a trigger that names no tool: the request ends there, the runner writes `>>` and the model goes on', async t => {
    server.setScripts(SCRIPT);
    const result = await runWithoutPauses(runner(true, { tools: { get: () => undefined } }), t.signal);
    assert.equal(result.reason, 'finished', result.error);
    assert.deepEqual(result.snapshot.calls, []);
    assert.match(result.snapshot.text, /<<Calculator>> 13 dollars\. The change is 20 - 12 <<Calculator>> 9 dollars\.\n/);
    assert.equal(server.requests.length, 4, 'the answer was continued after each trigger');
  });

  test('on: a `>>` that closes no trigger and a line starting with `#` inside the answer are told apart', async t => {
    server.setScripts(AMBIGUOUS_SCRIPT);
    const result = await runWithoutPauses(runner(true), t.signal);
    assert.equal(result.reason, 'finished', result.error);
    assert.deepEqual(
      result.snapshot.calls.map(c => [c.input, c.output]),
      [
        ['The pens cost 3 * 4', '12'],
        ['The change is 20 - 12', '8'],
      ],
    );
    assert.ok(
      result.snapshot.text.endsWith(
        '#1: The pens cost 3 * 4 <<Calculator>> 12 dollars; in Python 12 >> 1 is 6.\n# a line the model starts with a hash\nThe change is 20 - 12 <<Calculator>> 8 dollars.\nQ2: [EOQ]\nAns: 8',
      ),
      result.snapshot.text,
    );
    // The request that stopped where `>>` or `\n#` may have been met is followed by one without `>>`; whatever
    // stops that one is `\n#`.
    const stops = server.requests.map(q => (q.stop.includes('>>') ? '>>' : '#'));
    assert.deepEqual(stops, ['#', '>>', '>>', '#', '>>', '>>']);
  });

  test("the editor's checks do not flag triggers in answers", () => {
    assert.deepEqual(checkArt(LIBRARY), []);
  });
});
