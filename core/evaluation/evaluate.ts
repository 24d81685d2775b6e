// An evaluation of a task library over a dataset, as the shells start it (`art eval`, "ART: Evaluate Task"): reads
// the dataset and the results already in the results file, opens one run session (options, tools, the endpoint),
// chooses the demonstrations (once for `best-cluster`, per example otherwise) and runs the examples left through
// runEval under one request limiter (halved on a 429). Each example's run writes its trace into the run history (a
// runs folder, core/trace/history.ts) with its summary, and its result names that trace; an example the stop cut
// short leaves neither a result nor a trace, so running the same evaluation again redoes exactly the unfinished ones.
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, extname, join, relative } from 'node:path';
import { programTitle, type ArtDocument } from '../art/ast';
import { parseArt } from '../art/parse';
import { readTextFile, TextFileError } from '../common/textFile';
import { RequestLimiter } from '../model/limiter';
import { createArtRunner } from '../launch/create';
import {
  formatHeader,
  headerDifferences,
  libraryChanged,
  makeHeader,
  readHeader,
  resultsTargetProblem,
  sha256OfFile,
  type ResultsHeader,
} from './header';
import { EvalDataError, readDataset, readResults, runEval, type EvalExample, type EvalResult, type EvalRun } from './eval';
import { deleteRun, newRunId, prepareRunsFolder, runFiles, runsFolderProblem, writeSummary } from '../trace/history';
import { LaunchError } from '../launch/options';
import { pickProgram } from '../launch/pick';
import { chatModelNotes, openSession, runInfo, type RunSession } from '../launch/session';
import type { TraceSink } from '../trace/schema';
import type { ChatBackend } from '../model/chatContinuation';
import { HEADLESS, parseRunOptions, type RunOptionName, type RunOptions } from '../launch/options';
import { taskOf } from '../prompt/prompt';
import type { TaskSpec } from '../prompt/selection';
import { bestCluster, chooseDemonstrations, folderLibraries, type LibraryFile } from './taskSelection';
import { TraceWriter } from '../trace/trace';
import { ResultsFile } from './resultsFile';

export { EvalDataError, LaunchError };

/** The results file of an evaluation when none is given: `DATA.LIBRARY.results.jsonl` beside the data. */
export function defaultResultsPath(dataPath: string, libraryPath: string): string {
  return join(dirname(dataPath), `${basename(dataPath, extname(dataPath))}.${basename(libraryPath, extname(libraryPath))}.results.jsonl`);
}

/**
 * A results file beside `path` that does not exist yet, for a new evaluation that keeps the old one:
 * `DATA.LIBRARY.results.jsonl` → `DATA.LIBRARY-2.results.jsonl`, `-3`, ...
 */
export function newResultsPath(path: string): string {
  const m = /^(.*?)(?:-(\d+))?(\.results\.jsonl|\.jsonl|)$/.exec(path)!;
  const [stem, ext] = [m[1], m[3] || ''];
  for (let n = Math.max(2, Number(m[2] ?? 1) + 1); ; n++) {
    const candidate = `${stem}-${n}${ext}`;
    if (!existsSync(candidate)) return candidate;
  }
}

/**
 * The results files of a library on a dataset beside the data, oldest first: the default one and its new ones
 * (`-2`, `-3`, ...), those that exist. The last is the latest evaluation.
 */
export function resultsFiles(dataPath: string, libraryPath: string): string[] {
  const first = defaultResultsPath(dataPath, libraryPath);
  const out = existsSync(first) ? [first] : [];
  // `-2`, `-3`, ... in turn while they exist (newResultsPath skips those that exist: it names the next one to write).
  const stem = first.slice(0, -'.results.jsonl'.length);
  for (let n = 2; n < 10_000 && existsSync(`${stem}-${n}.results.jsonl`); n++) out.push(`${stem}-${n}.results.jsonl`);
  return out;
}

/** Whether a results file holds any result yet (a header alone does not count). */
export function hasResults(path: string): boolean {
  return readResults(path).size > 0;
}

