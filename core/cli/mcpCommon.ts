// What the tools of `art mcp` share: the run options as zod input shapes (from their one declaration, defaults left
// to parseRunOptions so the CLI's rules, such as replay when no endpoint is given, still apply), a tool's result
// (a text summary and the structured content its output schema describes), errors as results with isError, and the
// key kept out of every result.
import { Redactor } from '../common/redact';
import { existsSync } from 'node:fs';
import { z } from 'zod';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { EvalDataError } from '../evaluation/eval';
import { LaunchError } from '../launch/options';
import { RUN_OPTIONS, cliOptions, type RunOptionName } from '../launch/options';
import { CliError, isCliError } from './files';
import { confinedPath } from './mcpPaths';
import { isOwnedFileError } from '../common/ownedFiles';
import { companionsOf } from '../launch/companions';
import { originOf } from '../launch/apiKey';

/** What `art mcp`'s flags fix for the whole server: no tool argument can change them. */
export interface McpStart {
  /** `--allow-path DIR`: folders allowed besides the client's roots (or the start folder). */
  allowPaths?: readonly string[];
  /** `--allow-tools`: the tool file's tools (commands, HTTP tools, MCP servers) may start. */
  allowTools?: boolean;
  /** `--session-idle-s`: a paused session nobody drives for this long is stopped (milliseconds here). */
  sessionIdleMs?: number;
  /** `--base-url`, `--model`: the endpoint a run generates with when the tool names none. */
  baseURL?: string;
  model?: string;
  /** `--api-key-env`: the one variable a key is read from (default OPENAI_API_KEY). */
  apiKeyEnv?: string;
  /** `--key-origin URL`: origins a key may go to besides that of `--base-url`. */
  keyOrigins?: readonly string[];
  /** `--allow-unisolated-code`, `--python`: as `art run`'s, for every run of the server. */
  allowUnisolatedCode?: boolean;
  pythonPath?: string;
}

/** What every tool handler is given by the server: where relative paths start, the environment, a log on stderr. */
export interface McpContext {
  /** The folder relative paths resolve against (the server's working directory: MCP clients start it in the workspace). */
  cwd: string;
  /** Where the key is read from (the variable `--api-key-env` names); never copied into a result. */
  env: NodeJS.ProcessEnv;
  /** One line on the server's stderr (MCP clients show it in their log). */
  log(line: string): void;
  /** What the server's flags fixed (none: the defaults). */
  start?: McpStart;
  /** The folders paths must lie in (mcpPaths.ts); set by createArtMcpServer from the client's roots. */
  folders?: () => Promise<string[]>;
}

/** The folders of `ctx` (the start folder alone when the server set none). */
const foldersOf = async (ctx: McpContext) => (ctx.folders ? ctx.folders() : [ctx.cwd]);

/** A path a client gave, absolute, symbolic links followed, and inside the allowed folders (a CliError otherwise). */
export async function pathIn(ctx: McpContext, p: string, what = 'path', from = ctx.cwd): Promise<string> {
  return confinedPath(p, await foldersOf(ctx), what, from);
}

/** The confined path of a file that must exist (a CliError naming it and where relative paths start, when it does not). */
export async function existingFile(ctx: McpContext, p: string, what = 'file'): Promise<string> {
  const path = await pathIn(ctx, p, what);
  if (!existsSync(path))
    throw new CliError(`${p}: no such file: check the path (relative paths start at ${ctx.cwd}, the server's working directory)`);
  // The files read beside it by name (a spec's NAME.preamble.txt) are confined as the file is.
  for (const c of companionsOf(path)) await pathIn(ctx, c, 'companion file');
  return path;
}

/** A path argument's schema: where relative paths start, and that it must lie in the allowed folders. */
export const filePath = (what: string) =>
  z
    .string()
    .min(1)
    .describe(`${what}; relative paths start at the server's working directory, and every path must lie in the client's roots (or that folder).`);

/** The run options that are paths (read, or written: `trace`), confined like a tool's own path arguments. */
const PATH_OPTIONS = ['preamble', 'tools', 'trace', 'corpus', 'wordList', 'from'] as const;

/**
 * The run options of a tool's arguments with every path confined and absolute (relative to the option `cwd`,
 * itself confined, else the start folder), the endpoint `art mcp` was started with filled in where the tool names
 * none, and the options only the server's flags set.
 */
