// Agent specs and MultiTool-CoT triggers through the Runner, over real HTTP: ReACT from its spec with the real
// Search/Lookup over a small corpus, a decoding-monitor correction, and a `<<Calculator>>` trigger.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { compileAgent } from '../../../core/agent/compile';
import { highlightOf } from '../../../core/agent/diagram';
import { parseAgentFile } from '../../../core/agent/parse';
import { OpenAIModel } from '../../../core/model/openai';
import { ContinuationScript } from '../../../core/replay/script';
import { createAgentRunner, createMultiToolRunner } from '../../../core/launch/create';
import { MemoryTrace } from '../../../core/trace/trace';
import { replayTrace } from '../../../core/replay/traceReplay';
import { failingTool, fixturePath, record, runContinuing, runWithoutPauses, scriptedSuite } from '../../support/runs';

const react = compileAgent(parseAgentFile(readFileSync(fixturePath('agents/react.agent'), 'utf8')).agents[0]);
const QUESTION = 'Musician and satirist Allie Goertz wrote a song about the "The Simpsons" character Milhouse, who Matt Groening named after who?';
const HEADER = `[Question] ${QUESTION}\n`;

const THOUGHT_1 =
  '[Thought] The question simplifies to "The Simpsons" character Milhouse is named after who. I only need to search Milhouse and find who it is named after.\n';
const REST =
  '[Observation]⟂⟦ Milhouse Mussolini Van Houten is a recurring character.⟧\n' +
  '[Thought] The paragraph does not tell who Milhouse is named after, maybe I can look up "named after".\n' +
  '[Action] Lookup\n' +
  '[Action Input] named after\n' +
  '[Observation]⟂⟦ (Result 1 / 1) Milhouse was named after Richard Nixon.⟧\n' +
  '[Final Thought] Milhouse was named after U.S. president Richard Nixon, so the answer is Richard Nixon.\n' +
  '[Answer] Richard Nixon\n' +
  '[Question] and the model would go on with another question';

/** The ReACT trace of the paper, as the model writes it (observations are what it would make up). */
const REACT_SCRIPT = ContinuationScript.parse(THOUGHT_1 + '[Action] Search\n[Action Input] Milhouse\n' + REST, HEADER);
/** The same model skipping `[Action]`: off-spec. */
const OFF_SPEC_SCRIPT = ContinuationScript.parse(THOUGHT_1 + '[Action Input] Milhouse\n' + REST, HEADER);