/**
 * Whether the results file holds results of another version of the library than `library`'s content now (by its
 * header's content hash): resuming it would mix the two. Returns the two hashes' first 8 hex digits then, else null
 * (no results yet, a file from before headers, the same library).
 */
export function libraryChangedSince(resultsPath: string, library: string): { was: string; now: string } | null {
  const h = readHeader(resultsPath);
  if (!h || !hasResults(resultsPath)) return null;
  let now: string;
  try {
    now = sha256OfFile(library);
  } catch {
    return null; // the library cannot be read: evaluate says so
  }
  return h.library.sha256 === now ? null : { was: h.library.sha256.slice(0, 8), now: now.slice(0, 8) };
}

/** The tasks of a library an evaluation can run its examples as: the programs (not the template), by index and title. */
export function libraryTasks(doc: ArtDocument): { index: number; title: string }[] {
  return doc.programs.flatMap((p, index) => (p.template ? [] : [{ index, title: programTitle(p, index) }]));
}

/** The first example that names no task of its own (no `description`): then the evaluation needs a task of the library. */
export function exampleWithoutTask(examples: EvalExample[]): EvalExample | undefined {
  return examples.find(e => e.description === undefined);
}

export interface EvaluationStart {
  /** Examples in the dataset, those already in the results file, and those to run now. */
  total: number;
  done: EvalResult[];
  todo: EvalExample[];
  resultsPath: string;
  concurrency: number;
  samples: number;
  select: RunOptions['select'];
  /** What produces the results: the header of a new results file, or that of the file resumed (null: from before headers). */
  header: ResultsHeader | null;
}

export interface EvaluationConfig {
  /** The task library (.art) and the dataset (JSONL), absolute paths. */
  library: string;
  data: string;
  /**
   * The results file (appended to, resumed from); default defaultResultsPath. When it holds results of another
   * version of the library, the evaluation goes into a new results file beside it (newResultsPath), said in the log,
   * unless `resumeChangedLibrary`.
   */
  out?: string;
  /** Resume `out` even when the library changed since it was begun (its results then mix two versions). */
  resumeChangedLibrary?: boolean;
  /** The run options as given (the CLI's flags, the workspace's settings); `program` and `mode` are set here. */
  options: Record<string, unknown>;
  /** How a run option is named in an error (a flag, a setting); default the launch configuration's name. */
  optionLabel?: (name: RunOptionName) => string;
  /**
   * The key, read by the shell given the options (the environment variable `apiKeyEnv` names; VS Code: its secret
   * storage first, and a question before it goes to another host than the user's setting). Never traced.
   */
  apiKey?(o: RunOptions): string | undefined | Promise<string | undefined>;
  /** Whether anything may run (the workspace trust). */
  trusted: boolean;
  /** The tool file's tools (commands, HTTP tools, MCP servers) start nothing and answer with this (registry.ts). */
  userToolsRefused?: string;
  /** With the option modelSource "vscode": the chat model the caller has (VS Code's Language Model API). */
  chatModel?: ChatBackend;
  /** Examples run at once, and the bound on requests in flight. */
  concurrency: number;
  /** `best-cluster`: the labelled examples each file is tried on. Default 3. */
  selectExamples?: number;
  /** The run history each example's trace and summary go into; none: no traces. */
  runs?: { folder: string; gitignore: boolean };
  signal?: AbortSignal;
  /**
   * The most requests this evaluation may start (`art improve --budget`): once they are spent it stops as the signal
   * would (`budgetSpent`), its unfinished examples left out of the results to run again another time.
   */
  maxRequests?: number;
  log(line: string): void;
  /** The environment whose OTEL_* variables configure telemetry when the `otlp` option does not (the CLI's). */
  telemetryEnv?: NodeJS.ProcessEnv;
  /** Once the data, the results so far and the session are ready, before the first example runs. */
  onStart?(start: EvaluationStart): void;
  /** Each example finished, once appended to the results file. */
  onResult?(result: EvalResult): void;
}

