// The tools of an MCP server as ART tools. The server is started over stdio with the SDK's Client and
// StdioClientTransport (environment: the SDK's safe list plus the entry's `env`, so no secret is inherited), its
// tools are listed once, and each becomes an ART tool named by the entry's mapping or `prefix` + the MCP name.
// Input convention: a tool whose input schema has one parameter receives the input text as that parameter; any
// other tool needs the input to be a JSON object of arguments (an empty input is `{}` for a tool without parameters).
// The server runs tied to the host (./containment.ts: it and whatever it starts die with the host, killed with -9
// too), and closing it ends it for sure: its standard input is closed, then it is killed. A server whose tools are
// named without starting it (a `tools` mapping, or a `prefix`) is started lazily, by the first step that calls one of
// its tools (lazyMcpServer), so a server that never answers costs nothing to a run that does not use it.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { normalizeName } from '../art/ast';
import { capText, errorMessage, fail, ok } from './common';
import { containedCommand, detectContainment, findProgram } from './containment';
import type { McpServerConfig } from './toolsFile';
import type { Tool, ToolContext, ToolInput, ToolResult } from './types';
import { resolveCwd, userInfo, userToolEnv, userToolInput } from './userTools';

const CALL_TIMEOUT_MS = 60_000;
const START_TIMEOUT_MS = 20_000;
/** How long a closed server has to exit by itself before it is killed. */
const CLOSE_GRACE_MS = 1000;
const MAX_OUTPUT = 1024 * 1024;

export interface McpConnection {
  label: string;
  tools: Tool[];
  close(): Promise<void>;
}

interface McpToolDescription {
  name: string;
  description?: string;
  inputSchema: { properties?: Record<string, { type?: unknown }>; required?: string[] };
}

/** What arguments an MCP tool gets from an ART input text, or why it cannot. */
export function mcpArguments(tool: McpToolDescription, text: string): { args: Record<string, unknown> } | { error: string } {
  const props = Object.keys(tool.inputSchema.properties ?? {});
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return { args: parsed as Record<string, unknown> };
    } catch {
      /* not JSON: a single-parameter tool still takes it as text */
    }
  }
  if (props.length === 1) return { args: { [props[0]]: text } };
  if (props.length === 0 && !trimmed) return { args: {} };
  return {
    error: `takes the arguments ${props.length ? props.map(p => `"${p}"`).join(', ') : '(none)'}: write the input as a JSON object, e.g. {${props
      .slice(0, 2)
      .map(p => `"${p}": ...`)
      .join(', ')}}`,
  };
}

/** Starts the server and lists its tools. Throws an Error with a one-line message when it cannot. */
export async function connectMcpServer(
  cfg: McpServerConfig,
  opts: { workspaceRoot: string; fileName: string; index: number },
): Promise<McpConnection> {
  const label = mcpLabel(cfg, opts.index);
  const cwd = resolveCwd(opts.workspaceRoot, cfg.cwd);
  const env = userToolEnv(cfg.env);
  const program = findProgram(cfg.command[0], cwd, env);
  // A program that is not there is started as it is, so that the error is spawn's own.
  const line = program
    ? containedCommand(await detectContainment(), program, cfg.command.slice(1))
    : { command: cfg.command[0], args: cfg.command.slice(1) };
  const transport = new StdioClientTransport({ command: line.command, args: line.args, cwd, env, stderr: 'pipe' });
  let stderrTail = '';
  transport.stderr?.on('data', (b: Buffer) => {
    stderrTail = (stderrTail + b.toString('utf8')).slice(-2000);
  });
  const client = new Client({ name: 'art-studio', version: '0.1.0' });
  let pid: number | null = null;
  const close = async () => {
    pid ??= transport.pid;
    // The SDK closes standard input and waits on timers that do not hold the process: bounded here, then killed.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([client.close().catch(() => undefined), new Promise(r => (timer = setTimeout(r, CLOSE_GRACE_MS)))]);
    clearTimeout(timer);
    if (pid !== null)
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
  };
  let listed: McpToolDescription[];
  try {
    await client.connect(transport, { timeout: START_TIMEOUT_MS });
    pid = transport.pid;
    listed = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: START_TIMEOUT_MS });
      listed.push(...(page.tools as McpToolDescription[]));
      cursor = page.nextCursor;
    } while (cursor);
  } catch (e) {
    await close();
    const tail = stderrTail.trim().split('\n').pop();
    throw new Error(
      `${opts.fileName}: the MCP server ${label} did not start: ${errorMessage(e)}${tail ? ` (${tail})` : ''} (fix "command" in ${opts.fileName})`,
    );
  }

  const wanted = cfg.tools;
  const tools: Tool[] = [];
  for (const t of listed) {
    if (wanted && !(t.name in wanted)) continue;
    const name = wanted ? wanted[t.name] : `${cfg.prefix ?? ''}${t.name}`;
    tools.push(mcpTool(name, t, cfg, client));
  }
  if (wanted) {
    const missing = Object.keys(wanted).filter(k => !listed.some(t => t.name === k));
    if (missing.length) {
      await close();
      throw new Error(
        `${opts.fileName}: the MCP server ${label} has no tool ${missing.map(m => `"${m}"`).join(', ')} (fix "tools": it offers ${listed.map(t => `"${t.name}"`).join(', ') || 'none'})`,
      );
    }
  }
  return { label, tools, close };
}

