// A run as OpenTelemetry spans, from the records its trace has (core/trace/schema.ts): the same events the JSONL
// trace writer is given, read after the fact, so the engine has no hook of its own for telemetry. Pure: plain data
// in, plain data out (otlp.ts hands it to the SDK). Names and attributes follow the OpenTelemetry GenAI semantic
// conventions (`text_completion <model>` / `chat <model>`, `execute_tool <tool>`, gen_ai.*), with the OpenInference
// attributes Arize Phoenix reads beside them (openinference.span.kind, input.value, llm.*). Content (prompts,
// completions, tool inputs and outputs, the answer) is in only with `content`; every string goes through `redact`.
import type { TraceRecord } from '../trace/schema';
import type { ToolCall } from '../trace/vocabulary';
import type { Usage } from '../model/types';
import type { EvalResult } from '../evaluation/eval';

export type AttributeValue = string | number | boolean | string[];
export type Attributes = Record<string, AttributeValue>;

export interface SpanEventPlan {
  name: string;
  /** Milliseconds since the epoch. */
  at: number;
  attributes: Attributes;
}

/** A span to make: its times (ms since the epoch), attributes, events and children. */
export interface SpanPlan {
  name: string;
  start: number;
  end: number;
  attributes: Attributes;
  events: SpanEventPlan[];
  /** An error ends it (a failed run or tool, a request cut by an error). */
  error?: string;
  children: SpanPlan[];
}

/** What the trace does not say of a run: the launch knows it. */
export interface RunInfo {
  /** The program, agent or prompt run (its title), and its file (relative to the workspace). */
  title: string;
  file?: string;
  /** `generate` or `replay`. */
  mode: string;
  /** The endpoint's API: `completions`, `chat`, `tools` (chat function calling). */
  api: string;
  /** Where the model is: `openai` (an OpenAI-compatible endpoint), `vscode` (VS Code's Language Model API), `replay`. */
  provider: string;
  /** The model's name as the endpoint knows it (the trace's is a description: API, name and endpoint). */
  model?: string;
  task?: string;
}

export interface SpanOptions {
  content: boolean;
  redact: (text: string) => string;
}

/** The OpenInference span kinds Phoenix shows. */
const KIND = 'openinference.span.kind';

/**
 * The spans of one run from its records (those of one `run` record on; a run cut short, without its `end`, ends at
 * `endedAt`): the run, a child per model request and per tool call, the events (overrides, departures, repairs,
 * monitor corrections, retries, rewinds) on the span they concern.
 */
