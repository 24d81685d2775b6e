// The tool library of one run: the built-in tools plus the workspace's user tools, looked up by step name.
// Names match as the ToolCatalog matches them (case-insensitive, runs of spaces folded), except that an exact
// spelling wins first, so ReACT's `Search`/`Lookup` and ART's `search`/`lookup` stay distinct tools. User tools
// take precedence over built-ins of the same name. In an untrusted workspace nothing runs: every tool answers
// with an error, MCP servers are not started, and only names known without running anything are listed.
import { existsSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { plural } from '../common/counts';
import { linkProblem } from '../common/ownedFiles';
import { normalizeName } from '../art/ast';
import { BUILTIN_TOOLS, ToolCatalog, type ToolInfo } from '../art/knownTools';
import { createCalculatorTool } from './calculator';
import { createLlmTools } from './codegen';
import { fail } from './common';
import { createLookupTool } from './lookup';
import { connectMcpServer, lazyMcpServer, type LazyMcpServer, type McpConnection } from './mcpTools';
import { createCodeExecuteTool, createExecuteTool } from './python';
import { createReactTools } from './react';
import { detectIsolation, isolationNote, type IsolationLevel, type SandboxLimits } from './sandbox';
import { createSearchTool } from './search';
import { loadToolsFile, staticNames, TOOLS_FILE_NAME } from './toolsFile';
import type { Tool } from './types';
import { createCommandTool, createHttpTool, userInfo } from './userTools';

export interface ToolRegistryOptions {
  /** Workspace folder; relative paths below resolve against it. */
  workspaceRoot: string;
  /** Document folder for `search` and ReACT `Search`/`Lookup` (default `examples/corpus`). */
  corpusDir?: string;
  /** Interpreter for the Python tools (default /usr/bin/python3). */
  pythonPath?: string;
  /** The workspace tool file (default `.art-tools.json`); an explicitly given file must exist. */
  toolsFile?: string;
  /** Whether the workspace is trusted: when false, no tool runs. */
  trusted: boolean;
  /** Word list for `lookup` (default /usr/share/dict/words). */
  wordListPath?: string;
  /** Rerank `search` results by the model's NLL. */
  searchRerank?: boolean;
  /** Limits for the Python sandbox. */
  pythonLimits?: Partial<SandboxLimits>;
  /** Run Python code even where no network namespace can be made (refused otherwise). */
  allowUnisolatedCode?: boolean;
  /** The sandbox's isolation level instead of the detected one (tests). */
  isolation?: IsolationLevel;
  /**
   * When set, the tool file's tools (commands, HTTP tools, MCP servers) run nothing: each is listed by the names the
   * file states and answers with this sentence (building a prompt; `art mcp` without `--allow-tools`: an HTTP tool
   * would send what the model wrote to a host the workspace names).
   */
  userToolsRefused?: string;
}

export interface ToolRegistry {
  get(name: string): Tool | undefined;
  /** Built-in and user tool names, for completion, hover and the `tool-name-typo` check. */
  catalog(): ToolCatalog;
  /** One line each: tool file errors and MCP servers that did not start. */
  readonly problems: readonly string[];
  /** What the run says first: the Python sandbox's isolation level and what it does not isolate. */
  readonly notes: readonly string[];
  /** Stops MCP servers. */
  dispose(): Promise<void>;
}

export const UNTRUSTED_MESSAGE =
  'Tools do not run in an untrusted workspace: trust the workspace (command "Workspaces: Manage Workspace Trust") to run';

/**
 * The search corpus when none is configured: the workspace's own `corpus/` folder (a workspace like examples/),
 * else `examples/corpus/` (this repository's layout).
 */
export function defaultCorpus(root: string): string {
  const own = join(root, 'corpus');
  return existsSync(own) ? own : join(root, 'examples/corpus');
}

/**
 * What a run reads from its workspace when its options name neither: the tool file and the search corpus, those there
 * (a link counts, dangling or not). A shell that confines the paths it is given (`art mcp`) confines these as well:
 * a workspace's `corpus -> ~/Documents` would otherwise be searched, and its text quoted in the run's result.
 */
export function workspaceDefaults(root: string, options: { tools?: unknown; corpus?: unknown }): string[] {
  const paths = [...(options.tools ? [] : [join(root, TOOLS_FILE_NAME)]), ...(options.corpus ? [] : [defaultCorpus(root)])];
  return paths.filter(p => existsSync(p) || linkProblem(p) !== null);
}

const foldSpaces = (name: string) => name.trim().replace(/\s+/g, ' ');

export async function createToolRegistry(opts: ToolRegistryOptions): Promise<ToolRegistry> {
  const root = resolve(opts.workspaceRoot);
  const at = (p: string) => (isAbsolute(p) ? p : resolve(root, p));
  const corpusDir = opts.corpusDir ? at(opts.corpusDir) : defaultCorpus(root);
  const toolsPath = at(opts.toolsFile ?? TOOLS_FILE_NAME);
  const fileName = relative(root, toolsPath).startsWith('..') ? toolsPath : relative(root, toolsPath) || TOOLS_FILE_NAME;
  const problems: string[] = [];
  const connections: McpConnection[] = [];
  const lazy: LazyMcpServer[] = [];

  const loaded = await loadToolsFile(toolsPath, { displayName: fileName, required: opts.toolsFile !== undefined });
  problems.push(...loaded.errors, ...(loaded.warnings ?? []));

  const userTools: Tool[] = [];
  const userInfos: ToolInfo[] = [];
  const notStarted = opts.trusted && opts.userToolsRefused !== undefined ? (loaded.config?.tools ?? []) : [];
  if (notStarted.length)
    problems.push(
      `${fileName}: its ${plural(notStarted.length, 'entry', 'entries')} (${notStarted.map(t => (t.kind === 'mcp' ? `MCP server ${t.command.join(' ')}` : t.name)).join(', ')}) ${notStarted.length === 1 ? 'does' : 'do'} not run: ${opts.userToolsRefused}`,
    );
  if (loaded.config) {
    for (const [index, entry] of loaded.config.tools.entries()) {
      if (!opts.trusted) {
        // Only what the file states; starting an MCP server to list its tools would run workspace code.
        for (const name of staticNames(entry))
          userInfos.push(userInfo(name, entry.kind === 'mcp' ? undefined : entry.description, 'Workspace tool (runs only in a trusted workspace).'));
        continue;
      }
      if (opts.userToolsRefused !== undefined) {
        for (const name of staticNames(entry))
          userTools.push(
            refused(
              userInfo(name, entry.kind === 'mcp' ? undefined : entry.description, 'Workspace tool (not started here).'),
              opts.userToolsRefused,
            ),
          );
        continue;
      }
      if (entry.kind === 'command') userTools.push(createCommandTool(entry, { workspaceRoot: root, fileName }));
      else if (entry.kind === 'http') userTools.push(createHttpTool(entry));
      else {
        // Started by the first step that calls one of its tools, where its tools are named without starting it.
        const later = lazyMcpServer(entry, { workspaceRoot: root, fileName, index });
        if (later) {
          lazy.push(later);
          userTools.push(...later.named);
          continue;
        }
        try {
          const c = await connectMcpServer(entry, { workspaceRoot: root, fileName, index });
          connections.push(c);
          userTools.push(...c.tools);
        } catch (e) {
          problems.push((e as Error).message);
        }
      }
    }
  }

  const isolation = opts.isolation ?? (await detectIsolation());
  const python = { pythonPath: opts.pythonPath, limits: opts.pythonLimits, isolation, allowUnisolated: opts.allowUnisolatedCode };
  const react = createReactTools({ corpusDir });
  const builtins: Tool[] = [
    createSearchTool({ corpusDir, rerank: opts.searchRerank }),
    ...createLlmTools(python),
    createCodeExecuteTool(python),
    createExecuteTool(python),
    createLookupTool({ wordListPath: opts.wordListPath }),
    createCalculatorTool(),
    react.search,
    react.lookup,
  ];

  const exact = new Map<string, Tool>();
  const folded = new Map<string, Tool>();
  const seenUser = new Set<string>();
  for (const t of userTools) {
    const key = normalizeName(t.info.name);
    if (seenUser.has(key)) {
      problems.push(`${fileName}: two tools are named "${t.info.name}" (fix: rename one, or map MCP tool names with "tools")`);
      continue;
    }
    seenUser.add(key);
  }
  for (const t of [...userTools, ...builtins]) {
    const tool = opts.trusted ? t : untrusted(t.info);
    if (!exact.has(foldSpaces(t.info.name))) exact.set(foldSpaces(t.info.name), tool);
    if (!folded.has(normalizeName(t.info.name))) folded.set(normalizeName(t.info.name), tool);
  }
  for (const info of userInfos) {
    const tool = untrusted(info);
    if (!exact.has(foldSpaces(info.name))) exact.set(foldSpaces(info.name), tool);
    if (!folded.has(normalizeName(info.name))) folded.set(normalizeName(info.name), tool);
  }

  /** A tool of a server started lazily whose prefix the name begins with (the first such server). */
  const lazyTool = (name: string): Tool | undefined => {
    for (const server of lazy) {
      const t = server.toolFor(name);
      if (t) return opts.trusted ? t : untrusted(t.info);
    }
    return undefined;
  };
  const catalogInfos = [...BUILTIN_TOOLS, ...userTools.map(t => t.info), ...userInfos];
  return {
    get: name => exact.get(foldSpaces(name)) ?? folded.get(normalizeName(name)) ?? lazyTool(name),
    catalog: () => new ToolCatalog(catalogInfos),
    problems,
    notes: [isolationNote(isolation, opts.allowUnisolatedCode)],
    async dispose() {
      // Every server is stopped even when one fails; the failures together, after.
      const ends = await Promise.allSettled([...connections.splice(0).map(c => c.close()), ...lazy.splice(0).map(c => c.close())]);
      const failed = ends.flatMap(r => (r.status === 'rejected' ? [r.reason instanceof Error ? r.reason.message : String(r.reason)] : []));
      if (failed.length) throw new Error(failed.join('; '));
    },
  };
}

function untrusted(info: ToolInfo): Tool {
  return refused(info, UNTRUSTED_MESSAGE);
}

/** A tool that does not run: every call fails with `why` and its name. */
function refused(info: ToolInfo, why: string): Tool {
  return {
    info,
    run: async () => fail(`${why} [${info.name}].`),
  };
}
