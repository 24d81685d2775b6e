// What the tools of `art mcp` share: the run options as zod input shapes (from their one declaration, defaults left
// to parseRunOptions so the CLI's rules, such as replay when no endpoint is given, still apply), a tool's result
// (a text summary and the structured content its output schema describes), errors as results with isError, and the
// key kept out of every result.
import { Redactor } from '../common/redact';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { EvalDataError } from '../evaluation/eval';
import { LaunchError } from '../launch/options';
import { RUN_OPTIONS, cliOptions, type RunOptionName } from '../launch/options';
import { CliError, isCliError } from './files';

/** What every tool handler is given by the server: where relative paths start, the environment, a log on stderr. */
export interface McpContext {
  /** The folder relative paths resolve against (the server's working directory: MCP clients start it in the workspace). */
  cwd: string;
  /** Where the key is read from (the variable `apiKeyEnv` names); never copied into a result. */
  env: NodeJS.ProcessEnv;
  /** One line on the server's stderr (MCP clients show it in their log). */
  log(line: string): void;
}

/** A path a client gave, absolute: relative paths start at the server's working directory. */
export const pathIn = (ctx: McpContext, p: string): string => resolve(ctx.cwd, p);

/** The absolute path of a file that must exist (a CliError naming it and where relative paths start, when it does not). */
export function existingFile(ctx: McpContext, p: string): string {
  const path = pathIn(ctx, p);
  if (!existsSync(path))
    throw new CliError(`${p}: no such file: check the path (relative paths start at ${ctx.cwd}, the server's working directory)`);
  return path;
}

/**
 * Run options the run tools (`run`, `debug_start`) do not take: one run is one program, stepped by the session's
 * tools (search, samples and their budget are `art run`'s; a pause before each tool is debug_start's own).
 */
export const NOT_FOR_MCP_RUN = new Set<RunOptionName>(['search', 'budget', 'samples']);

/**
 * Run options no tool takes: where the runs' telemetry goes and whether it holds their content are the user's
 * (the server's environment: OTEL_EXPORTER_OTLP_*), never a possibly prompt-injected caller's.
 */
export const NEVER_FROM_MCP = new Set<RunOptionName>(['otlp', 'otlpContent']);

/** How an option is named in an error: as the tool's input names it. */
export const mcpLabel =
  (fileField: string) =>
  (name: RunOptionName): string =>
    name === 'program' ? `"${fileField}"` : `"${name}"`;

/**
 * The input shape of the run options a tool takes: those `art` has a flag for, but `skip`. Each is optional, with
 * its declared description; a default is not applied here (parseRunOptions applies it after the CLI's own rules).
 */
export function runOptionShape(skip: ReadonlySet<RunOptionName>): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {};
  for (const { name, spec } of cliOptions()) {
    if (skip.has(name) || NEVER_FROM_MCP.has(name) || name === 'program') continue;
    const s = spec.schema;
    const bare = s instanceof z.ZodDefault ? (s.removeDefault() as z.ZodType) : s;
    shape[name] = bare.optional().describe(spec.description);
  }
  return shape;
}

/** The run options among a tool's arguments (the others are the tool's own). */
export function runOptionsOf(args: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(RUN_OPTIONS) as RunOptionName[]) if (args[name] !== undefined && !NEVER_FROM_MCP.has(name)) out[name] = args[name];
  return out;
}

/** A tool's result: the text a model reads and the structured content its output schema describes. */
export function toolResult(text: string, structured: Record<string, unknown>, secrets: readonly (string | undefined)[] = []): CallToolResult {
  const keys = secrets.filter((s): s is string => !!s && s.length >= 4);
  return {
    content: [{ type: 'text', text: redact(text, keys) }],
    structuredContent: redact(structured, keys),
  };
}

/** A failure as a result (isError), one line naming the file or option and the fix. */
export function toolError(message: string, secrets: readonly (string | undefined)[] = []): CallToolResult {
  const keys = secrets.filter((s): s is string => !!s && s.length >= 4);
  return { content: [{ type: 'text', text: redact(message, keys) }], isError: true };
}

/** Every form of a secret (core/common/redact.ts: the key, its body, a masked form) in the strings of `value` redacted. */
export function redact<T>(value: T, secrets: readonly string[]): T {
  if (!secrets.length) return value;
  const redactor = new Redactor(secrets);
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return redactor.redact(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}

/** The errors a user can fix (a file, an option, a dataset): their message is the result; others are the server's. */
export function userError(e: unknown): string | undefined {
  if (isCliError(e) || e instanceof LaunchError || e instanceof EvalDataError) return (e as Error).message;
  return undefined;
}

/**
 * Runs a tool's handler: what it throws becomes a result with isError (one line), never a crash of the server; an
 * error that is not the user's is logged with its stack. `keyArgs`: the arguments of a tool whose options may read a
 * key (keysOf), kept out of the error; none for a tool that reads no key.
 */
export async function guarded(
  tool: string,
  ctx: McpContext,
  keyArgs: Record<string, unknown> | undefined,
  work: () => Promise<CallToolResult>,
): Promise<CallToolResult> {
  const secrets = () => (keyArgs ? keysOf(ctx, keyArgs) : []);
  try {
    return await work();
  } catch (e) {
    const message = userError(e);
    if (message !== undefined) return toolError(message, secrets());
    ctx.log(`art mcp: ${tool}: internal error: ${(e as Error).stack ?? String(e)}`);
    return toolError(
      `art mcp: ${tool} failed: ${(e as Error).message ?? String(e)} (an internal error: the server's log has the details)`,
      secrets(),
    );
  }
}

/** The key a tool's options may read: that of the variable `apiKeyEnv` names (default OPENAI_API_KEY). */
export function keysOf(ctx: McpContext, args: Record<string, unknown>): (string | undefined)[] {
  const name = typeof args.apiKeyEnv === 'string' ? args.apiKeyEnv : 'OPENAI_API_KEY';
  return [ctx.env[name]];
}

/** The shape of a range, 0-based as in LSP. */
export const rangeShape = z.object({
  start: z.object({ line: z.number(), character: z.number() }),
  end: z.object({ line: z.number(), character: z.number() }),
});
