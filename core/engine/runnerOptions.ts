// What a Runner is given: the model, the tools, the limits, when to pause, and where the trace goes.
import type { ModelClient } from '../model/types';
import type { Constrainer } from '../protocols/constraints';
import type { TraceSink } from '../trace/schema';
import type { Breakpoints, ToolLookup } from './types';

export interface RunnerOptions {
  model: ModelClient;
  /** One sample of a self-consistency run (1-based index, of how many): the trace's `run` record says so. */
  sample?: { index: number; of: number };
  tools: ToolLookup;
  /** Model for LLM-backed tools (default: `model`). */
  toolModel?: ModelClient;
  temperature?: number;
  /** Max tokens per request. Default 512. */
  maxTokens?: number;
  /** Safety cap on requests in one run. Default 64. */
  maxRequests?: number;
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
