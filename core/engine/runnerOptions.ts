// What a Runner is given: the model, the tools, the limits, when to pause, and where the trace goes.
import { DEFAULT_MAX_TOKENS, type ModelClient } from '../model/types';
import type { Constrainer } from '../protocols/constraints';
import type { RunProtocol } from '../protocols/runProtocol';
import type { TraceRecord, TraceSink } from '../trace/schema';
import type { Breakpoints } from './types';
import type { ToolLookup } from '../protocols/types';

export interface RunnerOptions {
  model: ModelClient;
  /** One sample of a self-consistency run (1-based index, of how many): the trace's `run` record says so. */
  sample?: { index: number; of: number };
  tools: ToolLookup;
  /** Model for LLM-backed tools (default: `model`). */
  toolModel?: ModelClient;
  temperature?: number;
  /** Max tokens per request. Default DEFAULT_MAX_TOKENS (core/model/types.ts). */
  maxTokens?: number;
  /** Safety cap on requests in one run. Default 64. */
  maxRequests?: number;
  /** Requests in a row that add nothing to the program after which the run ends (`no-progress`). Default 3. */
  noProgressLimit?: number;
  /** Safety cap on tool calls in one run. Default 32. */
  maxCalls?: number;
  /** Pause before each tool runs (its input editable). Default false. */
  pauseBeforeTool?: boolean;
  /** Pause after each tool ran (its output overridable). Default true; errors pause even when false if `pauseOnToolError`. */
  pauseAfterTool?: boolean;
  /** Pause when a tool fails or times out, even with pauseAfterTool off. Default true. */
  pauseOnToolError?: boolean;
  stopOnEntry?: boolean;
  breakpoints?: Breakpoints;
  /** Passed to tools as ToolContext.timeoutMs; the runner stops waiting shortly after it (up to a second). */
  toolTimeoutMs?: number;
  /** Timeouts for single tools by name (`{ "code execute": 10000 }`), over `toolTimeoutMs`. */
  toolTimeouts?: Record<string, number>;
  workspaceRoot?: string;
  /** Trace sink (see trace.ts). */
  trace?: TraceSink;
  /** Progress lines (retries, fallbacks) for an output channel; never secrets. */
  log?: (line: string) => void;
  /** Sends decoding constraints with each request (see constraints.ts); none without. */
  constrainer?: Constrainer;
}

/** Max tokens per request (default DEFAULT_MAX_TOKENS). */
export function maxTokensOf(opts: RunnerOptions): number {
  return opts.maxTokens ?? DEFAULT_MAX_TOKENS;
}

/** Whether the run pauses after each tool (default true). */
export function pauseAfterToolOf(opts: RunnerOptions): boolean {
  return opts.pauseAfterTool ?? true;
}

/** The trace's first record: what runs (the protocol's prompt and configuration), on which model, with which options. */
export function runRecord(protocol: RunProtocol, opts: RunnerOptions): TraceRecord {
  return {
    t: 'run',
    at: Date.now(),
    kind: protocol.kind,
    model: opts.model.id,
    honoursStop: opts.model.honoursStop,
    prompt: protocol.prompt,
    header: protocol.header,
    config: protocol.traceConfig,
    ...(protocol.demonstrations ? { demonstrations: protocol.demonstrations } : {}),
    ...(opts.sample ? { sample: opts.sample } : {}),
    options: {
      temperature: opts.temperature,
      maxTokens: maxTokensOf(opts),
      pauseBeforeTool: !!opts.pauseBeforeTool,
      pauseAfterTool: pauseAfterToolOf(opts),
      toolTimeoutMs: opts.toolTimeoutMs,
    },
  };
}
