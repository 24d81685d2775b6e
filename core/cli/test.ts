// `art test LIBRARY...`: every demonstration program of the libraries is a test (core/evaluation/libraryTest.ts). It is
// replayed, its deterministic tools run again, and it fails when a tool's output or the final answer differs from
// the recording (white space folded), with a diff: the step, the recorded text, what came now. `--tools all` also
// compares model-backed and search steps (their tools then ask the endpoint given by --base-url/--model). Ends with
// `N passed, N failed`; exit 1 when a program fails, 2 on a usage error.
import { relative, resolve } from 'node:path';
import { parseArt } from '../art/parse';
import type { ModelClient } from '../model/types';
import { LaunchError } from '../launch/options';
import { openSession, type RunSession } from '../launch/session';
import { describeFailure, testLibrary, type ProgramTest } from '../evaluation/libraryTest';
import { HEADLESS, RUN_OPTIONS, parseRunOptions, type RunOptionName, type RunOptions } from '../launch/options';
import { CliError, languageOf, readSource } from './files';
import { cliLabel, helpText, optionHelpLines, parseCommandLine } from './optionFlags';

/**
 * The run options `art test` takes (the endpoint of `--tools all`, the tools' own settings); the others belong to a
 * run of one program. `tools` (a tool file) is left out because `--tools` says which steps are compared here: user
 * tools come from the workspace's .art-tools.json.
 */
const FOR_TEST = new Set<RunOptionName>([
  'baseURL',
  'model',
  'api',
  'apiKeyEnv',
  'temperature',
  'maxTokens',
  'cwd',
  'pythonPath',
  'pythonTimeoutMs',
  'pythonMemoryMb',
  'pythonCpuSeconds',
  'pythonMaxOutputBytes',
  'pythonMaxFileBytes',
  'allowUnisolatedCode',
  'corpus',
  'rerank',
  'wordList',
  'toolTimeoutMs',
]);
export const NOT_FOR_TEST = new Set((Object.keys(RUN_OPTIONS) as RunOptionName[]).filter(n => !FOR_TEST.has(n)));

export function testUsage(): string {
  return helpText('usage: art test LIBRARY.art... [options]', [
    [
      '--tools deterministic|all',
      'which steps are compared (default deterministic: code, calculator, lookup and user tools; all: model-backed and search steps too, which then ask the endpoint of --base-url/--model, or answer from the recording without one)',
    ],
    ...optionHelpLines(NOT_FOR_TEST),
  ]);
}

export interface TestIo {
  out: (line: string) => void;
  env?: NodeJS.ProcessEnv;
  /** The current directory: the libraries and the default --cwd start there (default: the process's). */
  cwd?: string;
}

/** One demonstration program tested, with the library it is in (as given). */
export interface FileProgramTest extends ProgramTest {
  file: string;
}

/** What `art test` (and the MCP server's `test` tool) finds: every program's test, the tools' notes and the counts. */
export interface TestReport {
  notes: string[];
  programs: FileProgramTest[];
  passed: number;
  failed: number;
}

export interface TestHow {
  compare?: 'deterministic' | 'all';
  env: NodeJS.ProcessEnv;
  /** Where relative paths (the libraries, `cwd`) start (default: the process's current directory). */
  cwd?: string;
  /** How an option is named in an error (default: its flag). */
  label?: (name: RunOptionName) => string;
  signal?: AbortSignal;
  /** The tools' problems (a tool file's, an MCP server's), before the first program. */
  onNote?: (note: string) => void;
  /** Each program's test as it comes. */
  onProgram?: (t: FileProgramTest) => void;
  /** The key of the options, when the shell decides it (`art mcp`); default: the variable `apiKeyEnv` names. */
  apiKey?: (o: RunOptions) => string | undefined;
  /** The tool file's tools (commands, HTTP tools, MCP servers) start nothing and answer with this (registry.ts). */
  userToolsRefused?: string;
}

