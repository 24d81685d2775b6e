// The workspace tool file, `.art-tools.json`: user tools that are a command line, an HTTP endpoint, or the tools of
// an MCP server. Validated with zod; the same schema, converted to JSON Schema, is schemas/art-tools.schema.json
// (editor completion through `contributes.jsonValidation`). Every loading error is one line naming the file, the
// place in it and the fix.
import { findNodeAtLocation, parseTree } from 'jsonc-parser';
import { z } from 'zod';
import { normalizeName } from '../art/ast';
import type { ToolInfo } from '../art/knownTools';
import { readTextFile, TextFileError } from '../common/textFile';
import { codeFromText, optionArguments, readsStdin } from './commandTemplate';

export const TOOLS_FILE_NAME = '.art-tools.json';

const toolName = z
  .string()
  .min(1)
  .regex(/^[^\]\r\n]+$/, 'a tool name cannot contain "]" or a line break')
  .describe('The name written in a step, `Qk: [name] ...`; compared case-insensitively with runs of spaces folded.');

const inputMode = z
  .enum(['instruction', 'previousAnswer', 'both'])
  .describe(
    "What the tool receives as its input: the step's instruction (default), the previous answer, or both (instruction, a blank line, then the previous answer).",
  );

const timeoutMs = z.number().int().positive().max(600_000).describe('Milliseconds before the tool is stopped.');

const env = z
  .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string())
  .describe(
    'Extra environment variables. Nothing else is inherited but PATH, HOME, USER, LOGNAME, SHELL and TERM, so no secret reaches the tool unless written here.',
  );

const cwd = z.string().min(1).describe('Working directory, relative to the workspace folder (default: the workspace folder).');

const argv = z
  .array(z.string())
  .min(1)
  .describe(
    'The program and its arguments, not run through a shell. Placeholders: {input}, {instruction}, {previousAnswer}. Safe form: each placeholder an argument of its own (["python3", "tool.py", "{input}"]) or the input on standard input. Warned about: code built from the model\'s text (["sh", "-c", "tool {input}"], ["bash", "-lc", "..."], ["python3", "-c", "print(\'{input}\')"], also behind env, sudo, timeout, nice, busybox or xargs), which lets the model run any command, and a placeholder before other arguments with no "--" ahead of it (["sort", "{input}", "list.txt"]). Every argument that begins with a placeholder ({input}, {input}.txt) is kept from being read as an option: when its value starts with "-", "--" is passed before it, and the call is refused when a fixed option follows it; an interpreter\'s code and the arguments after it (sh -c \'...\' sh {input}) are the code\'s own and left as they are.',
  );

export const commandToolSchema = z
  .object({
    kind: z.literal('command'),
    name: toolName,
    description: z.string().optional().describe('Shown in completion and hover.'),
    command: argv,
    stdin: z
      .boolean()
      .optional()
      .describe('Write the input to the command\'s standard input. Default: true when no placeholder appears in "command".'),
    input: inputMode.optional(),
    cwd: cwd.optional(),
    env: env.optional(),
    timeoutMs: timeoutMs.optional(),
  })
  .strict()
  .describe("A command line: its standard output is the tool's answer; a non-zero exit code is an error.");

export const httpToolSchema = z
  .object({
    kind: z.literal('http'),
    name: toolName,
    description: z.string().optional().describe('Shown in completion and hover.'),
    url: z
      .string()
      .regex(/^https?:\/\/\S+$/, 'expected an http:// or https:// URL')
      .describe(
        'Receives a POST with the JSON body {"tool", "instruction", "previousAnswer"}; replies with text, or JSON {"output": "..."} (or {"error": "..."}). Redirects are not followed (the headers would go to another host): a 3xx is a tool error naming its Location.',
      ),
    headers: z.record(z.string(), z.string()).optional().describe('Extra request headers.'),
    timeoutMs: timeoutMs.optional(),
  })
  .strict()
  .describe('An HTTP endpoint.');

export const mcpServerSchema = z
  .object({
    kind: z.literal('mcp'),
    name: z.string().min(1).optional().describe('A label for the server in messages.'),
    command: argv.describe('The program that starts the MCP server over stdio, and its arguments.'),
    cwd: cwd.optional(),
    env: env.optional(),
    prefix: z.string().optional().describe('Put before each MCP tool\'s name to make its ART tool name, e.g. "fs " makes [fs read_file].'),
    tools: z
      .record(z.string(), toolName)
      .optional()
      .describe(
        'MCP tool name to ART tool name. When given, only these tools are used, and their names are known without starting the server (completion in untrusted workspaces).',
      ),
    input: inputMode.optional(),
    timeoutMs: timeoutMs.optional(),
  })
  .strict()
  .describe(
    'The tools of an MCP server started over stdio. A tool with one parameter receives the input as that parameter; otherwise the input must be a JSON object of arguments.',
  );

