// Small helpers every tool shares: its ToolInfo, a deadline that combines the run's signal with the tool's timeout,
// and uniform results. Tools never throw for expected failures; these keep the messages consistent.
import { BUILTIN_TOOLS, type ToolInfo } from '../art/knownTools';
import type { ToolContext, ToolInput, ToolResult } from './types';

/** The ToolInfo of a built-in tool, from the shared list in core/art/knownTools.ts. */
export function builtinInfo(name: string): ToolInfo {
  const info = BUILTIN_TOOLS.find(t => t.name === name);
  if (!info) throw new Error(`internal: ${name} is not a built-in tool`);
  return info;
}

export const fail = (error: string, extra: { timedOut?: boolean; details?: Record<string, unknown> } = {}): ToolResult => ({
  ok: false,
  error,
  ...extra,
});
export const ok = (output: string, details?: Record<string, unknown>): ToolResult => (details ? { ok: true, output, details } : { ok: true, output });

export interface Deadline {
  signal: AbortSignal;
  /** True when the tool's own timeout fired (as opposed to the run being cancelled). */
  timedOut(): boolean;
  ms: number;
  dispose(): void;
}

/** A signal that aborts when the run is cancelled or after the tool's timeout, whichever comes first. */
export function deadline(ctx: ToolContext, defaultMs: number): Deadline {
  const ms = ctx.timeoutMs ?? defaultMs;
  const controller = new AbortController();
  let fired = false;
  const timer = setTimeout(() => {
    fired = true;
    controller.abort(new Error(`timed out after ${ms} ms`));
  }, ms);
  const onAbort = () => controller.abort(ctx.signal.reason);
  if (ctx.signal.aborted) controller.abort(ctx.signal.reason);
  else ctx.signal.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => fired,
    ms,
    dispose() {
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', onAbort);
    },
  };
}

/** The message for a tool stopped by its deadline or by cancellation. */
export function stoppedResult(name: string, d: Deadline): ToolResult {
  return d.timedOut() ? fail(`[${name}] timed out after ${formatMs(d.ms)}`, { timedOut: true }) : fail(`[${name}] was cancelled`);
}

/**
 * The longest tool timeout: setTimeout fires at once for a delay past 2^31-1 ms, so a huge timeout would make every
 * tool time out at once; the runner waits up to a second past a tool's own timeout, hence the margin.
 */
export const MAX_TOOL_TIMEOUT_MS = 2 ** 31 - 1 - 1000;

/** Why `ms` cannot be a tool timeout, in words for the user; undefined when it can. */
export function toolTimeoutProblem(ms: unknown): string | undefined {
  if (typeof ms === 'number' && Number.isInteger(ms) && ms >= 1 && ms <= MAX_TOOL_TIMEOUT_MS) return undefined;
  return `a tool timeout is a whole number of milliseconds from 1 to ${MAX_TOOL_TIMEOUT_MS} (about 24 days), not ${JSON.stringify(ms) ?? String(ms)}`;
}

export function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

export function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}

/** Cuts `text` to `max` characters and says so, so a huge output never floods the prompt. */
export function capText(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  return { text: `${text.slice(0, max)}\n[output truncated at ${max} characters]`, truncated: true };
}

/**
 * The text a step refers to: `#k` in the instruction names answer k when the run knows it, else the previous
 * answer. LLM-backed tools and `lookup` read their data from here.
 */
export function referencedAnswer(input: ToolInput): string | undefined {
  const m = /#(\d+)\b/.exec(input.instruction);
  if (m && input.answers) {
    const a = input.answers.get(Number(m[1]));
    if (a !== undefined) return a;
  }
  return input.previousAnswer;
}

/**
 * A tool's error without the `[tool] ` its message starts with, for a line that names the tool already
 * (`[string permutation] failed: ...`, not `[string permutation] failed: [string permutation] ...`).
 */
export function withoutToolPrefix(tool: string, error: string): string {
  const prefix = `[${tool}]`;
  return error.toLowerCase().startsWith(prefix.toLowerCase()) ? error.slice(prefix.length).trimStart() : error;
}