export interface EvaluationEnd {
  /** Every result of the dataset's examples done so far, in the dataset's order. */
  results: EvalResult[];
  total: number;
  resultsPath: string;
  stopped: boolean;
  /** With maxRequests: whether they were spent (and stopped the evaluation). */
  budgetSpent: boolean;
  /** Requests started by this evaluation (not those of the results it resumed). */
  requestsSent: number;
  /** 429s the endpoint answered, and the bound on requests in flight they left. */
  rateLimited: { count: number; limit: number } | null;
}

/** Runs an evaluation; throws EvalDataError (the data or library cannot be read) or LaunchError (the options, the session). */
export async function evaluate(c: EvaluationConfig): Promise<EvaluationEnd> {
  let resultsPath = c.out ?? defaultResultsPath(c.data, c.library);
  const changed = c.resumeChangedLibrary ? null : libraryChangedSince(resultsPath, c.library);
  if (changed) {
    const fresh = newResultsPath(resultsPath);
    c.log(
      `${basename(c.library)} changed since ${resultsPath} was begun (library ${changed.was} → ${changed.now}): the examples run again in a new results file, ${fresh}; the old one is kept to compare with`,
    );
    resultsPath = fresh;
  }
  let examples: EvalExample[];
  let doc: ArtDocument;
  try {
    examples = readDataset(c.data);
    doc = parseArt(readTextFile(c.library));
  } catch (e) {
    if (e instanceof TextFileError) throw new EvalDataError(`${c.library}: ${e.message}`);
    throw e;
  }
  const raw: Record<string, unknown> = { ...c.options, program: c.library, mode: 'generate' };
  const o = parseRunOptions(raw, c.optionLabel);
  let base: TaskSpec | undefined;
  let baseTitle: string | undefined;
  if (o.task !== undefined) {
    const index = pickProgram(doc, o.task);
    base = taskOf(doc, index);
    baseTitle = base.taskName ?? programTitle(doc.programs[index], index);
  }
  const missing = exampleWithoutTask(examples);
  if (!base && missing)
    throw new LaunchError(
      `${c.data}:${missing.line}: the example has no "description": give one per example, or ${c.optionLabel?.('task') ?? 'task'} to use a task of the library`,
    );
  // The results file (locked against a second evaluation, its last line repaired) and the run history are checked
  // writable before anything runs: a file that cannot be written is one line now, not an error after the first example.
  const refused = resultsTargetProblem(resultsPath);
  if (refused) throw new EvalDataError(refused);
  let file: ResultsFile | undefined;
  let session: RunSession | undefined;
  try {
    const apiKey = (await c.apiKey?.(o)) || undefined;
    session = await openSession({
      ...o,
      apiKey,
      trusted: c.trusted,
      ...HEADLESS,
      log: c.log,
      chatModel: c.chatModel,
      userToolsRefused: c.userToolsRefused,
      telemetryEnv: c.telemetryEnv,
    });
    // No model is one error now, before the results file or the run history is written (not one per example).
    session.endpointModel();
    if (c.runs) prepareHistory(c.runs.folder, c.runs.gitignore);
    file = ResultsFile.open(resultsPath, c.log);
    file.redact([apiKey]);
    return await evaluateIn(c, { resultsPath, examples, doc, o, base, baseTitle, apiKey, session, file });
  } finally {
    file?.close();
    await session?.dispose();
  }
}

interface Prepared {
  resultsPath: string;
  examples: EvalExample[];
  doc: ArtDocument;
  o: RunOptions;
  base: TaskSpec | undefined;
  baseTitle: string | undefined;
  apiKey: string | undefined;
  session: RunSession;
  file: ResultsFile;
}