// Bounded: a run that hangs fails the suite (and its `after` still closes the server) instead of the whole unit run.
describe('agent specs and inline triggers against the scripted server', { timeout: 120_000 }, () => {
  const { server, tools } = scriptedSuite({ resetEachTest: true });
  const model = (honoursStop = true) => new OpenAIModel({ baseURL: server.baseURL, model: 'scripted', honoursStop });

  for (const honoursStop of [true, false]) {
    test(`ReACT from its spec: Search and Lookup over the local corpus (${honoursStop ? 'stop sequences' : 'abort'})`, async t => {
      server.setScripts(REACT_SCRIPT);
      server.honourStop = honoursStop;
      server.callPauseMs = honoursStop ? 0 : 1000;
      const trace = new MemoryTrace();
      const r = createAgentRunner({ agent: react, question: QUESTION }, { model: model(honoursStop), tools, pauseAfterTool: false, trace });
      const events = record(r);
      const result = await runWithoutPauses(r, t.signal);
      await server.settled();
      assert.equal(result.reason, 'finished', result.error);
      assert.equal(result.answer, 'Richard Nixon');
      const calls = result.snapshot.calls.map(c => [c.tool, c.input, c.state]);
      assert.deepEqual(calls, [
        ['Search', 'Milhouse', 'Obs'],
        ['Lookup', 'named after', 'Obs'],
      ]);
      // The observations are the real tools' outputs over the corpus, not what the model would have made up.
      assert.match(result.snapshot.calls[0].output!, /^Milhouse Mussolini Van Houten is a recurring character in the Fox animated television series/);
      assert.equal(
        result.snapshot.calls[1].output,
        '(Result 1 / 1) Milhouse was named after U.S. president Richard Nixon, whose middle name was Milhous.',
      );
      assert.match(result.snapshot.text, /\[Action Input\] named after\n\[Observation\] \(Result 1 \/ 1\) Milhouse was named after U\.S\. president/);
      assert.ok(result.snapshot.text.endsWith('[Answer] Richard Nixon'), 'nothing after the answer');
      assert.deepEqual(
        result.snapshot.steps.map(s => s.label),
        ['Ques', 'Tht', 'Act', 'Act-Inp', 'Obs', 'Tht', 'Act', 'Act-Inp', 'Obs', 'Final-Tht', 'Ans'],
      );
      if (honoursStop) {
        assert.deepEqual(server.requests[0].stop, ['[Observation]', '\n[Question]']);
        assert.equal(server.tokensAfterCall, 0);
      } else {
        for (const q of server.requests) assert.ok(q.tokensAfterCall <= 1, `${q.tokensAfterCall} tokens past a call`);
      }
      assert.equal(events.filter(e => e.name === 'correction').length, 0, 'an on-spec run needs no correction');
      // The agent run replays from its trace too.
      const replay = await replayTrace(trace.records);
      assert.equal(replay.result.snapshot.text, result.snapshot.text);
      assert.deepEqual(replay.mismatches, []);
    });
  }

  test('the monitor corrects off-spec text, visibly: an event, the trace, and the next request', async t => {
    server.setScripts(OFF_SPEC_SCRIPT, REACT_SCRIPT);
    const trace = new MemoryTrace();
    const r = createAgentRunner({ agent: react, question: QUESTION }, { model: model(), tools, pauseAfterTool: false, trace });
    const corrections: any[] = [];
    r.on('correction', c => corrections.push(c));
    const result = await runWithoutPauses(r, t.signal);
    assert.equal(result.reason, 'finished', result.error);
    assert.equal(corrections.length, 1);
    assert.equal(corrections[0].found, 'Act-Inp');
    assert.deepEqual(corrections[0].expected, ['Act']);
    assert.equal(corrections[0].inserted, '[Action]');
    assert.match(corrections[0].removed, /^\[Action Input\]/, 'the off-spec text received before the stream was stopped');
    assert.equal(corrections[0].offset, HEADER.length + THOUGHT_1.length);
    // The request after the correction continues the corrected text.
    assert.ok(server.requests[1].prompt.endsWith(`${THOUGHT_1}[Action]`));
    assert.ok(trace.records.some(x => x.t === 'correction' && x.inserted === '[Action]'));
    assert.deepEqual(
      result.snapshot.calls.map(c => c.tool),
      ['Search', 'Lookup'],
    );
    assert.equal(result.answer, 'Richard Nixon');
    // The snapshot keeps it, and the diagram marks the transition it made the run take: Tht to Act.
    assert.deepEqual(result.snapshot.monitorCorrections, [
      { offset: corrections[0].offset, found: 'Act-Inp', expected: ['Act'], removed: corrections[0].removed, inserted: '[Action]' },
    ]);
    const h = highlightOf(react, result.snapshot.text, result.snapshot.monitorCorrections);
    assert.deepEqual(
      h.corrections?.map(c => [c.from, c.to]),
      [['Tht', 'Act']],
    );
    assert.match(
      h.corrections![0].title,
      /^Monitor correction: after Tht the model wrote the state Act-Inp; the spec allows Act, so "\[Action\]" was inserted$/,
    );
    // Replaying the trace makes the same correction.
    const replay = await replayTrace(trace.records);
    assert.equal(replay.result.snapshot.text, result.snapshot.text);
    assert.deepEqual(replay.mismatches, []);
  });

  test('pausing at every state with step()', async () => {
    server.setScripts(REACT_SCRIPT);
    const r = createAgentRunner(
      { agent: react, question: QUESTION },
      { model: model(), tools, pauseAfterTool: false, stopOnEntry: true, breakpoints: { states: ['Final-Tht'] } },
    );
    const pauses: string[] = [];
    r.on('paused', ({ reason, snapshot }) => {
      pauses.push(`${reason}:${snapshot.agentState?.current}`);
      if (pauses.length < 3) r.step();
      else r.continue();
    });
    const result = await r.run();
    assert.equal(result.reason, 'finished', result.error);
    assert.deepEqual(pauses, ['entry:Ques', 'step:Tht', 'step:Act', 'breakpoint:Final-Tht']);
    assert.equal(result.answer, 'Richard Nixon');
  });

  const MULTITOOL_PROMPT =
    'Answer with a chain of thought. Use <<Calculator>> after an expression to compute it.\n\n' +
    'Q: A crate holds 12 bottles of 0.75 l. How many litres is that?\n' +
    'A: The crate holds 12 × 0.75 <<Calculator>> 9 litres. So the answer is 9.\n\n' +
    'Q: Tom buys 7 boxes of 24 pencils and gives away 15. How many pencils are left?\nA:';
  const MULTITOOL_SCRIPT = ContinuationScript.parse(
    ' Tom has 7 × 24 <<Calculator>>⟦ 170⟧ pencils. After giving away 15 he has 168 - 15 <<Calculator>>⟦ 150⟧ pencils. So the answer is 153.\n\nQ: Another question',
    'pencils are left?\nA:',
  );

  for (const honoursStop of [true, false]) {
    test(`MultiTool-CoT: <<Calculator>> triggers, the text before them is the input (${honoursStop ? 'stop' : 'abort'})`, async t => {
      server.setScripts(MULTITOOL_SCRIPT);
      server.honourStop = honoursStop;
      server.callPauseMs = honoursStop ? 0 : 1000;
      const r = createMultiToolRunner(
        { prompt: MULTITOOL_PROMPT, endMarkers: ['\n\nQ:'] },
        { model: model(honoursStop), tools, pauseAfterTool: false },
      );
      const result = await runWithoutPauses(r, t.signal);
      await server.settled();
      assert.equal(result.reason, 'finished', result.error);
      assert.deepEqual(
        result.snapshot.calls.map(c => [c.tool, c.input, c.output]),
        [
          ['Calculator', 'Tom has 7 × 24', '168'],
          ['Calculator', 'After giving away 15 he has 168 - 15', '153'],
        ],
      );
      // The outputs are the calculator's, written right after the triggers (not the model's wrong numbers).
      assert.equal(result.answer, '153', 'the answer as the chain states it');
      assert.equal(
        result.snapshot.text,
        ' Tom has 7 × 24 <<Calculator>> 168 pencils. After giving away 15 he has 168 - 15 <<Calculator>> 153 pencils. So the answer is 153.',
      );
      if (honoursStop) assert.equal(server.tokensAfterCall, 0);
      else for (const q of server.requests) assert.ok(q.tokensAfterCall <= 1, `${q.tokensAfterCall} tokens past a call`);
      assert.deepEqual(
        result.snapshot.steps.map(s => [s.label, s.text, s.answer]),
        [
          ['<<Calculator>>', 'Tom has 7 × 24', '168 pencils. After giving away 15 he has 168 - 15 <<Calculator>> 153 pencils. So the answer is 153.'],
          ['<<Calculator>>', 'After giving away 15 he has 168 - 15', '153 pencils. So the answer is 153.'],
        ],
      );
    });
  }

  test('MultiTool-CoT fallback: a failing tool is shown, then the model writes the output', async () => {
    server.setScripts(MULTITOOL_SCRIPT);
    const failing = failingTool(tools, 'calculator', 'calculator offline');
    const r = createMultiToolRunner({ prompt: MULTITOOL_PROMPT, endMarkers: ['\n\nQ:'] }, { model: model(), tools: failing, pauseAfterTool: false });
    const { result, pauses: errors } = await runContinuing(r);
    assert.equal(result.reason, 'finished', result.error);
    assert.deepEqual(errors, ['tool-error:calculator offline', 'tool-error:calculator offline']);
    assert.ok(result.snapshot.calls.every(c => c.fallback));
    assert.match(result.snapshot.text, /<<Calculator>> 170 pencils/, 'the model wrote its own output');
  });
});
