// `art mcp`: a Model Context Protocol server over stdio (the official SDK) for any MCP client, one of the two shells
// of the agent tools (core/agentTools/): each tool of their catalog is registered under its name with its input and
// output schemas, and called with the host of mcpCommon.ts. The trust rules are the CLI's: everything runs as `art
// run` runs it (model-written code in the Python sandbox), the key only from the environment variable `apiKeyEnv`
// names, never in a result; what a caller may spend is capped by the server's flags. Relative paths start at the
// server's working directory (MCP clients start it in the workspace).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { RootsListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { AGENT_TOOLS } from '../agentTools/catalog';
import { invokeTool } from '../agentTools/invoke';
import { RunSlots } from '../agentTools/limits';
import { HeadlessSessions } from '../agentTools/sessions';
import type { AgentTool, ToolAnswer } from '../agentTools/tool';
import { keyVariable, limitsOf, mcpHost, toolsSentence, type McpContext, type McpExtra, type McpStart } from './mcpCommon';
import { allowedFolders } from './mcpPaths';
import { mcpStartFlags, mcpUsage } from './mcpStart';
import { version as VERSION } from '../../package.json';

export { mcpUsage };

/** The client's roots (`roots/list`), asked again when it says they changed; undefined when it declares none. */
function clientRoots(server: McpServer): () => Promise<readonly string[] | undefined> {
  let asked: Promise<readonly string[] | undefined> | undefined;
  server.server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
    asked = undefined;
  });
  return () => {
    if (!server.server.getClientCapabilities()?.roots) return Promise.resolve(undefined);
    return (asked ??= server.server.listRoots().then(
      r => r.roots.map(x => x.uri),
      () => {
        asked = undefined;
        return [];
      },
    ));
  };
}

/** An answer as MCP's result: the text, and the structured content its output schema describes (none on an error). */
function callResult(a: ToolAnswer): CallToolResult {
  if (a.isError) return { content: [{ type: 'text', text: a.text }], isError: true };
  return { content: [{ type: 'text', text: a.text }], ...(a.structured ? { structuredContent: a.structured } : {}) };
}

/**
 * The server with every tool registered; `sessions` are its stepping sessions, `slots` its places for calls that run
 * programs (--max-runs); `close` (also called when the connection closes) stops the stepping sessions.
 */
export function createArtMcpServer(ctx: McpContext): { server: McpServer; sessions: HeadlessSessions; slots: RunSlots; close(): Promise<void> } {
  const server = new McpServer({ name: 'art', version: VERSION }, { capabilities: { tools: {}, logging: {} } });
  const roots = clientRoots(server);
  ctx = { ...ctx, folders: () => allowedFolders({ cwd: ctx.cwd, allowPaths: ctx.start?.allowPaths ?? [], clientRoots: roots }) };
  const sessions = new HeadlessSessions({ idleMs: ctx.start?.sessionIdleMs, log: ctx.log });
  const slots = new RunSlots(limitsOf(ctx).runs);
  for (const tool of AGENT_TOOLS) register(server, tool, ctx, sessions, slots);
  // The client went (the transport closed): every session stops, its tools and sandbox with it.
  let closing: Promise<void> | undefined;
  const close = () => (closing ??= sessions.stopAll());
  server.server.onclose = () => void close();
  return { server, sessions, slots, close };
}

function register(server: McpServer, tool: AgentTool, ctx: McpContext, sessions: HeadlessSessions, slots: RunSlots): void {
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description + (tool.userTools ? toolsSentence(ctx) : ''),
      inputSchema: tool.input,
      outputSchema: tool.output,
    },
    async (args: Record<string, unknown>, extra: McpExtra) => callResult(await invokeTool(tool, args, mcpHost(ctx, extra, sessions, slots))),
  );
}

export interface McpIo {
  err: (line: string) => void;
  out: (line: string) => void;
  env?: NodeJS.ProcessEnv;
}

/** `art mcp`: serves on stdin/stdout until the client closes the connection; every session is stopped then. */
export async function mcpCommand(argv: string[], io: McpIo): Promise<number> {
  const { help, ...start } = mcpStartFlags(argv, process.cwd());
  if (help) {
    io.out(mcpUsage());
    return 0;
  }
  const ctx: McpContext = { cwd: process.cwd(), env: io.env ?? process.env, log: io.err, start: start satisfies McpStart };
  const { server, close } = createArtMcpServer(ctx);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>(resolve => (transport.onclose = resolve));
  await server.connect(transport);
  // The client going away closes stdin: the transport does not notice that by itself.
  process.stdin.once('end', () => void transport.close());
  io.err(
    `art mcp: serving on stdio (working directory ${ctx.cwd}; the tool file's tools ${start.allowTools ? 'allowed' : 'not started: --allow-tools'}; the key in ${keyVariable(ctx)} goes to ${[start.baseURL, ...(start.keyOrigins ?? [])].filter(Boolean).join(', ') || 'no endpoint: --base-url, --key-origin'})`,
  );
  await closed;
  await close();
  return 0;
}