/**
 * Tests every demonstration of the libraries at `paths` with the run options in `options` (those of NOT_FOR_TEST
 * aside). A CliError names the file or option to fix.
 */
export async function testLibraries(paths: readonly string[], options: Record<string, unknown>, how: TestHow): Promise<TestReport> {
  if (!paths.length) throw new CliError('art test: give at least one task library (.art): art test LIBRARY.art...');
  if (!!options.baseURL !== !!options.model) throw new CliError('art test: give both --base-url and --model (the endpoint and the model it serves)');
  const here = how.cwd ?? process.cwd();
  const libraries = paths.map(given => {
    if (languageOf(given) !== 'art') throw new CliError(`${given}: art test runs the programs of task libraries (.art), not agent specs`);
    const path = resolve(here, given);
    return { path, doc: parseArt(readSource(path)) };
  });
  let session: RunSession;
  try {
    // The tools as a run of these options would have them (Python limits, word list, corpus, ...): one session.
    const raw = {
      program: libraries[0].path,
      mode: options.baseURL ? 'generate' : 'replay',
      ...options,
      cwd: resolve(here, String(options.cwd ?? '.')),
    };
    const o = parseRunOptions(raw, how.label ?? cliLabel('LIBRARY'));
    const apiKey = how.apiKey ? how.apiKey(o) : how.env[o.apiKeyEnv] || undefined;
    session = await openSession({ ...o, apiKey, trusted: true, ...HEADLESS, userToolsRefused: how.userToolsRefused });
  } catch (e) {
    if (e instanceof LaunchError) throw new CliError(`art test: ${e.message}`);
    throw e;
  }
  const { tools } = session;
  const toolModel: ModelClient | undefined = session.options.baseURL ? session.endpointModel() : undefined;
  const report: TestReport = { notes: [...tools.problems], programs: [], passed: 0, failed: 0 };
  try {
    for (const note of report.notes) how.onNote?.(note);
    for (const { path, doc } of libraries) {
      const tests = await testLibrary(doc, {
        tools,
        compare: how.compare,
        toolModel,
        toolTimeoutMs: session.options.toolTimeoutMs,
        signal: how.signal,
      });
      for (const t of tests) {
        const test = { file: path, ...t };
        report.programs.push(test);
        if (t.passed) report.passed++;
        else report.failed++;
        how.onProgram?.(test);
      }
    }
  } finally {
    await session.dispose();
  }
  return report;
}

/** A program's result line: `PASS library.art:24 program 1 (Elementary Math)`, the path relative when inside the current folder. */
export function programLine(t: FileProgramTest, here = process.cwd()): string {
  const shown = relative(here, t.file).startsWith('..') ? t.file : relative(here, t.file);
  return `${t.passed ? 'PASS' : 'FAIL'} ${shown}:${t.line + 1} program ${t.index} (${t.title})`;
}

export async function testCommand(argv: string[], io: TestIo): Promise<number> {
  const { values, positionals, options } = parseCommandLine('test', argv, [{ flag: 'tools', type: 'string' }], NOT_FOR_TEST);
  if (values.help) {
    io.out(testUsage());
    return 0;
  }
  if (!positionals.length) throw new CliError('art test: give at least one task library (.art): art test LIBRARY.art...');
  const compare = values.tools ?? 'deterministic';
  if (compare !== 'deterministic' && compare !== 'all') throw new CliError(`art test: --tools is "deterministic" or "all", not "${compare}"`);
  const here = io.cwd ?? process.cwd();
  const report = await testLibraries(positionals, options, {
    compare,
    env: io.env ?? process.env,
    cwd: here,
    onNote: note => io.out(`note: ${note}`),
    onProgram: t => {
      io.out(programLine(t, here));
      if (!t.passed) for (const line of describeFailure(t)) io.out(line);
    },
  });
  io.out(`${report.passed} passed, ${report.failed} failed`);
  return report.failed ? 1 : 0;
}
