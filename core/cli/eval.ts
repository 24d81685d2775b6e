// `art eval LIBRARY --data DATA.jsonl`: runs every example of a dataset as a new task of the library against the
// model endpoint, a bounded number at once (one shared limit on requests in flight, halved on a 429), appends each
// finished example to the results file, and prints a summary. On a terminal a progress bar (cli-progress) shows the
// rate, the ETA and the running accuracy; in a pipe one plain line per example. SIGINT/SIGTERM stop the runs in
// flight; running the same command again resumes from the results file and redoes no finished example (after the
// library changed: a new results file beside it, said on stderr; --resume resumes anyway). The run
// options' flags (core/launch/options.ts) apply, except those of a single run (--input, --trace, --mode).
import { extname, resolve } from 'node:path';
import { SingleBar } from 'cli-progress';
import { formatSummary, summarise, type EvalResult } from '../evaluation/eval';
import { defaultResultsPath, evaluate, EvalDataError, hasResults, LaunchError, newResultsPath, resultsFiles } from '../evaluation/evaluate';
import { NOT_FOR_EVAL } from '../agentTools/runOptions';
import { CliError } from './files';
import { DEFAULT_RUNS_FOLDER } from '../settings/settings';
import { stoppable } from './signals';
import { cliLabel, helpText, optionHelpLines, parseCommandLine } from './optionFlags';

const SHELL_FLAGS = [
  { flag: 'data', arg: 'DATA.jsonl', help: 'the dataset: one {"input", "target"} object a line (optional "id", "description")' },
  {
    flag: 'out',
    arg: 'RESULTS.jsonl',
    help: 'the results file, appended to and resumed from (default: the latest of DATA.LIBRARY.results.jsonl, DATA.LIBRARY-2.results.jsonl, ... beside the data); when the library changed since it was begun, a new one beside it',
  },
  {
    flag: 'new',
    arg: '',
    type: 'boolean',
    help: 'start a new results file beside the existing one (DATA.LIBRARY-2.results.jsonl, ...) instead of resuming it',
  },
  {
    flag: 'resume',
    arg: '',
    type: 'boolean',
    help: 'resume the results file even when the library changed since it was begun (its results then mix two versions of the library)',
  },
  { flag: 'runs', arg: 'FOLDER', help: `the run history each example's trace goes into, named in its result (default ${DEFAULT_RUNS_FOLDER})` },
  { flag: 'concurrency', arg: 'C', help: 'examples run at once, and the bound on requests in flight (default 4)' },
  { flag: 'select-examples', arg: 'N', help: '--select best-cluster: the labelled examples each file is tried on (default 3)' },
  { flag: 'progress', arg: 'bar|lines|none', help: 'a progress bar (default on a terminal) or one line per example (default in a pipe)' },
] as const;

export function evalUsage(): string {
  return libraryUsage('usage: art eval LIBRARY --data DATA.jsonl [options]', 'the task library (.art) whose demonstrations are used', SHELL_FLAGS);
}

/** The help of a command over one task library with `art eval`'s run options: the library, its own flags, the options. */
export function libraryUsage(usage: string, library: string, flags: readonly { flag: string; arg: string; help: string }[]): string {
  const lines: [string, string][] = [
    ['LIBRARY', library],
    ...flags.map((f): [string, string] => [`--${f.flag}${f.arg ? ` ${f.arg}` : ''}`, f.help]),
    ...optionHelpLines(NOT_FOR_EVAL),
  ];
  return helpText(usage, lines);
}

export interface EvalIo {
  write: (s: string) => void;
  err: (s: string) => void;
  /** Whether standard output is a terminal (the progress bar); default process.stdout.isTTY. */
  isTTY?: boolean;
  stream?: NodeJS.WritableStream;
  env?: NodeJS.ProcessEnv;
  /** The current directory: LIBRARY, --data, --out, --runs and the default --cwd start there (default: the process's). */
  cwd?: string;
}

/**
 * The command line of a command over one task library with `art eval`'s run options (`art eval`, `art improve`):
 * its own flags and the options given, the library's absolute path and the folder paths start at; null after --help.
 */
export function libraryCommandLine(
  command: string,
  argv: string[],
  flags: readonly { flag: string; type?: 'string' | 'boolean' }[],
  usage: () => string,
  io: EvalIo,
): { values: Record<string, string | boolean | undefined>; given: Record<string, unknown>; library: string; here: string } | null {
  const { values, positionals, options } = parseCommandLine(
    command,
    argv,
    flags.map(f => ({ flag: f.flag, type: f.type ?? 'string' })),
    NOT_FOR_EVAL,
  );
  if (values.help) {
    io.write(`${usage()}\n`);
    return null;
  }
  if (positionals.length !== 1) throw new CliError(`art ${command}: give exactly one task library (.art)\n${usage()}`);
  const here = io.cwd ?? process.cwd();
  const library = resolve(here, positionals[0]);
  if (extname(library).toLowerCase() !== '.art') throw new CliError(`art ${command}: ${library}: give a task library (.art)`);
  return { values, given: options, library, here };
}