export const toolsFileSchema = z
  .object({
    $schema: z.string().optional(),
    tools: z.array(z.discriminatedUnion('kind', [commandToolSchema, httpToolSchema, mcpServerSchema])).describe("The workspace's tools."),
  })
  .strict()
  .describe('ART Studio workspace tools');

export type CommandToolConfig = z.infer<typeof commandToolSchema>;
export type HttpToolConfig = z.infer<typeof httpToolSchema>;
export type McpServerConfig = z.infer<typeof mcpServerSchema>;
export type ToolsFile = z.infer<typeof toolsFileSchema>;
export type ToolEntry = ToolsFile['tools'][number];

/** The JSON Schema shipped as schemas/art-tools.schema.json (draft-07, what VS Code's JSON service reads best). */
export function toolsFileJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(toolsFileSchema, { target: 'draft-7' }),
    title: 'ART Studio workspace tools (.art-tools.json)',
  };
}

export interface LoadedToolsFile {
  /** null when the file is absent or invalid. */
  config: ToolsFile | null;
  /** One line each: `FILE: tools[1].command: problem (fix: ...)`. */
  errors: string[];
  /** What is allowed but unsafe (a shell line built from the model's text), one line each like the errors. */
  warnings?: string[];
  /** Where in the file each error and warning is, for diagnostics on the tool file. */
  problems?: ToolFileProblem[];
  /** The file's text, when it was read (to place the problems). */
  text?: string;
}

/** An error or warning of the tool file with its place in the text (offsets; end exclusive). */
export interface ToolFileProblem {
  severity: 'error' | 'warning';
  message: string;
  start: number;
  end: number;
}

/**
 * The arguments (indices) that begin with a placeholder and come before other arguments, with no "--" ahead of them,
 * where the program reads options (commandTemplate.ts): the model's text there is read as an option when it starts
 * with "-" (`["sort", "{input}", "list.txt"]` with `--output=list.txt`). The runner passes "--" before it then, or
 * refuses the call when a fixed option follows; the last argument is as safe, and not warned about.
 */
export function placeholdersReadAsOptions(command: readonly string[]): number[] {
  return optionArguments(command).filter(k => k < command.length - 1);
}

/**
 * How the tool is described in hover, completion and the runner: its own description, else what it does. One wording
 * for the language server (which starts nothing) and the runner.
 */
export function describeTool(entry: ToolEntry, name: string): ToolInfo {
  const input = INPUT_DOC[('input' in entry && entry.input) || 'instruction'];
  switch (entry.kind) {
    case 'command': {
      const stdin = readsStdin(entry.command, entry.stdin);
      const what = `Runs \`${entry.command.join(' ')}\`${stdin ? ' with the input on standard input' : ''}; the answer is what it prints.`;
      return { name, origin: 'user', description: entry.description ?? what, input };
    }
    case 'http':
      return {
        name,
        origin: 'user',
        description: entry.description ?? `POSTs the step as JSON to ${safeOrigin(entry.url)}; the reply (text, or JSON "output") is the answer.`,
        input,
      };
    default:
      return {
        name,
        origin: 'user',
        description: `A tool of the MCP server${entry.name ? ` "${entry.name}"` : ''} (\`${entry.command.join(' ')}\`).`,
        input,
      };
  }
}

const INPUT_DOC: Record<string, string> = {
  instruction: "The step's instruction.",
  previousAnswer: 'The previous answer.',
  both: "The step's instruction, a blank line, then the previous answer.",
};

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** Reads and validates a tool file. A missing file is no error unless `required`. */
export async function loadToolsFile(path: string, opts: { displayName?: string; required?: boolean } = {}): Promise<LoadedToolsFile> {
  const shown = opts.displayName ?? path;
  let text: string;
  try {
    // Checked before it is read: a named pipe in its place would block the run and the server's diagnostics forever.
    text = readTextFile(path);
  } catch (e) {
    if (!(e instanceof TextFileError)) throw e;
    if (e.kind === 'missing' && !opts.required) return { config: null, errors: [] };
    const unread = e.kind === 'missing' || e.kind === 'unreadable';
    const problem = unread
      ? `cannot be read (${e.code ?? e.message}) (fix: check the path of the tool file)`
      : `${e.message} (fix: make it a regular JSON file)`;
    return { config: null, errors: [`${shown}: ${problem}`] };
  }
  return { ...parseToolsFile(text, shown), text };
}