export function runSpans(records: readonly TraceRecord[], info: RunInfo, o: SpanOptions, endedAt = Date.now()): SpanPlan | null {
  const run = records.find(r => r.t === 'run');
  if (!run || run.t !== 'run') return null;
  const end = records.find(r => r.t === 'end');
  const last = end?.at ?? Math.max(endedAt, ...records.map(r => r.at));
  const text = (s: string | null | undefined) => o.redact(s ?? '');
  const content = (attrs: Attributes, key: string, value: string | null | undefined) => {
    if (o.content && value !== undefined && value !== null) attrs[key] = text(value);
  };
  const model = info.model || run.model;
  const operation = info.api === 'completions' || info.provider === 'replay' ? 'text_completion' : 'chat';

  const runAttrs: Attributes = {
    [KIND]: 'CHAIN',
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.agent.name': text(info.title),
    'gen_ai.provider.name': info.provider,
    'gen_ai.request.model': text(model),
    'art.run.kind': run.kind,
    'art.run.mode': info.mode,
    'art.run.api': info.api,
  };
  if (info.file) runAttrs['art.program.file'] = text(info.file);
  if (info.task) runAttrs['art.task'] = text(info.task);
  if (run.sample) runAttrs['art.sample'] = `${run.sample.index}/${run.sample.of}`;
  content(runAttrs, 'input.value', run.header);
  const runSpan: SpanPlan = { name: `invoke_agent ${text(info.title)}`, start: run.at, end: last, attributes: runAttrs, events: [], children: [] };

  const requests = new Map<number, SpanPlan>();
  const tools = new Map<number, SpanPlan>();
  const toolRequests: [number, SpanPlan][] = [];
  const toolSpan = (call: ToolCall, at: number): SpanPlan => {
    const attrs: Attributes = {
      [KIND]: 'TOOL',
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': text(call.tool),
      'gen_ai.tool.call.id': String(call.id),
      'gen_ai.tool.type': 'function',
      'tool.name': text(call.tool),
      'art.step': call.step,
    };
    if (call.override !== undefined) attrs['art.tool.overridden'] = true;
    if (call.inputEdited) attrs['art.tool.input_edited'] = true;
    if (call.skipped) attrs['art.tool.skipped'] = true;
    if (call.fallback) attrs['art.tool.fallback'] = true;
    if (call.timedOut) attrs['art.tool.timed_out'] = true;
    content(attrs, 'gen_ai.tool.call.arguments', call.input);
    content(attrs, 'input.value', call.input);
    const seen = call.override ?? call.output;
    content(attrs, 'gen_ai.tool.call.result', seen);
    content(attrs, 'output.value', seen);
    return {
      name: `execute_tool ${text(call.tool)}`,
      start: at - (call.durationMs ?? 0),
      end: at,
      attributes: attrs,
      events: [],
      ...(call.error !== undefined ? { error: text(call.error) } : {}),
      children: [],
    };
  };
  /** The request whose time holds `at` (the latest begun by then), else the run. */
  const spanAt = (at: number): SpanPlan => {
    let found: SpanPlan | undefined;
    for (const s of requests.values()) if (s.start <= at) found = s;
    return found && at <= found.end ? found : runSpan;
  };
  const event = (target: SpanPlan, name: string, at: number, attributes: Attributes) => target.events.push({ name, at, attributes });
  /** A model request's span, as sent (a run's request, or an LLM-backed tool's own). */
  const llmSpan = (at: number, r: { maxTokens?: number; temperature?: number; prompt: string }): SpanPlan => {
    const attrs: Attributes = {
      [KIND]: 'LLM',
      'gen_ai.operation.name': operation,
      'gen_ai.provider.name': info.provider,
      'gen_ai.request.model': text(model),
      'llm.model_name': text(model),
    };
    if (r.maxTokens !== undefined) attrs['gen_ai.request.max_tokens'] = r.maxTokens;
    if (r.temperature !== undefined) attrs['gen_ai.request.temperature'] = r.temperature;
    content(attrs, 'input.value', r.prompt);
    return { name: `${operation} ${text(model)}`, start: at, end: last, attributes: attrs, events: [], children: [] };
  };
  /** What the answer to a request adds to its span. */
  const answered = (span: SpanPlan, at: number, r: { finishReason?: string; usage?: Usage; text?: string; cached?: boolean }) => {
    const a = span.attributes;
    span.end = at;
    if (r.finishReason !== undefined) a['gen_ai.response.finish_reasons'] = [r.finishReason];
    if (r.usage) {
      a['gen_ai.usage.input_tokens'] = r.usage.promptTokens;
      a['gen_ai.usage.output_tokens'] = r.usage.completionTokens;
      a['llm.token_count.prompt'] = r.usage.promptTokens;
      a['llm.token_count.completion'] = r.usage.completionTokens;
      a['llm.token_count.total'] = r.usage.promptTokens + r.usage.completionTokens;
    }
    if (r.cached) a['art.request.cached'] = true;
    content(a, 'output.value', r.text);
  };

  for (const r of records) {
    switch (r.t) {
      case 'request': {
        const span = llmSpan(r.at, r);
        const attrs = span.attributes;
        attrs['art.request.n'] = r.n;
        if (r.stop.length) attrs['gen_ai.request.stop_sequences'] = r.stop.map(text);
        if (r.constraint) attrs['art.request.constrained'] = true;
        if (r.alternative !== undefined) attrs['art.request.alternative'] = r.alternative;
        requests.set(r.n, span);
        runSpan.children.push(span);
        break;
      }
      case 'completion': {
        const span = requests.get(r.n);
        if (!span) break;
        answered(span, r.at, r);
        const a = span.attributes;
        if (r.aborted) a['art.request.aborted'] = true;
        if (r.paused) a['art.request.paused'] = true;
        if (r.cut !== undefined) a['art.request.cut'] = r.cut;
        content(a, 'art.request.dropped', r.dropped);
        break;
      }
      case 'tool': {
        // A call is recorded again when it changes (an override after it ran): the last record is the call.
        const span = toolSpan(r.call, r.at);
        const before = tools.get(r.call.id);
        if (before) {
          span.start = Math.min(before.start, span.start);
          span.events = before.events;
          span.children = before.children;
          runSpan.children.splice(runSpan.children.indexOf(before), 1, span);
        } else runSpan.children.push(span);
        tools.set(r.call.id, span);
        break;
      }
      case 'toolRequest': {
        // An LLM-backed tool's own request: made a child of its call's span below (the call's record comes after it).
        const span = llmSpan(r.at, r);
        answered(span, r.at, r);
        if (r.callId !== undefined) {
          span.attributes['gen_ai.tool.call.id'] = String(r.callId);
          toolRequests.push([r.callId, span]);
        }
        runSpan.children.push(span);
        break;
      }
      case 'edit': {
        const attrs: Attributes = { 'art.override.what': r.what, 'gen_ai.tool.call.id': String(r.callId) };
        content(attrs, 'art.override.text', r.text);
        event(runSpan, 'art.override', r.at, attrs);
        break;
      }
      case 'live':
        event(runSpan, 'art.departure', r.at, {
          'art.departure.why': text(r.why),
          'gen_ai.tool.call.id': String(r.callId),
          'art.model': text(r.model),
        });
        break;
      case 'rejoin':
        event(runSpan, 'art.rejoin', r.at, { 'art.rejoin.why': text(r.why) });
        break;
      case 'repair': {
        const attrs: Attributes = { 'art.repair.kind': r.kind, 'art.repair.summary': text(r.summary) };
        content(attrs, 'art.repair.removed', r.removed);
        event(requests.get(r.n) ?? runSpan, 'art.repair', r.at, attrs);
        break;
      }
      case 'correction': {
        const attrs: Attributes = { 'art.correction.offset': r.offset, 'art.correction.expected': r.expected.map(text) };
        if (r.found !== null) attrs['art.correction.found'] = text(r.found);
        content(attrs, 'art.correction.removed', r.removed);
        content(attrs, 'art.correction.inserted', r.inserted);
        event(spanAt(r.at), 'art.monitor.correction', r.at, attrs);
        break;
      }
      case 'retry':
        event(spanAt(r.at), 'art.retry', r.at, {
          'art.retry.attempt': r.attempt,
          'art.retry.delay_ms': r.delayMs,
          'art.retry.reason': text(r.reason),
        });
        break;
      case 'unconstrained':
        event(requests.get(r.n) ?? runSpan, 'art.unconstrained', r.at, { 'art.unconstrained.reason': text(r.reason) });
        break;
      case 'branch':
        event(runSpan, 'art.branch', r.at, { 'art.branch.why': r.why, 'art.step': r.step });
        break;
      default:
        break;
    }
  }

  for (const [callId, span] of toolRequests) {
    const tool = tools.get(callId);
    if (!tool) continue;
    runSpan.children.splice(runSpan.children.indexOf(span), 1);
    tool.children.push(span);
  }

  if (end && end.t === 'end') {
    runAttrs['art.run.end_reason'] = end.reason;
    runAttrs['art.run.requests'] = end.requests;
    runAttrs['art.run.tool_calls'] = tools.size;
    runAttrs['gen_ai.usage.input_tokens'] = end.usage.promptTokens;
    runAttrs['gen_ai.usage.output_tokens'] = end.usage.completionTokens;
    content(runAttrs, 'output.value', end.answer);
    if (end.reason === 'error') runSpan.error = text(end.error ?? 'error');
  } else runAttrs['art.run.end_reason'] = 'cancelled';
  return runSpan;
}