export async function confinedRunOptions(ctx: McpContext, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const raw = runOptionsOf(args);
  const folders = await foldersOf(ctx);
  const cwd = typeof raw.cwd === 'string' ? confinedPath(raw.cwd, folders, '"cwd"', ctx.cwd) : ctx.cwd;
  raw.cwd = cwd;
  for (const name of PATH_OPTIONS) {
    const v = raw[name];
    if (typeof v === 'string' && v !== '') raw[name] = confinedPath(v, folders, `"${name}"`, cwd);
  }
  const start = ctx.start ?? {};
  if (raw.baseURL === undefined && start.baseURL !== undefined) raw.baseURL = start.baseURL;
  if (raw.model === undefined && start.model !== undefined) raw.model = start.model;
  raw.apiKeyEnv = keyVariable(ctx);
  if (start.allowUnisolatedCode) raw.allowUnisolatedCode = true;
  if (start.pythonPath) raw.pythonPath = start.pythonPath;
  return raw;
}

/** The one variable the server reads a key from. */
export const keyVariable = (ctx: McpContext): string => ctx.start?.apiKeyEnv ?? 'OPENAI_API_KEY';

/** The origins a key may go to: that of `--base-url`, and each `--key-origin`. */
export function keyOrigins(ctx: McpContext): string[] {
  const start = ctx.start ?? {};
  return [start.baseURL, ...(start.keyOrigins ?? [])].flatMap(u => {
    const o = originOf(u);
    return o ? [o] : [];
  });
}

/**
 * The key a run of `o` gets, and a note when it gets none because its endpoint is not one the server was started to
 * send it to. `needed`: whether the run may call the endpoint at all (apiKey.ts's rule).
 */
export function mcpKey(ctx: McpContext, o: { baseURL?: string }, needed: boolean): { key: string | undefined; note?: string } {
  if (!needed) return { key: undefined };
  const key = ctx.env[keyVariable(ctx)] || undefined;
  if (!key) return { key: undefined };
  const origin = originOf(o.baseURL);
  const allowed = keyOrigins(ctx);
  if (origin && allowed.includes(origin)) return { key };
  return {
    key: undefined,
    note: `key: not sent: the endpoint ${origin ?? o.baseURL ?? '(none)'} is not one art mcp may send the key in ${keyVariable(ctx)} to (${allowed.length ? allowed.join(', ') : 'none'}; start art mcp with --base-url or --key-origin to allow it): the run goes on without a key`,
  };
}

/**
 * Run options the run tools (`run`, `debug_start`) do not take: one run is one program, stepped by the session's
 * tools (search, samples and their budget are `art run`'s; a pause before each tool is debug_start's own).
 */
export const NOT_FOR_MCP_RUN = new Set<RunOptionName>(['search', 'budget', 'samples']);

/**
 * Run options no tool of `art mcp` takes, whatever the command: the key's variable, the interpreter and running code
 * unisolated are fixed by the server's flags (`--api-key-env`, `--python`, `--allow-unisolated-code`).
 */
export const FIXED_BY_SERVER = new Set<RunOptionName>(['apiKeyEnv', 'pythonPath', 'allowUnisolatedCode']);

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
    if (skip.has(name) || FIXED_BY_SERVER.has(name) || NEVER_FROM_MCP.has(name) || name === 'program') continue;
    const s = spec.schema;
    const bare = s instanceof z.ZodDefault ? (s.removeDefault() as z.ZodType) : s;
    shape[name] = bare.optional().describe(MCP_DESCRIPTIONS[name] ?? spec.description);
  }
  return shape;
}

/** Options whose declared description speaks of another shell's rule: here, the rule of `art mcp`. */
const MCP_DESCRIPTIONS: Partial<Record<RunOptionName, string>> = {
  mode: 'Generate with the model endpoint, or replay the model text recorded in the program (an agent: NAME.transcript.txt beside NAME.agent; a MultiTool-CoT prompt: NAME.answer.txt beside NAME.cot.txt; tools run again, no endpoint). Default: replay, unless an endpoint is given (baseURL and model, or art mcp started with --base-url and --model).',
  baseURL:
    "Base URL of the OpenAI-compatible API (default: art mcp's --base-url). The key goes only to the origins art mcp was started with (--base-url, --key-origin): another one gets no key, and the result says so.",
  tools:
    'The workspace tool file (default: .art-tools.json when present). Its tools (commands, HTTP tools, MCP servers) run only when art mcp was started with --allow-tools.',
};

/** The run options among a tool's arguments (the others are the tool's own). */
export function runOptionsOf(args: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(RUN_OPTIONS) as RunOptionName[]) if (args[name] !== undefined && !NEVER_FROM_MCP.has(name)) out[name] = args[name];
  return out;
}