async function evaluateIn(
  c: EvaluationConfig,
  { resultsPath, examples, doc, o, base, baseTitle, apiKey, session, file }: Prepared,
): Promise<EvaluationEnd> {
  const done = file.done;
  const todo = examples.filter(e => !done.has(e.id));
  const results: EvalResult[] = examples.flatMap(e => (done.has(e.id) ? [done.get(e.id)!] : []));
  const opts = session.options;
  for (const p of [...session.tools.notes, ...session.tools.problems]) c.log(`tools: ${p}`);
  for (const note of chatModelNotes(opts, c.chatModel)) c.log(note);
  const header = writeOrCheckHeader(
    file,
    makeHeader({
      library: c.library,
      data: c.data,
      resultsPath,
      options: opts,
      root: session.root,
      chatModel: opts.modelSource === 'vscode' ? c.chatModel?.id : undefined,
    }),
    c.log,
  );
  c.onStart?.({
    total: examples.length,
    done: [...results],
    todo,
    resultsPath,
    concurrency: c.concurrency,
    samples: opts.samples,
    select: opts.select,
    header,
  });

  // A results file that cannot be written (a full disk) or a spent request budget stops the evaluation: the examples
  // in flight run again next time.
  let writeFailed: EvalDataError | undefined;
  let budgetSpent = false;
  const stop = new AbortController();
  const limiter = new RequestLimiter(
    c.concurrency,
    c.maxRequests === undefined
      ? undefined
      : {
          requests: c.maxRequests,
          onSpent: () => {
            budgetSpent = true;
            stop.abort(new Error(`the request budget (${c.maxRequests}) is spent`));
          },
        },
  );
  // One client per run (the runner reports its own retries), all under the one limiter.
  const newModel = () => limiter.wrap(session.endpointModel());
  let libraries: LibraryFile[] =
    opts.select === 'same-file' ? [{ path: c.library, doc }] : folderLibraries(c.library, doc, line => c.log(`select ${opts.select}: ${line}`));
  let strategy = opts.select;
  const taskFor = (ex: { description?: string }): TaskSpec => ({
    ...base,
    input: '',
    ...(ex.description !== undefined ? { description: ex.description, taskName: undefined } : {}),
  });
  if (strategy === 'best-cluster' && todo.length) {
    // Once for the whole evaluation: each file of the folder tried on the first examples.
    const labelled = examples.slice(0, c.selectExamples ?? 3);
    c.log(`best-cluster: trying ${libraries.length} library file(s) on the first ${labelled.length} example(s)`);
    const best = await bestCluster({
      strategy,
      libraries,
      task: taskFor(examples[0] ?? {}),
      labelled,
      runnerOptions: session.runnerOptions(newModel()),
      signal: c.signal,
      explain: line => c.log(`best-cluster: ${line}`),
    });
    c.log(`best-cluster: ${best.path} (${best.correct}/${best.tried})`);
    libraries = [best];
    strategy = 'same-file';
  }
  const runIds = new Set<string>();
  const onAbort = () => stop.abort(c.signal?.reason);
  c.signal?.addEventListener('abort', onAbort, { once: true });
  if (c.signal?.aborted) onAbort();
  const program = relative(session.root, c.library) || basename(c.library);
  const taskLabel = (ex: EvalExample) => ex.description ?? baseTitle;
  // The evaluation's span, an example's span under it (its score), the example's runs under that (telemetry, when configured).
  const spans = session.telemetry?.evaluation(program, [apiKey], {
    'art.program.file': program,
    'art.eval.data': relative(session.root, c.data) || basename(c.data),
    'art.eval.examples': examples.length,
  });
  const runSpans = (ex: EvalExample) =>
    session.telemetry?.runSink(runInfo(opts, taskLabel(ex) ?? program, program, taskLabel(ex)), [apiKey], spans?.example(ex.id));
  const both = (a: TraceSink | undefined, b: TraceSink | undefined): TraceSink | undefined =>
    a && b ? { write: r => (a.write(r), b.write(r)) } : (a ?? b);
  const { stopped } = await runEval({
    examples: todo,
    concurrency: c.concurrency,
    samples: opts.samples,
    signal: stop.signal,
    taskOf: taskLabel,
    makeRunner: async (ex, sample): Promise<EvalRun> => {
      const task = { ...taskFor(ex), input: ex.input };
      const model = newModel();
      const demonstrations = await chooseDemonstrations({ strategy, libraries, task, model, signal: c.signal });
      const telemetry = runSpans(ex);
      if (!c.runs)
        return {
          runner: createArtRunner({ library: doc, task, demonstrations, inlineTriggers: o.inlineTriggers }, session.runnerOptions(model, telemetry)),
          ended: () => telemetry?.close(),
        };
      const folder = c.runs.folder;
      const id = freshRunId(folder, runIds, c.library, opts.samples > 1 ? `${ex.id}-s${sample + 1}` : ex.id);
      const path = runFiles(folder, id).trace;
      let writer: TraceWriter;
      try {
        writer = new TraceWriter(path, apiKey ? [apiKey] : []);
      } catch (e) {
        throw new LaunchError(`${path}: cannot write the trace: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
      try {
        const runner = createArtRunner(
          { library: doc, task, demonstrations, inlineTriggers: o.inlineTriggers },
          session.runnerOptions(model, both(writer, telemetry)),
        );
        return {
          runner,
          trace: relative(dirname(resultsPath), path).split('\\').join('/'),
          ended: kept => {
            writer.close();
            telemetry?.close();
            if (!kept) deleteRun(folder, id);
            else
              try {
                writeSummary(folder, id, {
                  program,
                  task: taskLabel(ex),
                  evaluation: { results: relative(session.root, resultsPath) || basename(resultsPath), example: ex.id },
                });
              } catch (e) {
                c.log(`run history: ${path}: ${(e as Error).message}`);
              }
          },
        };
      } catch (e) {
        writer.close();
        telemetry?.close();
        deleteRun(folder, id);
        throw e;
      }
    },
    onResult: r => {
      if (writeFailed) return;
      try {
        file.append(r);
      } catch (e) {
        writeFailed = e as EvalDataError;
        stop.abort(writeFailed);
        return;
      }
      results.push(r);
      spans?.exampleEnded(r);
      c.onResult?.(r);
    },
  });
  c.signal?.removeEventListener('abort', onAbort);
  spans?.end(results, examples.length, stopped);
  if (writeFailed) throw writeFailed;
  const order = new Map(examples.map((e, i) => [e.id, i]));
  return {
    results: results.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0)),
    total: examples.length,
    resultsPath,
    stopped,
    budgetSpent,
    requestsSent: limiter.started,
    rateLimited: limiter.rateLimited ? { count: limiter.rateLimited, limit: limiter.limit } : null,
  };
}

/** The run history's folder, made where it is missing; one line naming it when it cannot be. */
function prepareHistory(folder: string, gitignore: boolean): void {
  const refused = runsFolderProblem(folder);
  if (refused) throw new EvalDataError(refused);
  try {
    prepareRunsFolder(folder, gitignore);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    throw new EvalDataError(`${folder}: cannot write the run history there (${code}): make that folder writable, or give another runs folder`);
  }
}

/**
 * A new (or empty) results file begins with the header; one being resumed keeps its own, and when it was made by
 * another library version, model or options, the log says so (the results would mix: a new results file is the fix).
 */
function writeOrCheckHeader(file: ResultsFile, header: ResultsHeader, log: (line: string) => void): ResultsHeader | null {
  const path = file.path;
  if (statSync(path).size === 0) {
    file.append(header);
    return header;
  }
  const old = readHeader(path);
  if (!old) return null;
  const differences = [...(libraryChanged(old, header) ? ['the library changed'] : []), ...headerDifferences(old, header)];
  if (differences.length)
    log(
      `${path} was begun by ${formatHeader(old)}; this run differs (${differences.join('; ')}): its results will mix with the old ones; use a new results file to compare them`,
    );
  return old;
}

/** A run id for an example's run not yet used in the folder nor by this evaluation (examples start in the same ms). */
function freshRunId(folder: string, used: Set<string>, library: string, part: string): string {
  const base = newRunId(library, new Date(), part);
  let id = base;
  for (let n = 2; used.has(id) || existsSync(runFiles(folder, id).trace); n++) id = `${base}-${n}`;
  used.add(id);
  return id;
}
