// The live path against the model zoo (test/support/modelZoo.ts): chat endpoints with real models' habits. A model
// that continues the program in its own way (a wrapper, an echo, <think>, reasoning fields, ignored stops, split
// characters, a length cut) gives the right answer and a program `art check` finds clean with no chat text in it;
// one that does not (a refusal, nothing, the same reply again, a function call) ends within a few requests with a
// reason, never written into the program.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseArt } from '../../../core/art/parse';
import { checkArt } from '../../../core/art/check';
import { OpenAIModel } from '../../../core/model/openai';
import { createArtRunner } from '../../../core/launch/create';
import type { Runner } from '../../../core/engine/runner';
import type { RunResult } from '../../../core/engine/types';
import type { TraceRecord } from '../../../core/trace/schema';
import { createToolRegistry } from '../../../core/tools/registry';
import {
  REFUSAL,
  THOUGHT,
  TURN_MARKER_TAIL,
  ZOO_ANSWER,
  ZOO_LIBRARY,
  ZOO_PROGRAM,
  ZOO_WIDE_ANSWER,
  ZooServer,
  type Habit,
} from '../../support/modelZoo';
import type { ReplyRepair } from '../../../core/model/chatReply';
import { StreamedText } from '../../../core/common/streamedText';

const servers: ZooServer[] = [];
after(() => Promise.all(servers.map(s => s.close())));

interface ZooRun {
  result: RunResult;
  server: ZooServer;
  records: TraceRecord[];
  repairs: ReplyRepair[];
  /** What a terminal or the Debug Console shows (StreamedText over the text events, then all of it at the end). */
  shown: string;
  runner: Runner;
}

async function runZoo(habit: Habit, model: { honoursStop?: boolean } = {}, wire?: 'llama.cpp'): Promise<ZooRun> {
  const server = await new ZooServer(habit, { wire }).start();
  servers.push(server);
  const tools = await createToolRegistry({ workspaceRoot: process.cwd(), trusted: true });
  const records: TraceRecord[] = [];
  const runner = createArtRunner(
    { library: parseArt(ZOO_LIBRARY), program: ZOO_PROGRAM },
    {
      model: new OpenAIModel({ baseURL: server.baseURL, model: 'zoo', api: 'chat', retry: { maxRetries: 0 }, ...model }),
      tools,
      pauseAfterTool: false,
      trace: { write: r => records.push(r) },
    },
  );
  const repairs: ReplyRepair[] = [];
  let shown = '';
  const printed = new StreamedText(t => (shown += t));
  runner.on('repair', ({ repair }) => repairs.push(repair));
  runner.on('text', ({ text }) => printed.update(text));
  const result = await runner.run();
  printed.update(runner.text, true);
  return { result, server, records, repairs, shown, runner };
}