export async function evalCommand(argv: string[], io: EvalIo): Promise<number> {
  const line = libraryCommandLine('eval', argv, SHELL_FLAGS, evalUsage, io);
  if (!line) return 0;
  const { values, given, library: libraryPath, here } = line;
  if (typeof values.data !== 'string') throw new CliError('art eval: give the dataset: --data DATA.jsonl');
  const dataPath = resolve(here, values.data);
  // Run again: the latest results file of the library on the data (the first, or the last `--new` made).
  const resumable = resolve(
    here,
    typeof values.out === 'string' ? values.out : (resultsFiles(dataPath, libraryPath).at(-1) ?? defaultResultsPath(dataPath, libraryPath)),
  );
  if (values.new && values.resume) throw new CliError('art eval: --new and --resume: give one (a new results file, or resume the last)');
  // --new: a new results file beside the old one, which is kept (never overwritten) for `art compare`.
  const outPath = values.new && hasResults(resumable) ? newResultsPath(resumable) : resumable;
  const concurrency = positiveInt(values.concurrency, 4, '--concurrency');
  const selectExamples = positiveInt(values['select-examples'], 3, '--select-examples');
  const progress = progressKind(values.progress, io, 'eval');
  const env = io.env ?? process.env;

  const controller = new AbortController();
  let show: ReturnType<typeof progressReporter> | undefined;
  // A signal stops the runs in flight (./signals); the results file keeps what finished.
  return stoppable(
    signal => controller.abort(new Error(`stopped by ${signal}`)),
    async () => {
      try {
        const end = await evaluate({
          library: libraryPath,
          data: dataPath,
          out: outPath,
          resumeChangedLibrary: !!values.resume,
          options: { ...given, cwd: resolve(here, String(given.cwd ?? '.')) },
          optionLabel: cliLabel('LIBRARY'),
          apiKey: o => env[o.apiKeyEnv] || undefined,
          telemetryEnv: env,
          trusted: true,
          concurrency,
          selectExamples,
          runs: { folder: resolve(here, typeof values.runs === 'string' ? values.runs : DEFAULT_RUNS_FOLDER), gitignore: true },
          signal: controller.signal,
          log: line => io.err(`[art] ${line}`),
          onStart: s => {
            io.err(
              `[art] ${s.total} examples, ${s.done.length} already in ${s.resultsPath}, ${s.todo.length} to run (concurrency ${s.concurrency}${s.samples > 1 ? `, ${s.samples} samples` : ''}, select ${s.select})${s.done.length ? ' (art eval --new starts a new results file instead)' : ''}`,
            );
            show = progressReporter(String(progress), s.todo.length, s.done, io);
          },
          onResult: r => show?.add(r),
        });
        show?.stop();
        if (end.rateLimited)
          io.err(`[art] the endpoint rate-limited ${end.rateLimited.count} request(s): the bound went down to ${end.rateLimited.limit}`);
        io.write(`${formatSummary(summarise(end.results))}\nresults: ${end.resultsPath}\n`);
        if (end.stopped) {
          io.err(`art eval: stopped with ${end.results.length} of ${end.total} examples done: run the same command again to resume`);
          return 130;
        }
        return 0;
      } catch (e) {
        show?.stop();
        if (e instanceof LaunchError || e instanceof EvalDataError) throw new CliError(`art eval: ${e.message}`);
        throw e;
      }
    },
  );
}

export function positiveInt(v: unknown, def: number, flag: string, command = 'eval', least = 1): number {
  if (v === undefined) return def;
  const n = Number(v);
  if (!Number.isInteger(n) || n < least) throw new CliError(`art ${command}: ${flag}: expected an integer of at least ${least}, not "${String(v)}"`);
  return n;
}

/**
 * `--progress` checked, or its default: a bar on a terminal, a line per example in a pipe, nothing when standard
 * output carries one JSON object (`json`).
 */
export function progressKind(given: unknown, io: Pick<EvalIo, 'isTTY'>, command: string, json = false): string {
  const kind = String(given ?? (json ? 'none' : (io.isTTY ?? process.stdout.isTTY) ? 'bar' : 'lines'));
  if (!['bar', 'lines', 'none'].includes(kind)) throw new CliError(`art ${command}: --progress: expected bar, lines or none, not "${kind}"`);
  return kind;
}

/** The progress of the examples to run: a bar on a terminal, a line per example in a pipe, or nothing. */
export function progressReporter(kind: string, total: number, earlier: readonly EvalResult[], io: EvalIo) {
  const started = performance.now();
  let finished = 0;
  const all = [...earlier];
  const accuracy = () => (all.length ? `${((100 * all.filter(r => r.exact).length) / all.length).toFixed(1)}%` : '-');
  const rate = () => finished / Math.max(1e-3, (performance.now() - started) / 1000);
  if (kind === 'bar' && total > 0) {
    const bar = new SingleBar({
      format: 'eval [{bar}] {value}/{total} | {rate} ex/s | ETA {eta_formatted} | accuracy {accuracy}',
      stream: io.stream ?? process.stdout,
      hideCursor: true,
      etaBuffer: 20,
    });
    bar.start(total, 0, { rate: '0.00', accuracy: accuracy() });
    return {
      add(r: EvalResult) {
        all.push(r);
        finished++;
        bar.update(finished, { rate: rate().toFixed(2), accuracy: accuracy() });
      },
      stop: () => bar.stop(),
    };
  }
  return {
    add(r: EvalResult) {
      all.push(r);
      finished++;
      if (kind === 'none') return;
      const left = total - finished;
      const eta = left && rate() > 0 ? `${Math.ceil(left / rate())} s` : '0 s';
      const mark = r.exact ? 'ok' : r.end !== 'finished' ? r.end : 'wrong';
      io.write(
        `[${finished}/${total}] ${r.id}: ${mark} (answer ${JSON.stringify(r.answer)}, target ${JSON.stringify(r.target)}) | ${rate().toFixed(2)} ex/s | ETA ${eta} | accuracy ${accuracy()}\n`,
      );
    },
    stop: () => {},
  };
}
