// `art prompt FILE`: the exact prompt a run of FILE sends (the same run options as `art run`: --task, --input,
// --select, --base-url, --model, ...), with the demonstrations in it and why each was chosen, without running it.
// FILE may also be the trace (.jsonl) of a run: the prompt it recorded. --json prints the report as JSON.
import { resolve } from 'node:path';
import { LaunchError } from '../launch/options';
import { promptOfRun } from '../launch/promptOfRun';
import { parseRunOptions } from '../launch/options';
import { NOT_FOR_PROMPT } from '../agentTools/runOptions';
import { formatPromptReport } from '../prompt/promptReport';
import { apiKeyFromEnv } from '../launch/apiKey';
import { CliError } from './files';
import { cliLabel, helpText, optionHelpLines, parseCommandLine, replayUnlessEndpoint } from './optionFlags';
import { terminalJson } from '../common/terminalText';

const SHELL_FLAGS = [{ flag: 'json', help: 'print the report as JSON (prompt, header, demonstrations and why)' }] as const;

export function promptUsage(): string {
  const lines: [string, string][] = [
    ['FILE', 'the task library (.art), agent spec (.agent) or MultiTool-CoT prompt to build the prompt of, or a run trace (.jsonl)'],
    ...SHELL_FLAGS.map((f): [string, string] => [`--${f.flag}`, f.help]),
    ...optionHelpLines(NOT_FOR_PROMPT, new Set(['mode'])),
  ];
  return helpText('usage: art prompt FILE [options]', lines);
}

export interface PromptIo {
  out: (s: string) => void;
  err: (s: string) => void;
  env?: NodeJS.ProcessEnv;
  /** The current directory: FILE and the default --cwd start there (default: the process's). */
  cwd?: string;
}

export async function promptCommand(argv: string[], io: PromptIo): Promise<number> {
  const {
    values,
    positionals,
    options: given,
  } = parseCommandLine(
    'prompt',
    argv,
    SHELL_FLAGS.map(f => ({ flag: f.flag, type: 'boolean' as const })),
    NOT_FOR_PROMPT,
  );
  if (values.help) {
    io.out(promptUsage());
    return 0;
  }
  if (positionals.length !== 1) throw new CliError(`art prompt: give exactly one file\n${promptUsage()}`);
  const here = io.cwd ?? process.cwd();
  const raw: Record<string, unknown> = { ...given, program: resolve(here, positionals[0]), cwd: resolve(here, String(given.cwd ?? '.')) };
  // As `art run`: no endpoint (--base-url and --model) and no mode: replay mode, whose prompt is the same.
  replayUnlessEndpoint(raw);
  const env = io.env ?? process.env;
  try {
    const options = parseRunOptions(raw, cliLabel('FILE'));
    const report = await promptOfRun({
      ...options,
      apiKey: apiKeyFromEnv(options, env),
      trusted: true,
      log: line => io.err(`[art] ${line}`),
    });
    io.out(values.json ? terminalJson(report, 2) : formatPromptReport(report).replace(/\n$/, ''));
    return 0;
  } catch (e) {
    if (e instanceof LaunchError) throw new CliError(`art prompt: ${e.message}`);
    throw e;
  }
}
