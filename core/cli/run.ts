// `art run FILE`: runs a program of a task library (or an agent spec, or replays a trace) in the terminal. The
// program is printed as it grows, then the answer. With --interactive the run pauses after each tool call: the
// tool's output is shown and a line typed in replaces it (an empty line keeps it; "quoted\nJSON" gives several
// lines). The key is read from the environment variable --api-key-env names (default OPENAI_API_KEY). The flags
// are the run options' (core/launch/options.ts), parsed and listed from their declaration.
import { basename, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { prepareRun } from '../launch/launch';
import { LaunchError } from '../launch/options';
import type { PreparedRun } from '../launch/session';
import { HEADLESS, RUN_OPTIONS, parseRunOptions, type RunOptions } from '../launch/options';
import { prepareSamples, recordVote, type Tally } from '../sampling/samples';
import { StreamedText } from '../common/streamedText';
import type { RunResult, Snapshot } from '../engine/types';
import type { ToolCall } from '../trace/vocabulary';
import type { RetryPolicy } from '../model/retry';
import { withoutToolPrefix } from '../tools/common';
import { CliError } from './files';
import { DEFAULT_RUNS_FOLDER } from '../settings/settings';
import { stoppable } from './signals';
import { cliLabel, helpText, optionHelpLines, parseCommandLine, replayUnlessEndpoint } from './optionFlags';
import { typedText } from '../common/typedText';
import { newRunId, prepareRunsFolder, runFiles, writeSummary } from '../trace/history';
import { BudgetedModel, StepSearch, writeSearchTraces } from '../sampling/search';
import { apiKeyFromEnv } from '../launch/apiKey';
import { sayRepairs } from '../agentTools/run';
import { plural, tokenUsage } from '../common/counts';

/** Flags of `art run` that are not run options: how the terminal shows the run. */
const SHELL_FLAGS = [
  { flag: 'interactive', help: 'pause after each tool call and accept an override (empty line keeps the output)' },
  { flag: 'quiet', help: 'print only the answer' },
] as const;

/** The help of `art run`: the run options that have a flag (core/launch/options.ts), then the terminal's own. */
export function runUsage(): string {
  // --mode's default is the CLI's own: replay unless an endpoint is given (see runCommand).
  const lines: [string, string][] = [
    ['FILE', RUN_OPTIONS.program.description.replace(/\.$/, '')],
    ...optionHelpLines(new Set(), new Set(['mode'])),
    ...SHELL_FLAGS.map((f): [string, string] => [`--${f.flag}`, f.help]),
  ];
  return helpText('usage: art run FILE [options]', lines);
}

export interface RunIo {
  /** Writes text as it is (no line break added). */
  write: (s: string) => void;
  /** One line to standard error. */
  err: (s: string) => void;
  /** Where --interactive reads overrides. */
  stdin: NodeJS.ReadableStream;
  /** Where --interactive writes its prompts (default: standard error). */
  prompt?: (s: string) => void;
  env?: NodeJS.ProcessEnv;
  /** The current directory: FILE and the default --cwd start there (default: the process's). */
  cwd?: string;
  /** How long the model client waits before retrying (default DEFAULT_RETRY, core/model/retry.ts). */
  retry?: Partial<RetryPolicy>;
}

export async function runCommand(argv: string[], io: RunIo): Promise<number> {
  const {
    values,
    positionals,
    options: given,
  } = parseCommandLine(
    'run',
    argv,
    SHELL_FLAGS.map(f => ({ flag: f.flag, type: 'boolean' as const })),
  );
  if (values.help) {
    io.write(`${runUsage()}\n`);
    return 0;
  }
  if (positionals.length !== 1) throw new CliError(`art run: give exactly one file to run\n${runUsage()}`);
  // FILE is relative to the current directory, as in a shell; the other paths to --cwd when given.
  const here = io.cwd ?? process.cwd();
  const raw: Record<string, unknown> = { ...given, program: resolve(here, positionals[0]), cwd: resolve(here, String(given.cwd ?? '.')) };
  const env = io.env ?? process.env;
  const interactive = !!values.interactive;
  // No mode given and no endpoint to generate with (--base-url and --model): replay, as VS Code does, and say so.
  const replayByDefault = replayUnlessEndpoint(raw);

  let run: PreparedRun;
  let samples = 1;
  try {
    const options = parseRunOptions(raw, cliLabel('FILE'));
    samples = options.samples;
    if (options.search !== undefined) {
      if (interactive) throw new LaunchError('--search drives the run itself: it cannot be --interactive');
      if (samples > 1) throw new LaunchError('--search and --samples are two ways to spend model calls: give one');
      if (options.mode === 'replay')
        throw new LaunchError(
          '--search samples continuations from the model: give an endpoint (--base-url and --model); a replay has only the recorded text',
        );
      return await runSearch(options, positionals[0], env, io, !!values.quiet);
    }
    if (raw.budget !== undefined) throw new LaunchError('--budget is the budget of --search: give --search K too');
    if (samples > 1) {
      if (interactive) throw new LaunchError('--samples runs several programs at once: it cannot be --interactive');
      return await runSamples(options, samples, env, io);
    }
    run = await prepareRun({
      ...options,
      apiKey: apiKeyFromEnv(options, env),
      telemetryEnv: env,
      trusted: true,
      retry: io.retry,
      pauseAfterTool: interactive,
      pauseOnToolError: interactive,
      log: line => io.err(`[art] ${line}`),
    });
  } catch (e) {
    if (e instanceof LaunchError) throw new CliError(`art run: ${e.message}`);
    throw e;
  }

  if (replayByDefault)
    io.err('[art] replay mode: no model is given (--model-file FILE.gguf for a local model, or --base-url and --model for an endpoint, to generate)');
  for (const p of [...run.toolNotes, ...run.toolProblems]) io.err(`[art] tools: ${p}`);
  const printed = new StreamedText(s => {
    if (!values.quiet) io.write(s);
  });
  const runner = run.runner;
  runner.on('text', ({ text, delta, grown }) => printed.update(text, false, grown ? delta : undefined));
  runner.on('correction', c => {
    printed.update(runner.text, true);
    io.err(`\n[art] monitor: off-spec at offset ${c.offset} (expected ${c.expected.join(' or ')}); inserted ${JSON.stringify(c.inserted)}`);
  });
  sayRepairs(runner, !!run.tracePath, line => io.err(`[art] ${line}`));
  // Retries are printed once, by the runner's log line ("[art] retry N in M ms: reason").

  const ask = interactive ? overridePrompter(io) : undefined;
  if (ask) {
    runner.on('paused', ({ call }) => {
      printed.update(runner.text, true);
      void ask.pauseAt(call).then(answer => {
        if (answer !== undefined && call) {
          try {
            runner.setToolOutput(answer);
          } catch (e) {
            io.err(`[art] ${(e as Error).message}`);
          }
        }
        runner.continue();
      });
    });
  }

  // A signal stops the run (./signals): the running tool is cancelled, MCP servers stop and the trace is closed.
  const result = await stoppable(
    () => runner.stop(),
    async () => {
      try {
        return await runner.run();
      } finally {
        ask?.close();
        await run.dispose();
      }
    },
  );
  printed.update(runner.text, true);
  if (!values.quiet && !printed.text.endsWith('\n')) io.write('\n');
  const s = result.snapshot;
  if (result.reason === 'finished') {
    io.write(`${values.quiet ? '' : '\n'}Answer: ${result.answer ?? '(none)'}\n`);
    const checked = `${s.constrainedRequests} constrained, ${plural(s.corrections, 'monitor correction')}`;
    if (!values.quiet)
      io.err(
        `[art] ${plural(s.requests, 'request')} (${checked}), ${tokenUsage(s.usage)}${reasoningNote(s, !!run.tracePath)}${run.tracePath ? `; trace: ${run.tracePath}` : ''}`,
      );
    return 0;
  }
  io.err(
    `art run: the run ended (${result.reason})${result.error ? `: ${result.error}` : ''}${result.answer ? `; answer so far: ${result.answer}` : ''}`,
  );
  return 1;
}

/**
 * `--search K --budget N`: the best-first search over steps (core/sampling/search.ts). Progress goes to standard error,
 * the chosen program and its answer to standard output. The tree goes into the run history: the run's trace at
 * --trace, else a new run in .art/runs (VS Code's default runs folder), and the explored nodes beside it.
 */
async function runSearch(options: RunOptions, file: string, env: NodeJS.ProcessEnv, io: RunIo, quiet: boolean): Promise<number> {
  const root = resolve(options.cwd!);
  let tracePath: string;
  let runsFolder: string | undefined;
  if (options.trace) tracePath = resolve(root, options.trace);
  else {
    runsFolder = resolve(root, DEFAULT_RUNS_FOLDER);
    prepareRunsFolder(runsFolder, true);
    tracePath = runFiles(runsFolder, newRunId(file)).trace;
  }
  const apiKey = env[options.apiKeyEnv] || undefined;
  let budgeted: BudgetedModel | undefined;
  const run = await prepareRun({
    ...options,
    trace: undefined,
    apiKey,
    telemetryEnv: env,
    trusted: true,
    retry: io.retry,
    stopOnEntry: true,
    ...HEADLESS,
    wrapModel: m => (budgeted = new BudgetedModel(m, options.budget)),
    log: line => io.err(`[art] ${line}`),
  });
  for (const p of [...run.toolNotes, ...run.toolProblems]) io.err(`[art] tools: ${p}`);
  const search = new StepSearch(run.runner, budgeted!, run.records, {
    k: options.search!,
    budget: options.budget,
    progress: line => io.err(`[art] ${line}`),
  });
  const r = await stoppable(
    () => run.runner.stop(),
    async () => {
      try {
        return await search.run();
      } finally {
        await run.dispose();
      }
    },
  );
  const files = writeSearchTraces(search, r, tracePath, apiKey ? [apiKey] : []);
  if (runsFolder) writeSummary(runsFolder, basename(tracePath).replace(/\.jsonl$/, ''), { program: file, task: options.task });
  const result = r.result;
  if (!quiet) io.write(`${result.snapshot.text}${result.snapshot.text.endsWith('\n') ? '' : '\n'}`);
  io.err(
    `[art] search: ${r.expanded} node(s) expanded, ${r.reached} reached, ${r.nodes} sampled; ${r.calls} of ${r.budget} model call(s); ` +
      `best score ${r.chosen.score.toFixed(3)} (${r.scoredBy === 'nll' ? 'average NLL' : 'by vote'}); trace: ${tracePath}` +
      (files.length > 1 ? ` and ${files.length - 1} explored branch(es) beside it` : ''),
  );
  if (result.reason === 'finished') {
    io.write(`${quiet ? '' : '\n'}Answer: ${result.answer ?? '(none)'}\n`);
    return 0;
  }
  io.err(
    `art run: the search ended without an answer (${r.budgetSpent ? `the budget of ${r.budget} model calls was spent first; give a larger --budget` : result.reason})${result.error && !r.budgetSpent ? `: ${result.error}` : ''}`,
  );
  return 1;
}

/**
 * Self-consistency: `samples` programs at once (core/sampling/samples.ts: each prepared like a single run; with --trace
 * each writes RUN.sample-k.jsonl, the vote at its end), then the vote.
 */
async function runSamples(options: RunOptions, samples: number, env: NodeJS.ProcessEnv, io: RunIo): Promise<number> {
  const runs = await prepareSamples(
    {
      ...options,
      apiKey: apiKeyFromEnv(options, env),
      telemetryEnv: env,
      trusted: true,
      retry: io.retry,
      // Nobody answers a pause here: the samples run through their tool calls (they paused after the first one, and
      // the process ended with no answer and exit 0).
      ...HEADLESS,
    },
    samples,
  );
  for (const p of [...runs[0].toolNotes, ...runs[0].toolProblems]) io.err(`[art] tools: ${p}`);
  const [results, t] = await stoppable(
    () => runs.forEach(r => r.runner.stop()),
    async (): Promise<[RunResult[], Tally]> => {
      try {
        const all = await Promise.all(runs.map(r => r.runner.run()));
        return [all, recordVote(runs)];
      } finally {
        await Promise.all(runs.map(r => r.dispose()));
      }
    },
  );
  results.forEach((r, i) =>
    io.err(
      `[art] sample ${i + 1}: ${r.reason === 'finished' ? `answer ${JSON.stringify(r.answer)}` : `${r.reason}${r.error ? `: ${r.error}` : ''}`}${runs[i].tracePath ? `; trace: ${runs[i].tracePath}` : ''}`,
    ),
  );
  if (t.answer === null) {
    io.err(`art run: none of the ${samples} samples finished with an answer`);
    return 1;
  }
  io.write(`Answer: ${t.answer}\n`);
  io.err(`[art] vote: ${t.agree} of ${samples} samples`);
  return 0;
}

/** Reads one override line per pause from stdin (lines typed ahead are kept for the next pauses). */
function overridePrompter(io: RunIo) {
  const prompt = io.prompt ?? ((s: string) => process.stderr.write(s));
  const rl = createInterface({ input: io.stdin, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  let ended = false;
  return {
    async pauseAt(call: ToolCall | undefined): Promise<string | undefined> {
      if (!call) return undefined;
      const shown =
        call.error !== undefined
          ? `failed: ${withoutToolPrefix(call.tool, call.error)}`
          : `returned${call.durationMs !== undefined ? ` in ${call.durationMs} ms` : ''}:\n${call.output ?? ''}`;
      const keep = call.error !== undefined ? 'empty line: the model writes the output' : 'empty line keeps it';
      prompt(`\n── [${call.tool}] ${shown}\n── override (${keep}; "JSON string" for several lines)> `);
      if (ended) {
        prompt('\n');
        return undefined;
      }
      const next = await lines.next();
      if (next.done) {
        ended = true;
        prompt('\n');
        return undefined;
      }
      const line = String(next.value);
      return line.trim() === '' ? undefined : typedText(line);
    },
    close: () => rl.close(),
  };
}

/**
 * The reasoning a reasoning model did, for the summary line: its tokens where the endpoint reported them, and where
 * the reasoning is (the trace; without one, nowhere: --trace keeps it).
 */
function reasoningNote(s: Snapshot, traced: boolean): string {
  const chars = (s.reasoning ?? []).reduce((n, r) => n + r.text.length, 0);
  if (s.usage.reasoningTokens !== undefined) return ` (${s.usage.reasoningTokens} of them reasoning)`;
  return chars ? ` (and ${plural(chars, 'character')} of reasoning, ${traced ? 'in the trace' : 'not kept: --trace FILE keeps it'})` : '';
}
