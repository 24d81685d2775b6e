// The span mapping (core/telemetry/spans.ts) on trace records written here: names and attributes of the GenAI
// conventions per API, the events (overrides, departures, repairs, monitor corrections, retries) on the span they
// concern, content only when asked for and always through the redactor, a run cut short, a call recorded twice,
// an evaluation's example.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Redactor } from '../../../core/common/redact';
import { exampleAttributes, runSpans, type ExampleOutcome, type RunInfo, type SpanPlan } from '../../../core/telemetry/spans';
import type { TraceRecord } from '../../../core/trace/schema';

const KEY = 'sk-test-Spans8fK2mWp4Lx9Rb7Tn3V12';
const redactor = new Redactor([KEY]);
const off = { content: false, redact: (s: string) => redactor.redact(s) };
const on = { content: true, redact: (s: string) => redactor.redact(s) };
const INFO: RunInfo = { title: 'Elementary Math', file: 'library.art', mode: 'generate', api: 'completions', provider: 'openai', model: 'm1' };
const usage = { promptTokens: 10, completionTokens: 5 };

/** A run of two requests and a calculator call between them, with what a debug session adds. */
function records(): TraceRecord[] {
  const call = { id: 1, tool: 'calculator', input: '2 + 2', step: 1, output: '4', durationMs: 3 };
  return [
    {
      t: 'run',
      at: 1000,
      kind: 'art',
      model: 'openai-completions:m1@http://x/v1',
      honoursStop: true,
      prompt: 'P',
      header: `Input: 2 + 2 ${KEY}\nQ1:`,
      config: {},
      options: {},
    },
    { t: 'request', at: 1001, n: 1, prompt: `P Input: 2 + 2 ${KEY}`, stop: ['\n#'], maxTokens: 64, temperature: 0 },
    { t: 'retry', at: 1002, attempt: 1, delayMs: 5, reason: 'HTTP 503' },
    { t: 'chunk', at: 1003, n: 1, text: ' [calculator] 2 + 2' },
    { t: 'repair', at: 1004, n: 1, kind: 'wrapper', summary: 'a code fence removed', removed: '```' },
    { t: 'completion', at: 1005, n: 1, text: ' [calculator] 2 + 2', finishReason: 'stop', usage },
    { t: 'tool', at: 1010, call },
    { t: 'pause', at: 1010, reason: 'after-tool', callId: 1 },
    { t: 'edit', at: 1011, what: 'output', callId: 1, text: `5 ${KEY}` },
    { t: 'tool', at: 1011, call: { ...call, override: `5 ${KEY}` } },
    { t: 'live', at: 1012, callId: 1, why: 'the output was changed', model: 'm1' },
    { t: 'request', at: 1013, n: 2, prompt: 'P ... #1: 5', stop: ['\n#'], maxTokens: 64, temperature: 0 },
    { t: 'correction', at: 1014, offset: 40, found: 'Q9', expected: ['Q2'], removed: 'Q9', inserted: 'Q2' },
    { t: 'completion', at: 1015, n: 2, text: 'Q2: [EOQ]\nAns: 5', finishReason: 'stop', usage },
    { t: 'end', at: 1020, reason: 'finished', answer: '5', text: '...', usage: { promptTokens: 20, completionTokens: 10 }, requests: 2 },
  ];
}

const child = (p: SpanPlan, prefix: string) => p.children.filter(c => c.name.startsWith(prefix));

