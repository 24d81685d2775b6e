// What `art mcp` supplies to the agent tools (core/agentTools/tool.ts, ToolHost): paths confined to the client's
// roots (mcpPaths.ts), a model file to them or the models folder, the run options a caller gives lowered to the
// server's caps and completed by its flags (the endpoint, the key's variable, the interpreter), the key sent only to
// the origins fixed at start, progress as MCP notifications, and its own stepping sessions.
import { resolve } from 'node:path';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { isInside, realPath } from '../common/folders';
import { modelsFolder } from '../model/modelFiles';
import { workspaceDefaults } from '../tools/registry';
import type { RunOptionName } from '../launch/options';
import { originOf } from '../launch/apiKey';
import { capInputs, defaultLimits, type AgentLimits, type RunSlots } from '../agentTools/limits';
import { PATH_OPTIONS, runOptionsOf } from '../agentTools/runOptions';
import type { HeadlessSessions } from '../agentTools/sessions';
import type { ToolHost } from '../agentTools/tool';
import { DEFAULT_CONCURRENCY } from '../agentTools/evaluate';
import { DEFAULT_RUNS_FOLDER } from '../settings/settings';
import { CliError } from './files';
import { confinedPath } from './mcpPaths';
import { replayUnlessEndpoint } from './optionFlags';

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
  /** `--max-context-size`, `--max-runs`, ...: what a caller may spend (core/agentTools/limits.ts). */
  limits?: AgentLimits;
}

/** What the server knows when a tool is called: where relative paths start, the environment, a log on stderr. */
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

/** What a tool call brings: the request's cancellation and its progress token. */
export type McpExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** The folders of `ctx` (the start folder alone when the server set none). */
const foldersOf = async (ctx: McpContext) => (ctx.folders ? ctx.folders() : [ctx.cwd]);

/** The caps of the server: its flags', else the defaults. */
export const limitsOf = (ctx: McpContext): AgentLimits => ctx.start?.limits ?? defaultLimits();

/** The host of one tool call of the server. */
export function mcpHost(ctx: McpContext, extra: McpExtra, sessions: HeadlessSessions, slots: RunSlots): ToolHost {
  const keys: string[] = [];
  const token = extra._meta?.progressToken;
  return {
    cwd: ctx.cwd,
    cwdShown: `${ctx.cwd}, the server's working directory`,
    path: async (given, what) => confinedPath(given, await foldersOf(ctx), what, ctx.cwd),
    activeFile: () => undefined,
    runOptions: async (args, program) => {
      const { values, notes } = capInputs(args, limitsOf(ctx), flag => `art mcp --${flag}`);
      const raw = await confinedRunOptions(ctx, values);
      if (program !== undefined) raw.program = program;
      replayUnlessEndpoint(raw);
      return { raw, args: values, notes };
    },
    label: mcpLabel,
    key: async (o, needed) => {
      const k = mcpKey(ctx, o, needed);
      if (k.key) keys.push(k.key);
      return k;
    },
    chatModel: async () => undefined,
    secrets: () => [...keysOf(ctx), ...keys, ...sessions.keys()].filter((k): k is string => !!k),
    userToolsRefused: userToolsRefusedOf(ctx),
    trusted: true,
    telemetryEnv: ctx.env,
    limits: limitsOf(ctx),
    runs: { folder: DEFAULT_RUNS_FOLDER, gitignore: true },
    concurrency: Math.min(DEFAULT_CONCURRENCY, limitsOf(ctx).concurrency),
    slots,
    signal: extra.signal,
    progress: (message, done, total) => {
      if (token === undefined) return;
      void extra
        .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: done ?? 0, total, message } })
        .catch(() => {});
    },
    log: line => ctx.log(`art mcp: ${line}`),
    sessions,
  };
}

/**
 * The run options of a tool's arguments with every path confined and absolute (relative to the option `cwd`,
 * itself confined, else the start folder), a model file confined to the roots or the models folder, the endpoint
 * `art mcp` was started with filled in where the tool names none, and the options only the server's flags set.
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
  if (typeof raw.modelFile === 'string' && raw.modelFile !== '') raw.modelFile = confinedModelFile(ctx, raw.modelFile, folders, cwd);
  for (const d of workspaceDefaults(cwd, raw)) confinedPath(d, folders, "the workspace's default", cwd);
  const start = ctx.start ?? {};
  if (raw.baseURL === undefined && start.baseURL !== undefined) raw.baseURL = start.baseURL;
  if (raw.model === undefined && start.model !== undefined) raw.model = start.model;
  raw.apiKeyEnv = keyVariable(ctx);
  if (start.allowUnisolatedCode) raw.allowUnisolatedCode = true;
  if (start.pythonPath) raw.pythonPath = start.pythonPath;
  return raw;
}

/**
 * A model file a caller names: its real path when it lies in the allowed folders or the models folder, else one
 * message whatever the reason, naming only the path as given: whether a file outside is there, is a GGUF file or is a
 * link is never said, so the answer tells nothing of the rest of the disk.
 */
export function confinedModelFile(ctx: McpContext, given: string, folders: readonly string[], from: string): string {
  const models = modelsFolder(ctx.env);
  const real = realPath(resolve(from, given));
  if ([...folders, realPath(models)].some(f => isInside(f, real))) return real;
  throw new CliError(
    `"modelFile" ${given}: not a model file art mcp may load: give a .gguf file in the client's roots (${folders.join(', ')}) or in the models folder (${models}), or start art mcp with --allow-path DIR`,
  );
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

/** How an option is named in an error: as the tool's input names it. */
export const mcpLabel =
  (fileField: string) =>
  (name: RunOptionName): string =>
    name === 'program' ? `"${fileField}"` : `"${name}"`;

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

/** The key a tool's options may read: that of the one variable the server reads (keyVariable). */
export function keysOf(ctx: McpContext): (string | undefined)[] {
  return [ctx.env[keyVariable(ctx)]];
}
