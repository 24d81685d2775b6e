// The run options' flags on a command line (`art run`, `art eval`): parsed, turned into option values and listed in
// a help text, all from the one declaration (core/launch/options.ts). A command adds its own flags (`--interactive`,
// `--data`) and may leave some options out.
import { parseArgs } from 'node:util';
import { RUN_OPTIONS, cliOptions, fromCliText, isBooleanOption, type RunOptionName } from '../launch/options';
import { CliError } from './files';

export interface CommandFlag {
  flag: string;
  type: 'string' | 'boolean';
}

/** The help lines (`--flag ARG`, description with its default) of the run options a command takes. */
export function optionHelpLines(
  skip: ReadonlySet<RunOptionName> = new Set(),
  hideDefault: ReadonlySet<RunOptionName> = new Set(),
): [string, string][] {
  const lines: [string, string][] = [];
  for (const { name, cli, spec } of cliOptions()) {
    if (skip.has(name)) continue;
    const def = spec.schema.safeParse(undefined);
    const shown = def.success && def.data !== undefined && !isBooleanOption(name) && !hideDefault.has(name) ? ` (default ${String(def.data)})` : '';
    lines.push([`--${cli.flag}${cli.arg ? ` ${cli.arg}` : ''}`, `${spec.description}${shown}`]);
  }
  return lines;
}

/** A help text: the usage line, then the flags aligned. */
export function helpText(usage: string, lines: [string, string][]): string {
  const width = Math.max(...lines.map(([l]) => l.length)) + 2;
  return `${usage}\n${lines.map(([l, h]) => `  ${l.padEnd(width)}${h}`).join('\n')}`;
}

/**
 * Parses `argv` for `art COMMAND`: the command's own flags and the run options' (but `skip`), with one-line errors.
 * `options` holds the run options given, as values (`--temperature 0.5` → 0.5), to validate with parseRunOptions.
 */
export function parseCommandLine(
  command: string,
  argv: string[],
  own: readonly CommandFlag[],
  skip: ReadonlySet<RunOptionName> = new Set(),
): { values: Record<string, string | boolean | undefined>; positionals: string[]; options: Record<string, unknown> } {
  const flags: Record<string, { type: 'string' | 'boolean'; short?: string }> = { help: { type: 'boolean', short: 'h' } };
  for (const f of own) flags[f.flag] = { type: f.type };
  const taken = cliOptions().filter(({ name }) => !skip.has(name));
  for (const { name, cli } of taken) flags[cli.flag] = { type: isBooleanOption(name) ? 'boolean' : 'string' };
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: flags }) as typeof parsed;
  } catch (e) {
    throw new CliError(`art ${command}: ${(e as Error).message.split(/\.\s|\n/)[0]} (art ${command} --help lists the options)`);
  }
  const options: Record<string, unknown> = {};
  for (const { name, cli } of taken) {
    const v = parsed.values[cli.flag];
    if (v !== undefined) options[name] = typeof v === 'string' ? fromCliText(name, v) : v;
  }
  cliModelSource(options);
  return { ...parsed, options };
}

/**
 * The command line's model source (`art run`, `test`, `eval`, `prompt`, the MCP tools), which has no flag for it: a
 * model file given chooses the local model. Sets `raw.modelSource`.
 */
export function cliModelSource(raw: Record<string, unknown>): void {
  if (raw.modelFile !== undefined && raw.modelSource === undefined) raw.modelSource = 'local';
}

/** How a command's messages name a run option: its flag (`--tool-timeout-ms`), the program as the positional. */
export function cliLabel(positional: string): (name: RunOptionName) => string {
  return name => (name === 'program' ? positional : `--${RUN_OPTIONS[name].cli?.flag ?? name}`);
}

/**
 * The CLI's default mode (`art run`, `art prompt`, the MCP server): with no mode and no model to generate with (an
 * endpoint's base URL and model, or a model file), replay the recording, as VS Code does. Sets `raw.mode` and says
 * whether it did.
 */
export function replayUnlessEndpoint(raw: Record<string, unknown>): boolean {
  cliModelSource(raw);
  const byDefault = raw.mode === undefined && raw.modelFile === undefined && (raw.baseURL === undefined || raw.model === undefined);
  if (byDefault) raw.mode = 'replay';
  return byDefault;
}