export function parseToolsFile(text: string, shown: string): LoadedToolsFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    const m = /position (\d+)/.exec((e as Error).message);
    const where = m ? ` at ${lineColumn(text, Number(m[1]))}` : '';
    return {
      config: null,
      errors: [`${shown}${where}: invalid JSON: ${(e as Error).message.replace(/ in JSON at position \d+.*$/, '')} (fix: correct the JSON syntax)`],
    };
  }
  const tree = parseTree(text);
  const problems: ToolFileProblem[] = [];
  const place = (path: PropertyKey[], severity: ToolFileProblem['severity'], message: string) => {
    let node =
      tree &&
      findNodeAtLocation(
        tree,
        path.filter((p): p is string | number => typeof p !== 'symbol'),
      );
    for (let up = path.length; !node && tree && up > 0; up--)
      node = findNodeAtLocation(
        tree,
        path.slice(0, up - 1).filter((p): p is string | number => typeof p !== 'symbol'),
      );
    problems.push({ severity, message, start: node?.offset ?? 0, end: node ? node.offset + node.length : 0 });
  };
  const parsed = toolsFileSchema.safeParse(json);
  if (!parsed.success) {
    const errors = parsed.error.issues.map(issue => {
      const message = `${formatPath(issue.path)}: ${issue.message} (fix: ${fixFor(issue)})`;
      place(issue.path, 'error', message);
      return `${shown}: ${message}`;
    });
    return { config: null, errors, problems };
  }
  const errors: string[] = [];
  const warnings: string[] = [];
  const seen = new Map<string, string>();
  parsed.data.tools.forEach((t, i) => {
    for (const name of staticNames(t)) {
      const key = normalizeName(name);
      const first = seen.get(key);
      if (first) {
        const message = `tools[${i}]: the tool name "${name}" is already declared at ${first} (fix: rename one of them)`;
        errors.push(`${shown}: ${message}`);
        place(['tools', i, 'name'], 'error', message);
      } else seen.set(key, `tools[${i}]`);
    }
    if (t.kind === 'http') {
      try {
        new URL(t.url);
      } catch {
        const message = `tools[${i}].url: "${t.url}" is not a valid URL (fix: write a full URL such as http://127.0.0.1:8080/tool)`;
        errors.push(`${shown}: ${message}`);
        place(['tools', i, 'url'], 'error', message);
      }
    }
    const asCode = t.kind === 'command' ? codeFromText(t.command, readsStdin(t.command, t.stdin)) : undefined;
    if (asCode) {
      const message = `tools[${i}].command: ${asCode} (fix: pass each placeholder as an argument of its own, ["python3", "tool.py", "{input}"], or give the input on standard input${asCode.startsWith('xargs') ? ' to a program that reads it there' : ''})`;
      warnings.push(`${shown}: ${message}`);
      place(['tools', i, 'command'], 'warning', message);
    }
    if (t.kind === 'command')
      for (const k of placeholdersReadAsOptions(t.command)) {
        const fixed = JSON.stringify([...t.command.slice(0, k), '--', ...t.command.slice(k)]).replace(/","/g, '", "');
        const message = `tools[${i}].command[${k}]: ${JSON.stringify(t.command[k])} comes before other arguments, so the model's text can be read as an option (such as --output=FILE) (fix: put "--" before it, ${fixed}, make it the last argument, or give the input on standard input)`;
        warnings.push(`${shown}: ${message}`);
        place(['tools', i, 'command', k], 'warning', message);
      }
  });
  return { config: errors.length ? null : parsed.data, errors, warnings, problems };
}

/** Names known without starting anything: command and http tools, and MCP tools listed in `tools`. */
export function staticNames(t: ToolEntry): string[] {
  if (t.kind === 'mcp') return Object.values(t.tools ?? {});
  return [t.name];
}

function formatPath(path: PropertyKey[]): string {
  if (path.length === 0) return '(top level)';
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
}

function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length}, column ${before[before.length - 1].length + 1}`;
}

const FIELD_FIXES: Record<string, string> = {
  kind: 'set "kind" to "command", "http" or "mcp"',
  command: 'write the command as an array of strings, e.g. ["python3", "tool.py", "{input}"]',
  name: 'give the tool a non-empty name without "]" or line breaks',
  url: 'write a full http:// or https:// URL',
  timeoutMs: 'write a whole number of milliseconds between 1 and 600000',
  input: 'use "instruction", "previousAnswer" or "both"',
  stdin: 'use true or false',
  env: 'use an object of NAME: "value" strings',
  headers: 'use an object of "Header-Name": "value" strings',
  tools: 'list the tools in an array: "tools": [ { "kind": "command", ... } ]',
  prefix: 'use a string',
  cwd: 'use a folder path relative to the workspace',
};

function fixFor(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return `remove ${issue.keys.map(k => `"${k}"`).join(', ')}, or check its spelling`;
  const field = [...issue.path].reverse().find(p => typeof p === 'string');
  if (issue.code === 'invalid_union' || field === 'kind') return FIELD_FIXES.kind;
  if (issue.path.length > 2 && issue.path[2] === 'tools') return 'map MCP tool names to ART tool names, e.g. { "read_file": "read file" }';
  if (typeof field === 'string' && FIELD_FIXES[field]) return FIELD_FIXES[field];
  if (issue.code === 'invalid_type' && issue.path.length === 0) return 'write an object: { "tools": [ ... ] }';
  return 'see schemas/art-tools.schema.json';
}
