// `art mcp`'s own flags: what the user fixes for every tool call when the server starts. The client is a coding agent
// that may be prompt-injected, so the folders it may touch, the endpoint and key, whether the tool file's commands
// run, and what a caller may spend (core/agentTools/limits.ts) are decided here, never by a tool's arguments.
import { parseArgs } from 'node:util';
import { isAbsolute, resolve } from 'node:path';
import { originOf } from '../launch/apiKey';
import { CliError } from './files';
import type { McpStart } from './mcpCommon';
import { AGENT_LIMITS, limitHelpLines, limitsFromFlags } from '../agentTools/limits';
import { DEFAULT_SESSION_IDLE_S } from '../agentTools/sessions';

export function mcpUsage(): string {
  const caps = Object.values(AGENT_LIMITS).map(l => `[--${l.flag} ${l.arg}]`);
  return `usage: art mcp [--allow-path DIR]... [--allow-tools] [--base-url URL] [--model M] [--api-key-env NAME]
               [--key-origin URL]... [--session-idle-s S] [--python PATH] [--allow-unisolated-code]
               ${caps.slice(0, 3).join(' ')}
               ${caps.slice(3).join(' ')}
A Model Context Protocol server over stdio for MCP clients (VS Code, Claude Code, ...): its tools are check, run,
test, evaluate, improve, show_prompt, compare, constrain and the stepping session debug_start, debug_state,
debug_set_output, debug_continue, debug_step_back and debug_stop. Every path a tool takes must lie in the roots the
client declares, else in the folder it starts the server in (a model file: or in the models folder); relative paths
start at that folder.
  --allow-path DIR        also allow the paths under DIR (repeatable)
  --allow-tools           let the tool file's tools (commands, HTTP tools, MCP servers) run (they do not, by default)
  --base-url URL          the endpoint runs generate with when a tool names none; the key may go to its origin
  --model M               the model it serves
  --api-key-env NAME      the environment variable holding the key (default OPENAI_API_KEY); no tool can name another
  --key-origin URL        another origin (scheme, host, port) the key may go to (repeatable)
  --session-idle-s S      stop a stepping session nobody drives for S seconds (default ${DEFAULT_SESSION_IDLE_S})
  --python PATH           the Python interpreter of the code tools
  --allow-unisolated-code run model-written code where no network namespace can be made
What a caller may spend (a value a tool gives past its cap is lowered to it, and the result's notes say so):
${limitHelpLines()
  .map(([flag, help]) => `  ${flag.padEnd(25)} ${help}`)
  .join('\n')}
A base URL a tool gives whose origin is not allowed gets no key, and the result says so. docs/mcp.md shows how to
register the server.`;
}

/** The flags of `art mcp`, as the server's fixed settings (a CliError naming the flag when one is wrong). */
export function mcpStartFlags(argv: string[], cwd: string): McpStart & { help?: boolean } {
  let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        help: { type: 'boolean', short: 'h' },
        'allow-path': { type: 'string', multiple: true },
        'allow-tools': { type: 'boolean' },
        'base-url': { type: 'string' },
        model: { type: 'string' },
        'api-key-env': { type: 'string' },
        'key-origin': { type: 'string', multiple: true },
        'session-idle-s': { type: 'string' },
        python: { type: 'string' },
        'allow-unisolated-code': { type: 'boolean' },
        ...Object.fromEntries(Object.values(AGENT_LIMITS).map(l => [l.flag, { type: 'string' as const }])),
      },
    }));
  } catch (e) {
    throw new CliError(`art mcp: ${(e as Error).message.split(/\.\s|\n/)[0]} (art mcp --help lists the flags)`);
  }
  if (positionals.length) throw new CliError(`art mcp: unexpected argument "${positionals[0]}": art mcp takes only flags (art mcp --help)`);
  const str = (k: string) => values[k] as string | undefined;
  const list = (k: string) => (values[k] as string[] | undefined) ?? [];
  for (const u of [str('base-url'), ...list('key-origin')])
    if (u !== undefined && !originOf(u)) throw new CliError(`art mcp: "${u}" is not an http:// or https:// URL (--base-url, --key-origin)`);
  const env = str('api-key-env');
  if (env !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(env))
    throw new CliError(`art mcp: --api-key-env: "${env}" is not an environment variable name`);
  const idle = str('session-idle-s');
  const idleS = idle === undefined ? DEFAULT_SESSION_IDLE_S : Number(idle);
  if (!Number.isFinite(idleS) || idleS <= 0 || idleS > 2 ** 31 / 1000)
    throw new CliError(`art mcp: --session-idle-s: expected a number of seconds above 0, not "${idle}"`);
  const limits = limitsFromFlags(values);
  if (typeof limits === 'string') throw new CliError(`art mcp: ${limits}`);
  return {
    help: values.help === true,
    allowPaths: list('allow-path').map(p => (isAbsolute(p) ? p : resolve(cwd, p))),
    allowTools: values['allow-tools'] === true,
    baseURL: str('base-url'),
    model: str('model'),
    apiKeyEnv: env,
    keyOrigins: list('key-origin'),
    sessionIdleMs: idleS * 1000,
    pythonPath: str('python'),
    allowUnisolatedCode: values['allow-unisolated-code'] === true,
    limits,
  };
}
