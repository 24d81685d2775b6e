// The tool interface the runner calls. A tool gets the step's input and a context, and returns text or an error;
// it never throws for expected failures (bad input, timeout), it returns { ok: false } with a message.
import type { ToolInfo } from '../art/knownTools';
import type { ModelClient } from '../model/types';

export interface ToolInput {
  /** The step's instruction (`Q2: [search] <instruction>`), the trigger line's text, or an env-input query. */
  instruction: string;
  /** The previous step's answer (`#k-1`), when there is one: code to run, a list to look up, ... */
  previousAnswer?: string;
  /** All answers so far by step number, for tools that resolve `#k` references. */
  answers?: ReadonlyMap<number, string>;
}

export interface ToolContext {
  signal: AbortSignal;
  /** Milliseconds before the tool is stopped; each tool has its own default. */
  timeoutMs?: number;
  /** For LLM-backed tools and NLL reranking; absent when no model is configured. */
  model?: ModelClient;
  /** Workspace folder (relative paths in tool settings resolve against it). */
  workspaceRoot?: string;
  /** Progress/log lines (shown in the output channel or the Debug Console); never secrets. */
  log?: (line: string) => void;
}

export type ToolResult =
  | { ok: true; output: string; /** extra facts for the trace (passages, exit code, ...) */ details?: Record<string, unknown> }
  | { ok: false; error: string; timedOut?: boolean; details?: Record<string, unknown> };

export interface Tool {
  readonly info: ToolInfo;
  run(input: ToolInput, ctx: ToolContext): Promise<ToolResult>;
}
