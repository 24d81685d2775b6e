// `art eval LIBRARY --data DATA.jsonl`: runs every example of a dataset as a new task of the library against the
// model endpoint, a bounded number at once (one shared limit on requests in flight, halved on a 429), appends each
// finished example to the results file, and prints a summary. On a terminal a progress bar (cli-progress) shows the
// rate, the ETA and the running accuracy; in a pipe one plain line per example. SIGINT/SIGTERM stop the runs in
// flight; running the same command again resumes from the results file and redoes no finished example. The run
// options' flags (core/runner/options.ts) apply, except those of a single run (--input, --trace, --mode).
import { appendFileSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { SingleBar } from 'cli-progress';
import { parseArt } from '../art/parse';
import type { ArtDocument } from '../art/ast';
import { readTextFile, TextFileError } from '../common/textFile';
import { RequestLimiter } from '../model/limiter';
import { createArtRunner } from '../runner/create';
import { EvalDataError, formatSummary, readDataset, readResults, runEval, summarise, type EvalExample, type EvalResult } from '../runner/eval';
import { LaunchError, openSession, pickProgram, type RunSession } from '../runner/launch';
import { RUN_OPTIONS, parseRunOptions, type RunOptionName } from '../runner/options';
import { taskOf } from '../runner/prompt';
import { bestCluster, chooseDemonstrations, folderLibraries, type LibraryFile } from '../runner/taskSelection';
import type { TaskSpec } from '../runner/selection';
import { CliError } from './files';
import { helpText, optionHelpLines, parseCommandLine } from './optionFlags';

/** Run options that belong to one run, not to an evaluation. */
const NOT_FOR_EVAL = new Set<RunOptionName>(['input', 'trace', 'mode', 'replayDelayMs', 'stopOnEntry', 'pauseBeforeTool', 'search', 'budget']);

const SHELL_FLAGS = [
  { flag: 'data', arg: 'DATA.jsonl', help: 'the dataset: one {"input", "target"} object a line (optional "id", "description")' },
  { flag: 'out', arg: 'RESULTS.jsonl', help: 'the results file, appended to and resumed from (default: DATA.LIBRARY.results.jsonl beside the data)' },
  { flag: 'concurrency', arg: 'C', help: 'examples run at once, and the bound on requests in flight (default 4)' },
  { flag: 'select-examples', arg: 'N', help: '--select best-cluster: the labelled examples each file is tried on (default 3)' },
  { flag: 'progress', arg: 'bar|lines|none', help: 'a progress bar (default on a terminal) or one line per example (default in a pipe)' },
] as const;

export function evalUsage(): string {
  const lines: [string, string][] = [
    ['LIBRARY', 'the task library (.art) whose demonstrations are used'],
    ...SHELL_FLAGS.map((f): [string, string] => [`--${f.flag} ${f.arg}`, f.help]),
    ...optionHelpLines(NOT_FOR_EVAL),
  ];
  return helpText('usage: art eval LIBRARY --data DATA.jsonl [options]', lines);
}

export interface EvalIo {
  write: (s: string) => void;
  err: (s: string) => void;
  /** Whether standard output is a terminal (the progress bar); default process.stdout.isTTY. */
  isTTY?: boolean;
  stream?: NodeJS.WritableStream;
  env?: NodeJS.ProcessEnv;
}

export async function evalCommand(argv: string[], io: EvalIo): Promise<number> {
  const {
    values,
    positionals,
    options: given,
  } = parseCommandLine(
    'eval',
    argv,
    SHELL_FLAGS.map(f => ({ flag: f.flag, type: 'string' as const })),
    NOT_FOR_EVAL,
  );
  if (values.help) {
    io.write(`${evalUsage()}\n`);
    return 0;
  }
  if (positionals.length !== 1) throw new CliError(`art eval: give exactly one task library (.art)\n${evalUsage()}`);
  if (typeof values.data !== 'string') throw new CliError('art eval: give the dataset: --data DATA.jsonl');
  const libraryPath = resolve(positionals[0]);
  if (extname(libraryPath).toLowerCase() !== '.art') throw new CliError(`art eval: ${libraryPath}: give a task library (.art)`);
  const dataPath = resolve(values.data);
  const outPath = resolve(
    typeof values.out === 'string'
      ? values.out
      : join(dirname(dataPath), `${basename(dataPath, extname(dataPath))}.${basename(libraryPath, '.art')}.results.jsonl`),
  );
  const concurrency = positiveInt(values.concurrency, 4, '--concurrency');
  const selectExamples = positiveInt(values['select-examples'], 3, '--select-examples');
  const progress = values.progress ?? ((io.isTTY ?? process.stdout.isTTY) ? 'bar' : 'lines');
  if (!['bar', 'lines', 'none'].includes(String(progress)))
    throw new CliError(`art eval: --progress: expected bar, lines or none, not "${progress}"`);

  const raw: Record<string, unknown> = { program: libraryPath, mode: 'generate', ...given };
  const env = io.env ?? process.env;

  let examples: EvalExample[];
  let doc: ArtDocument;
  try {
    examples = readDataset(dataPath);
    doc = parseArt(readTextFile(libraryPath));
  } catch (e) {
    if (e instanceof EvalDataError || e instanceof TextFileError) throw new CliError(`art eval: ${e.message}`);
    throw e;
  }
  let session: RunSession;
  let base: TaskSpec | undefined;
  try {
    const o = parseRunOptions(raw, name => (name === 'program' ? 'LIBRARY' : `--${RUN_OPTIONS[name].cli?.flag ?? name}`));
    if (o.task !== undefined) base = taskOf(doc, pickProgram(doc, o.task));
    const missing = examples.find(e => e.description === undefined);
    if (!base && missing)
      throw new LaunchError(
        `${dataPath}:${missing.line}: the example has no "description": give one per example, or --task T to use a task of the library`,
      );
    session = await openSession({
      ...o,
      apiKey: env[o.apiKeyEnv] || undefined,
      trusted: true,
      pauseAfterTool: false,
      pauseOnToolError: false,
      log: line => io.err(`[art] ${line}`),
    });
  } catch (e) {
    if (e instanceof LaunchError) throw new CliError(`art eval: ${e.message}`);
    throw e;
  }

  const done = readResults(outPath);
  const todo = examples.filter(e => !done.has(e.id));
  const results: EvalResult[] = examples.flatMap(e => (done.has(e.id) ? [done.get(e.id)!] : []));
  const controller = new AbortController();
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
    stopping = true;
    controller.abort(new Error(`stopped by ${signal}`));
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const s of signals) process.on(s, onSignal);

  const o = session.options;
  for (const p of session.tools.notes) io.err(`[art] tools: ${p}`);
  for (const p of session.tools.problems) io.err(`[art] tools: ${p}`);
  io.err(
    `[art] ${examples.length} examples, ${results.length} already in ${outPath}, ${todo.length} to run (concurrency ${concurrency}${o.samples > 1 ? `, ${o.samples} samples` : ''}, select ${o.select})`,
  );
  const show = progressReporter(String(progress), todo.length, results, io);
  try {
    const limiter = new RequestLimiter(concurrency);
    // One client per run (the runner reports its own retries), all under the one limiter.
    const newModel = () => limiter.wrap(session.endpointModel());
    const model = newModel();
    let libraries: LibraryFile[] = o.select === 'same-file' ? [{ path: libraryPath, doc }] : folderLibraries(libraryPath, doc);
    let strategy = o.select;
    if (strategy === 'best-cluster') {
      // Once for the whole evaluation: each file of the folder tried on the first examples.
      const labelled = examples.slice(0, selectExamples);
      io.err(`[art] best-cluster: trying ${libraries.length} library file(s) on the first ${labelled.length} example(s)`);
      const best = await bestCluster({
        strategy,
        libraries,
        task: {
          ...base,
          input: '',
          ...(examples[0]?.description !== undefined ? { description: examples[0].description, taskName: undefined } : {}),
        },
        labelled,
        runnerOptions: session.runnerOptions(model),
        signal: controller.signal,
        explain: line => io.err(`[art] best-cluster: ${line}`),
      });
      io.err(`[art] best-cluster: ${best.path} (${best.correct}/${best.tried})`);
      libraries = [best];
      strategy = 'same-file';
    }
    const { stopped } = await runEval({
      examples: todo,
      concurrency,
      samples: o.samples,
      signal: controller.signal,
      makeRunner: async ex => {
        const task: TaskSpec = {
          ...base,
          input: ex.input,
          ...(ex.description !== undefined ? { description: ex.description, taskName: undefined } : {}),
        };
        const runnerOptions = session.runnerOptions(newModel());
        const chosen = await chooseDemonstrations({
          strategy,
          libraries,
          task,
          model: runnerOptions.model,
          signal: controller.signal,
        });
        return createArtRunner({ library: doc, task, demonstrations: chosen }, runnerOptions);
      },
      onResult: r => {
        appendFileSync(outPath, `${JSON.stringify(r)}\n`);
        results.push(r);
        show.add(r);
      },
    });
    show.stop();
    if (limiter.rateLimited) io.err(`[art] the endpoint rate-limited ${limiter.rateLimited} request(s): the bound went down to ${limiter.limit}`);
    io.write(`${formatSummary(summarise(results))}\nresults: ${outPath}\n`);
    if (stopped) {
      io.err(`art eval: stopped with ${results.length} of ${examples.length} examples done: run the same command again to resume`);
      return 130;
    }
    return 0;
  } catch (e) {
    show.stop();
    if (e instanceof LaunchError) throw new CliError(`art eval: ${e.message}`);
    throw e;
  } finally {
    for (const s of signals) process.removeListener(s, onSignal);
    await session.dispose();
  }
}

function positiveInt(v: unknown, def: number, flag: string): number {
  if (v === undefined) return def;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new CliError(`art eval: ${flag}: expected an integer of at least 1, not "${String(v)}"`);
  return n;
}

/** The progress of the examples to run: a bar on a terminal, a line per example in a pipe, or nothing. */
function progressReporter(kind: string, total: number, earlier: readonly EvalResult[], io: EvalIo) {
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
