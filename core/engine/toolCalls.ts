// Tool calls: a tool run with its timeout (the tool gets it and should stop itself; the runner stops waiting a
// little later regardless) and the run's cancellation, its result put into the ToolCall; the output the model then
// sees; and the model LLM-backed tools get, with each of their requests written to the trace.
import { performance } from 'node:perf_hooks';
import { normalizeName } from '../art/ast';
import type { CompletionRequest, CompletionResult, ModelClient } from '../model/types';
import type { DetectedCall } from '../protocols/runProtocol';
import { formatMs } from '../tools/common';
import type { ToolResult } from '../tools/types';
import type { TraceRecord } from '../trace/schema';
import type { RunnerOptions } from './runnerOptions';
import type { ToolCall } from '../trace/vocabulary';

/** Where a tool runs: the run's options, its cancellation, the model LLM-backed tools get. */
export interface ToolEnv {
  opts: RunnerOptions;
  /** Aborted when the run is stopped. */
  signal: AbortSignal;
  model: ModelClient;
  /** `toolStart` (before) and `toolEnd` (after, the result in the call). */
  emit(event: 'toolStart' | 'toolEnd', call: ToolCall, at: number): void;
}

/** Runs the call's tool and puts its output or error, duration and details into the call. */
export async function runTool(
  call: ToolCall,
  dc: { input: string; previousAnswer?: string; answers?: ReadonlyMap<number, string> },
  env: ToolEnv,
): Promise<void> {
  const tool = env.opts.tools.get(call.tool);
  const started = performance.now();
  env.emit('toolStart', call, started);
  let result: ToolResult;
  if (!tool) {
    result = { ok: false, error: `"${call.tool}" is not a tool the runner knows` };
  } else {
    const ctrl = new AbortController();
    const onAbort = () => ctrl.abort(env.signal.reason);
    env.signal.addEventListener('abort', onAbort, { once: true });
    const limit = toolTimeout(call.tool, env.opts);
    let timer: NodeJS.Timeout | undefined;
    // The tool gets the timeout and should stop itself; the runner stops waiting a little later regardless.
    const hardLimit = limit === undefined ? 120_000 : limit + Math.min(1000, limit);
    const timeout = new Promise<ToolResult>(resolve => {
      timer = setTimeout(() => {
        ctrl.abort(new Error('timed out'));
        resolve({ ok: false, error: `${call.tool} timed out after ${formatMs(limit ?? hardLimit)}`, timedOut: true });
      }, hardLimit);
    });
    try {
      result = await Promise.race([
        tool
          .run(
            { instruction: dc.input, previousAnswer: dc.previousAnswer, answers: dc.answers },
            {
              signal: ctrl.signal,
              timeoutMs: limit,
              model: env.model,
              workspaceRoot: env.opts.workspaceRoot,
              log: env.opts.log,
            },
          )
          .catch((err: unknown): ToolResult => ({ ok: false, error: `${call.tool} failed: ${err instanceof Error ? err.message : String(err)}` })),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
      env.signal.removeEventListener('abort', onAbort);
      ctrl.abort();
    }
  }
  call.durationMs = Math.round((performance.now() - started) * 100) / 100;
  if (result.ok) call.output = result.output;
  else {
    call.error = result.error;
    if (result.timedOut) call.timedOut = true;
  }
  if (result.details) call.details = result.details;
  env.emit('toolEnd', call, performance.now());
}

/** The timeout of one tool: its own (`toolTimeouts`, by name) or the run's. */
function toolTimeout(name: string, opts: RunnerOptions): number | undefined {
  const key = normalizeName(name);
  for (const [n, ms] of Object.entries(opts.toolTimeouts ?? {})) if (normalizeName(n) === key) return ms;
  return opts.toolTimeoutMs;
}

/** A call detected in the text, numbered `id`; `constrained`: the constraint of the request that wrote it. */
export function newCall(dc: DetectedCall, id: number, constrained: string | undefined): ToolCall {
  const call: ToolCall = { id, tool: dc.tool, input: dc.input, previousAnswer: dc.previousAnswer, step: dc.step, state: dc.state };
  if (dc.inline) call.inline = true;
  if (constrained) call.constrained = constrained;
  return call;
}

/** The output the model sees for a call: the user's override, else the tool's; null when the model writes it (failed, skipped). */
export function outputForModel(call: ToolCall): string | null {
  return call.override ?? (call.error !== undefined || call.skipped ? null : (call.output ?? ''));
}

/** The tool model, with each request an LLM-backed tool makes written to the trace (so a re-run can serve it from there). */
export function tracedToolModel(model: ModelClient, trace: (r: TraceRecord) => void, callId: () => number | undefined): ModelClient {
  const record = (req: CompletionRequest, r: CompletionResult) =>
    trace({
      t: 'toolRequest',
      at: Date.now(),
      callId: callId(),
      prompt: req.prompt,
      stop: req.stop ?? [],
      maxTokens: req.maxTokens,
      temperature: req.temperature,
      text: r.text,
      finishReason: r.finishReason,
      usage: r.usage,
      cached: r.cached || undefined,
    });
  const traced: ModelClient = {
    id: model.id,
    honoursStop: model.honoursStop,
    async *stream(req) {
      const r = yield* model.stream(req);
      record(req, r);
      return r;
    },
    async complete(req) {
      const r = await model.complete(req);
      record(req, r);
      return r;
    },
  };
  // What a model may offer besides completions (a replay's recorded answers) passes through unchanged.
  if (model.recordedAnswer) traced.recordedAnswer = instruction => model.recordedAnswer!(instruction);
  return traced;
}