/** What the tool file's tools (commands, HTTP tools, MCP servers) answer when `art mcp` was not started with `--allow-tools`. */
export const TOOLS_NOT_ALLOWED =
  "art mcp was started without --allow-tools, so the tool file's tools (commands, HTTP tools, MCP servers) do not run (start it with --allow-tools to let them)";

/** Why the tool file's commands start nothing in this server's runs, or undefined when `--allow-tools` lets them. */
export const userToolsRefusedOf = (ctx: McpContext): string | undefined => (ctx.start?.allowTools ? undefined : TOOLS_NOT_ALLOWED);

/** The end of a description of a tool that runs programs: whether the tool file's commands run. */
export const toolsSentence = (ctx: McpContext): string =>
  userToolsRefusedOf(ctx) === undefined
    ? " The tool file's tools (commands, HTTP tools, MCP servers) run (art mcp was started with --allow-tools)."
    : " The tool file's tools (commands, HTTP tools, MCP servers) do not run (art mcp was started without --allow-tools).";

/**
 * The largest result, in bytes of its JSON: the SDK's stdio transport drops a client that receives a message over
 * 10 MB, and the text and the structured content repeat each other.
 */
export const MAX_RESULT_BYTES = 4 * 1024 * 1024;

/** `result` with its longest strings cut (each says so) until its JSON fits in `max` bytes. */
export function capResult(result: CallToolResult, max = MAX_RESULT_BYTES): CallToolResult {
  const size = (v: unknown) => Buffer.byteLength(JSON.stringify(v));
  if (size(result) <= max) return result;
  for (let limit = Math.floor(max / 4); limit >= 256; limit = Math.floor(limit / 2)) {
    const capped = mapStrings(result, v =>
      v.length > limit ? `${v.slice(0, limit)}… [${v.length - limit} characters cut: a result is kept under ${max / 2 ** 20} MB]` : v,
    );
    if (size(capped) <= max) return capped;
  }
  return { content: [{ type: 'text', text: `the result is over ${max / 2 ** 20} MB even with every text cut: ask for less` }], isError: true };
}

/** `value` with every string in it (in arrays and objects, at any depth) replaced by `f` of it. */
function mapStrings<T>(value: T, f: (s: string) => string): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return f(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}

/** A tool's result: the text a model reads and the structured content its output schema describes. */
export function toolResult(text: string, structured: Record<string, unknown>, secrets: readonly (string | undefined)[] = []): CallToolResult {
  const keys = secrets.filter((s): s is string => !!s && s.length >= 4);
  return capResult({
    content: [{ type: 'text', text: redact(text, keys) }],
    structuredContent: redact(structured, keys),
  });
}

/** A failure as a result (isError), one line naming the file or option and the fix. */
export function toolError(message: string, secrets: readonly (string | undefined)[] = []): CallToolResult {
  const keys = secrets.filter((s): s is string => !!s && s.length >= 4);
  return capResult({ content: [{ type: 'text', text: redact(message, keys) }], isError: true });
}

/** Every form of a secret (core/common/redact.ts: the key, its body, a masked form) in the strings of `value` redacted. */
export function redact<T>(value: T, secrets: readonly string[]): T {
  if (!secrets.length) return value;
  const redactor = new Redactor(secrets);
  return mapStrings(value, v => redactor.redact(v));
}

/** The errors a user can fix (a file, an option, a dataset): their message is the result; others are the server's. */
export function userError(e: unknown): string | undefined {
  if (isCliError(e) || e instanceof LaunchError || e instanceof EvalDataError || isOwnedFileError(e)) return (e as Error).message;
  return undefined;
}

/**
 * Runs a tool's handler: what it throws becomes a result with isError (one line), never a crash of the server; an
 * error that is not the user's is logged with its stack. `readsKey`: the tool's options may read the key (keysOf),
 * which is then kept out of the error.
 */
export async function guarded(tool: string, ctx: McpContext, readsKey: boolean, work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  const secrets = () => (readsKey ? keysOf(ctx) : []);
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

/** The key a tool's options may read: that of the one variable the server reads (keyVariable). */
export function keysOf(ctx: McpContext): (string | undefined)[] {
  return [ctx.env[keyVariable(ctx)]];
}

/** The shape of a range, 0-based as in LSP. */
export const rangeShape = z.object({
  start: z.object({ line: z.number(), character: z.number() }),
  end: z.object({ line: z.number(), character: z.number() }),
});