describe('runSpans', () => {
  test('the run, a span per request and per tool call, named and attributed as the GenAI conventions say', () => {
    const run = runSpans(records(), INFO, off)!;
    assert.equal(run.name, 'invoke_agent Elementary Math');
    assert.deepEqual([run.start, run.end], [1000, 1020]);
    assert.equal(run.attributes['openinference.span.kind'], 'CHAIN');
    assert.equal(run.attributes['gen_ai.request.model'], 'm1', "the endpoint's model name, not the trace's description");
    assert.equal(run.attributes['art.run.end_reason'], 'finished');
    assert.equal(run.attributes['gen_ai.usage.input_tokens'], 20);
    assert.deepEqual(
      run.children.map(c => c.name),
      ['text_completion m1', 'execute_tool calculator', 'text_completion m1'],
    );
    const [q1, q2] = child(run, 'text_completion');
    assert.deepEqual([q1.start, q1.end, q2.start, q2.end], [1001, 1005, 1013, 1015]);
    assert.equal(q1.attributes['gen_ai.request.max_tokens'], 64);
    assert.equal(q1.attributes['gen_ai.request.temperature'], 0);
    assert.equal(q1.attributes['gen_ai.usage.output_tokens'], 5);
    assert.deepEqual(q1.attributes['gen_ai.response.finish_reasons'], ['stop']);
    assert.equal(q1.attributes['openinference.span.kind'], 'LLM');
    const [tool] = child(run, 'execute_tool');
    assert.deepEqual([tool.start, tool.end], [1007, 1011], 'from the first record less its duration to the last record');
    assert.equal(tool.attributes['gen_ai.tool.call.id'], '1');
    assert.equal(tool.attributes['art.tool.overridden'], true);
  });

  test('chat and tools APIs name requests `chat <model>`; a replay `text_completion`', () => {
    for (const api of ['chat', 'tools']) assert.equal(child(runSpans(records(), { ...INFO, api }, off)!, 'chat ').length, 2, api);
    const replay = runSpans(records(), { ...INFO, api: 'chat', provider: 'replay', model: undefined }, off)!;
    assert.equal(child(replay, 'text_completion openai-completions:m1@http://x/v1').length, 2);
  });

  test('the events sit on the span they concern: override and departure on the run, repair and correction on their request', () => {
    const run = runSpans(records(), INFO, off)!;
    const [q1, q2] = child(run, 'text_completion');
    assert.deepEqual(
      run.events.map(e => e.name),
      ['art.override', 'art.departure'],
    );
    assert.deepEqual(
      q1.events.map(e => e.name),
      ['art.retry', 'art.repair'],
    );
    assert.deepEqual(
      q2.events.map(e => e.name),
      ['art.monitor.correction'],
    );
    assert.equal(run.events[1].attributes['art.departure.why'], 'the output was changed');
    assert.deepEqual(q2.events[0].attributes['art.correction.expected'], ['Q2']);
  });

  test('content is left out unless asked for; asked for, it is there with the key redacted', () => {
    const quiet = JSON.stringify(runSpans(records(), INFO, off));
    for (const text of ['2 + 2', 'Ans: 5', 'input.value', 'output.value', 'art.override.text', 'art.correction.removed', KEY])
      assert.ok(!quiet.includes(text), text);
    const run = runSpans(records(), INFO, on)!;
    const all = JSON.stringify(run);
    assert.ok(!all.includes(KEY.slice(3)), 'no form of the key');
    assert.equal(run.attributes['input.value'], 'Input: 2 + 2 ***\nQ1:');
    assert.equal(run.attributes['output.value'], '5');
    const [tool] = child(run, 'execute_tool');
    assert.equal(tool.attributes['gen_ai.tool.call.arguments'], '2 + 2');
    assert.equal(tool.attributes['gen_ai.tool.call.result'], '5 ***', 'what the model saw: the override');
    assert.equal(run.events[0].attributes['art.override.text'], '5 ***');
  });

  test("an LLM-backed tool's own request is a child of its call's span", () => {
    const rs = records();
    const at = rs.findIndex(r => r.t === 'tool');
    rs.splice(at, 0, { t: 'toolRequest', at: 1009, callId: 1, prompt: 'Q: 2 + 2', stop: [], text: '4', finishReason: 'stop', usage });
    const run = runSpans(rs, INFO, off)!;
    const [tool] = child(run, 'execute_tool');
    assert.deepEqual(
      tool.children.map(c => [c.name, c.attributes['gen_ai.usage.output_tokens']]),
      [['text_completion m1', 5]],
    );
    assert.equal(child(run, 'text_completion').length, 2, 'not under the run');
  });

  test('a run cut short (no end record) ends when it was closed, its open request with it', () => {
    const cut = records().slice(0, 3);
    const run = runSpans(cut, INFO, off, 5000)!;
    assert.equal(run.end, 5000);
    assert.equal(run.attributes['art.run.end_reason'], 'cancelled');
    assert.equal(run.children[0].end, 5000);
  });

  test('a run that ended in an error is an error span; records without a run make none', () => {
    const failed = records().map(r => (r.t === 'end' ? { ...r, reason: 'error' as const, error: `HTTP 401 for ${KEY}` } : r));
    assert.equal(runSpans(failed, INFO, off)!.error, 'HTTP 401 for ***');
    assert.equal(runSpans(records().slice(1), INFO, off), null);
  });
});

describe('exampleAttributes', () => {
  const outcome: ExampleOutcome = {
    id: 'pages',
    input: 'How many pages?',
    target: '8',
    answer: '6',
    exact: false,
    substring: false,
    end: 'finished',
    error: null,
  };
  test('the score as the GenAI evaluation result; the input, target and answer only with content', () => {
    const a = exampleAttributes(outcome, off);
    assert.equal(a['gen_ai.evaluation.score.value'], 0);
    assert.equal(a['gen_ai.evaluation.score.label'], 'incorrect');
    assert.equal(a['art.eval.example'], 'pages');
    assert.equal(a['input.value'], undefined);
    const b = exampleAttributes({ ...outcome, answer: '8', exact: true, substring: true }, on);
    assert.equal(b['gen_ai.evaluation.score.value'], 1);
    assert.deepEqual([b['input.value'], b['art.eval.target'], b['output.value']], ['How many pages?', '8', '8']);
  });
});
