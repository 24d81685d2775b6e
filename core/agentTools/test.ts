// The agent tool test, and what it and `art test LIBRARY...` do: every demonstration program of the libraries is a
// test (core/evaluation/libraryTest.ts), replayed with its deterministic tools run again (all with tools "all") and
// compared with the recording; the answer is each program's pass or fail with the recorded and computed outputs.
import { relative, resolve } from 'node:path';
import { z } from 'zod';
import { parseArt } from '../art/parse';
import type { ModelClient } from '../model/types';
import { LaunchError } from '../launch/options';
import { openSession, type RunSession } from '../launch/session';
import { describeFailure, testLibrary, type ProgramTest } from '../evaluation/libraryTest';
import { HEADLESS, parseRunOptions, type RunOptionName, type RunOptions } from '../launch/options';
import { CliError, languageOf, readSource } from '../common/sourceFiles';
import { NOT_FOR_TEST, runOptionShape } from './runOptions';
import { filePath, shownPath, withNotes } from './shapes';
import { defineTool } from './tool';

/** One demonstration program tested, with the library it is in (as given). */
export interface FileProgramTest extends ProgramTest {
  file: string;
}

/** What `art test` (and the agent tool test) finds: every program's test, the tools' notes and the counts. */
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
  /** How an option is named in an error (`art test`: its flag). */
  label: (name: RunOptionName) => string;
  signal?: AbortSignal;
  /** The tools' problems (a tool file's, an MCP server's), before the first program. */
  onNote?: (note: string) => void;
  /** Each program's test as it comes. */
  onProgram?: (t: FileProgramTest) => void;
  /** The key of the options, when the shell decides it (the agent tools); default: the variable `apiKeyEnv` names. */
  apiKey?: (o: RunOptions) => string | undefined | Promise<string | undefined>;
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
    const o = parseRunOptions(raw, how.label);
    const apiKey = how.apiKey ? await how.apiKey(o) : how.env[o.apiKeyEnv] || undefined;
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

const step = z.object({
  step: z.number(),
  tool: z.string(),
  line: z.number(),
  recorded: z.string(),
  got: z.string().optional(),
  error: z.string().optional(),
  compared: z.boolean(),
  ok: z.boolean(),
});

export const test = defineTool({
  name: 'test',
  title: 'Test task libraries',
  description:
    'Replay every demonstration program of the task libraries, as `art test` does: its tools run again and each compared tool\'s output and the answer are checked against the recording (white space folded). Returns per program pass/fail with the recorded and computed outputs, and "N passed, N failed".',
  runsPrograms: true,
  userTools: true,
  input: {
    files: z
      .array(filePath('A task library (.art)'))
      .min(1)
      .optional()
      .describe('The task libraries (.art) (default: the file in the active editor; art mcp has none: give them).'),
    tools: z
      .enum(['deterministic', 'all'])
      .optional()
      .describe(
        'Which steps are compared: deterministic (default: code, calculator, lookup, user tools) or all (model-backed and search steps too).',
      ),
    ...runOptionShape(NOT_FOR_TEST),
  },
  output: {
    programs: z.array(
      z.object({
        file: z.string(),
        line: z.number().describe('1-based line where the program starts'),
        index: z.number(),
        title: z.string(),
        passed: z.boolean(),
        steps: z.array(step),
        answer: z.object({ recorded: z.string().nullable(), got: z.string().nullable(), ok: z.boolean() }),
        error: z.string().optional(),
      }),
    ),
    passed: z.number(),
    failed: z.number(),
    summary: z.string(),
    notes: z.array(z.string()),
  },
  editor: {
    displayName: 'ART: Run Programs as Tests',
    referenceName: 'artTest',
    userDescription: "Replays a task library's programs and compares each step with the recording.",
    icon: '$(beaker)',
    invocation: () => 'Running the programs as tests',
    confirm: i => ({
      title: 'ART Studio: run the programs as tests?',
      message: `Replays the programs of ${i.files?.join(', ') ?? 'the task library in the active editor'} with their tools re-executed (Python code runs).`,
    }),
  },
  run: async (input, host) => {
    const active = host.activeFile();
    const names = input.files ?? (active !== undefined ? [shownPath(host, active)] : undefined);
    if (!names) throw new CliError('give "files" (the task libraries whose programs to test)');
    const paths: string[] = [];
    for (const f of names) paths.push(await host.path(f, 'file'));
    // `tools` here says which steps are compared, not a tool file (user tools come from the workspace's).
    const { raw, notes } = await host.runOptions({ ...input, tools: undefined }, paths[0]);
    const { tools: _file, program: _program, mode: _mode, ...options } = raw;
    const report = await testLibraries(paths, options, {
      compare: input.tools,
      env: {},
      cwd: host.cwd,
      label: host.label('files'),
      signal: host.signal,
      apiKey: async o => {
        const { key, note } = await host.key(o, !!o.baseURL);
        if (note) notes.push(note);
        return key;
      },
      userToolsRefused: host.userToolsRefused,
    });
    report.notes.unshift(...notes);
    const summary = `${report.passed} passed, ${report.failed} failed`;
    const lines = [...report.programs.flatMap(t => [programLine(t, host.cwd), ...(t.passed ? [] : describeFailure(t))]), summary];
    const programs = report.programs.map(t => ({
      file: names[paths.indexOf(t.file)] ?? t.file,
      line: t.line + 1,
      index: t.index,
      title: t.title,
      passed: t.passed,
      steps: t.steps.map(s => ({ ...s, line: s.line + 1 })),
      answer: t.answer,
      ...(t.error !== undefined ? { error: t.error } : {}),
    }));
    return {
      text: withNotes(report.notes, lines.join('\n')),
      structured: { programs, passed: report.passed, failed: report.failed, summary, notes: report.notes },
    };
  },
});