/** The finished program: the right answer, the calculator's output, no error `art check` would report, no chat text. */
function assertClean(z: ZooRun, answer = ZOO_ANSWER): void {
  const { result } = z;
  assert.equal(result.reason, 'finished', `${result.reason}: ${result.error ?? ''}\n${result.snapshot.text}`);
  assert.equal(result.answer, answer);
  const text = result.snapshot.text;
  assert.match(text, /\nQ1: \[calculator\] 3 \+ 7\n#1: 10\nQ2: \[EOQ\]\nAns: /, text);
  assert.doesNotMatch(text, /Sure|```|<\/?think>|sorry|Let me know|----|Count the pencils|\b11\b/, text);
  assert.ok(!text.includes(THOUGHT), 'no reasoning in the program');
  const errors = checkArt(parseArt(text)).filter(d => d.severity === 'error');
  assert.deepEqual(
    errors.map(d => d.message),
    [],
    text,
  );
  // What was shown while streaming is the program: nothing shown was taken back.
  assert.equal(z.shown, text);
  // No later prompt holds reasoning or chat text.
  for (const q of z.server.requests) assert.doesNotMatch(q.prompt, /<think>|Sure!|```/);
  assert.ok(!z.server.requests.some(q => q.prompt.includes(THOUGHT)));
}

describe('the live path against the model zoo (chat API)', () => {
  test('plain: the reference run, two requests', async () => {
    const z = await runZoo('plain');
    assertClean(z);
    assert.equal(z.server.requests.length, 2);
    assert.deepEqual(z.repairs, []);
  });

  test('wrapper: the preamble, the fence and the closing remark are dropped, each said once', async () => {
    const z = await runZoo('wrapper');
    assertClean(z);
    assert.equal(z.server.requests.length, 2);
    // The server stops at `\n#` and `\n----` inside the block: its closing fence and remark are never sent.
    assert.deepEqual([...new Set(z.repairs.map(r => r.kind))].sort(), ['echo', 'wrapper']);
    assert.ok(z.records.some(r => r.t === 'repair' && r.kind === 'wrapper' && /Sure! Here is the continuation:/.test(r.summary)));
  });

  test('echo-line: `Q1:` restated after the prompt’s `Q1:` is dropped (no `Q1:Q1:`)', async () => {
    const z = await runZoo('echo-line');
    assertClean(z);
    assert.doesNotMatch(z.result.snapshot.text, /Q1:\s*Q1:/);
    assert.ok(z.repairs.every(r => r.kind === 'echo'));
  });

  test('echo-all with stops ignored by the client: the restated text is dropped, the run finishes in two requests', async () => {
    const z = await runZoo('echo-all', { honoursStop: false });
    assertClean(z);
    assert.equal(z.server.requests.length, 2);
    assert.ok(z.repairs.some(r => /whole text/.test(r.summary)));
  });

  test('echo-all with stops honoured by the server: every restatement is cut short, the run ends without progress', async () => {
    const z = await runZoo('echo-all');
    assert.ok(z.server.requests.length <= 8, `${z.server.requests.length} requests`);
    assert.notEqual(z.result.reason, 'finished');
    assert.ok(z.result.error, 'a reason is given');
    assert.doesNotMatch(z.result.snapshot.text, /Description: \(Pens\) Count the pens\.\nInput: Ann/, 'the restatement is not in the program');
  });

  test('think: <think> in the content is reasoning, on the snapshot and its step, never in the program or a prompt', async () => {
    const z = await runZoo('think');
    assertClean(z);
    const s = z.result.snapshot;
    assert.ok(s.reasoning?.length, 'reasoning on the snapshot');
    assert.equal(s.reasoning![0].text, THOUGHT);
    assert.equal(s.steps[0].reasoning?.split('\n')[0], THOUGHT);
    const completion = z.records.find(r => r.t === 'completion' && r.n === 1);
    assert.equal(completion && completion.t === 'completion' ? completion.reasoning : undefined, THOUGHT);
  });

  test('reasoning-field: reasoning_content is reasoning, its tokens counted', async () => {
    const z = await runZoo('reasoning-field');
    assertClean(z);
    assert.equal(z.result.snapshot.reasoning?.[0].text, THOUGHT);
    assert.ok((z.result.snapshot.usage.reasoningTokens ?? 0) > 0, JSON.stringify(z.result.snapshot.usage));
    assert.deepEqual(z.repairs, [], 'nothing to repair: the reasoning came in its own field');
  });

  test('ignore-stop: the model’s guess of the tool output (11) is cut; the calculator’s 10 is used', async () => {
    const z = await runZoo('ignore-stop');
    assertClean(z);
    assert.ok(z.server.requests[0].sent.includes('#1: 11'), 'the endpoint did send past the stop');
  });

  test('split-bytes: multi-byte characters split across network writes and deltas arrive whole', async () => {
    const z = await runZoo('split-bytes');
    assertClean(z, ZOO_WIDE_ANSWER);
  });

  test('length: a reply cut mid-step is continued, the restated partial line dropped', async () => {
    const z = await runZoo('length');
    assertClean(z);
    assert.equal(z.server.requests[0].finishReason, 'length');
    assert.ok(z.server.requests.length <= 4, `${z.server.requests.length} requests`);
  });

  test('refusal: ends at the first request with a line quoting it, nothing of it in the program', async () => {
    const z = await runZoo('refusal');
    assert.equal(z.result.reason, 'malformed');
    assert.equal(z.server.requests.length, 1);
    assert.ok(z.result.error?.includes(JSON.stringify(REFUSAL)), z.result.error);
    assert.match(z.result.error!, /`Q1: \[tool or sub-step\] instruction` was expected/);
    assert.doesNotMatch(z.result.snapshot.text, /sorry/);
    assert.doesNotMatch(z.shown, /sorry|taken back/, 'never shown');
    const end = z.records.find(r => r.t === 'end');
    assert.equal(end && end.t === 'end' ? end.reason : undefined, 'malformed');
  });

  test('empty: after the tool, replies that add nothing end the run (no-progress) within the budget', async () => {
    const z = await runZoo('empty');
    assert.ok(z.server.requests.length <= 8, `${z.server.requests.length} requests`);
    assert.notEqual(z.result.reason, 'finished');
    assert.ok(z.result.error);
  });

  test('same-again: the first reply again after the tool output is refused where a step was expected', async () => {
    const z = await runZoo('same-again');
    assert.equal(z.result.reason, 'malformed');
    assert.equal(z.server.requests.length, 2);
    assert.match(z.result.error!, /"\[calculator\] 3 \+ 7" where the next step \(`Q2: \[tool or sub-step\] instruction`\) or `Ans:` was expected/);
  });

  test('turn-marker: the chat turn the model ends in its text ends the reply; the invented turn never enters the program', async () => {
    const z = await runZoo('turn-marker');
    assertClean(z);
    assert.doesNotMatch(z.result.snapshot.text, /<\|im_|user/);
    assert.ok(
      z.repairs.some(r => r.kind === 'turn' && TURN_MARKER_TAIL.startsWith(r.removed.slice(0, 10))),
      JSON.stringify(z.repairs),
    );
    assert.ok(
      z.records.some(r => r.t === 'repair' && r.kind === 'turn'),
      'the repair is in the trace',
    );
    // The reply ended at its marker: the client stopped there, as at a stop sequence.
    const last = z.records.filter(r => r.t === 'completion').at(-1);
    assert.equal(last?.t === 'completion' ? last.finishReason : undefined, 'stop');
  });

  test("llama.cpp's wire (a role-only first delta, the usage on the finishing chunk): the reference run", async () => {
    const z = await runZoo('plain', {}, 'llama.cpp');
    assertClean(z);
    assert.ok(z.result.snapshot.usage.completionTokens > 0, 'the usage of the finishing chunk is counted');
  });

  test('tool-call: a function call instead of text ends the run with a reason', async () => {
    const z = await runZoo('tool-call');
    assert.ok(z.server.requests.length <= 8);
    assert.notEqual(z.result.reason, 'finished');
    assert.ok(z.result.error);
  });
});

describe("llama.cpp's wire on the completions API", () => {
  test('log-probabilities in the chat form (`logprobs.content`) are read', async () => {
    const server = await new ZooServer('plain', { wire: 'llama.cpp' }).start();
    servers.push(server);
    const model = new OpenAIModel({ baseURL: server.baseURL, model: 'zoo', retry: { maxRetries: 0 } });
    const prompt = `${ZOO_LIBRARY.split('\n----\n')[0]}\n----\nDescription: (Pens) Count the pens.\nInput: Tom has 3 pens and buys 7 more. How many pens does he have?\nQ1:`;
    const r = await model.complete({ prompt, stop: ['\n#'], logprobs: true, temperature: 0 });
    assert.equal(r.text, ' [calculator] 3 + 7');
    assert.ok(r.tokenLogprobs?.length, 'log-probabilities read');
    assert.ok(r.tokenLogprobs.every(lp => lp === -0.5));
  });
});