/** One example of an evaluation as its span shows it. */
export type ExampleOutcome = Pick<EvalResult, 'id' | 'input' | 'target' | 'answer' | 'exact' | 'substring' | 'end' | 'error' | 'task'>;

/**
 * The attributes of an example's span: its score as the GenAI conventions' evaluation result (`exact` match: 1 or
 * 0, labelled correct or incorrect), both scores, how its run ended; the input, target and answer with `content`.
 */
export function exampleAttributes(r: ExampleOutcome, o: SpanOptions): Attributes {
  const attrs: Attributes = {
    [KIND]: 'CHAIN',
    'art.eval.example': o.redact(r.id),
    'gen_ai.evaluation.name': 'exact',
    'gen_ai.evaluation.score.value': r.exact ? 1 : 0,
    'gen_ai.evaluation.score.label': r.exact ? 'correct' : 'incorrect',
    'art.eval.exact': r.exact,
    'art.eval.substring': r.substring,
    'art.run.end_reason': r.end,
  };
  if (r.task !== undefined) attrs['art.task'] = o.redact(r.task);
  if (r.error !== null) attrs['art.eval.error'] = o.redact(r.error);
  if (o.content) {
    attrs['input.value'] = o.redact(r.input);
    attrs['art.eval.target'] = o.redact(r.target);
    if (r.answer !== null) attrs['output.value'] = o.redact(r.answer);
  }
  return attrs;
}

/** The evaluation's span's attributes once it ended: how many examples, how many right. */
export function evaluationAttributes(results: readonly ExampleOutcome[], total: number, stopped: boolean): Attributes {
  const exact = results.filter(r => r.exact).length;
  return {
    'art.eval.total': total,
    'art.eval.done': results.length,
    'art.eval.exact': exact,
    'art.eval.substring': results.filter(r => r.substring).length,
    'art.eval.accuracy': results.length ? exact / results.length : 0,
    'art.eval.stopped': stopped,
  };
}