function mcpTool(name: string, t: McpToolDescription, cfg: McpServerConfig, client: Client): Tool {
  const props = Object.keys(t.inputSchema.properties ?? {});
  const info = userInfo(
    name,
    t.description,
    props.length === 1
      ? `Text, passed as the MCP parameter "${props[0]}".`
      : `A JSON object of the MCP arguments ${props.map(p => `"${p}"`).join(', ')}.`,
  );
  return {
    info,
    async run(input: ToolInput, ctx: ToolContext): Promise<ToolResult> {
      const a = mcpArguments(t, userToolInput(input, cfg.input));
      if ('error' in a) return fail(`[${name}] ${a.error}`);
      const timeout = ctx.timeoutMs ?? cfg.timeoutMs ?? CALL_TIMEOUT_MS;
      const started = Date.now();
      try {
        const r = await client.callTool({ name: t.name, arguments: a.args }, undefined, { signal: ctx.signal, timeout });
        const content = (r.content ?? []) as { type: string; text?: string }[];
        const texts = content.filter(c => c.type === 'text' && typeof c.text === 'string').map(c => c.text as string);
        let text = texts.join('\n');
        if (!text && r.structuredContent) text = JSON.stringify(r.structuredContent);
        const facts = { mcpTool: t.name, durationMs: Date.now() - started };
        if (r.isError) return fail(`[${name}] ${text || 'the MCP tool reported an error'}`, { details: facts });
        if (!text) return fail(`[${name}] the MCP tool returned no text`, { details: facts });
        const capped = capText(text, MAX_OUTPUT);
        return ok(capped.text, { ...facts, truncated: capped.truncated });
      } catch (e) {
        if (ctx.signal.aborted) return fail(`[${name}] was cancelled`);
        const msg = errorMessage(e);
        if (/timed out|timeout/i.test(msg)) return fail(`[${name}] timed out after ${timeout / 1000} s`, { timedOut: true });
        return fail(`[${name}] the MCP call failed: ${msg}`);
      }
    },
  };
}

function mcpLabel(cfg: McpServerConfig, index: number): string {
  return cfg.name ?? `tools[${index}] (${cfg.command[0]})`;
}

/** An MCP server started by the first call of one of its tools (see lazyMcpServer). */
export interface LazyMcpServer {
  label: string;
  /** Its tool named `name` (as a step names it), if it can offer one by that name: started when it first runs. */
  toolFor(name: string): Tool | undefined;
  /** The tools its `tools` mapping names (none with a prefix: those are found by toolFor). */
  readonly named: Tool[];
  close(): Promise<void>;
}

/**
 * A server whose tools are named without starting it: by its `tools` mapping, or by a non-empty `prefix` (any step
 * name that begins with it). Undefined for a server that must be started to know its tools' names.
 */
export function lazyMcpServer(cfg: McpServerConfig, opts: { workspaceRoot: string; fileName: string; index: number }): LazyMcpServer | undefined {
  const prefix = cfg.prefix ? normalizeName(cfg.prefix) : '';
  if (!cfg.tools && !prefix) return undefined;
  const label = mcpLabel(cfg, opts.index);
  let started: Promise<McpConnection> | undefined;
  let closed = false;
  const connect = () => (started ??= connectMcpServer(cfg, opts));
  const tools = new Map<string, Tool>();
  const toolFor = (name: string): Tool | undefined => {
    const key = normalizeName(name);
    const mapped = cfg.tools ? Object.values(cfg.tools).find(n => normalizeName(n) === key) : undefined;
    if (!mapped && !(prefix && key.startsWith(prefix) && key.length > prefix.length)) return undefined;
    let tool = tools.get(key);
    if (!tool) {
      const shown = mapped ?? name;
      tool = {
        info: userInfo(shown, undefined, `A tool of the MCP server ${label}, started when a step first calls it.`),
        async run(input: ToolInput, ctx: ToolContext): Promise<ToolResult> {
          if (closed) return fail(`[${shown}] the MCP server ${label} was stopped`);
          let c: McpConnection;
          try {
            c = await connect();
          } catch (e) {
            return fail(`[${shown}] ${errorMessage(e)}`);
          }
          const t = c.tools.find(x => normalizeName(x.info.name) === key);
          if (!t)
            return fail(
              `[${shown}] the MCP server ${label} has no such tool (it offers ${c.tools.map(x => `"${x.info.name}"`).join(', ') || 'none'}; fix the step or "prefix" in ${opts.fileName})`,
            );
          return t.run(input, ctx);
        },
      };
      tools.set(key, tool);
    }
    return tool;
  };
  return {
    label,
    toolFor,
    named: cfg.tools ? Object.values(cfg.tools).map(n => toolFor(n)!) : [],
    async close() {
      closed = true;
      const c = await started?.catch(() => undefined);
      await c?.close();
    },
  };
}
