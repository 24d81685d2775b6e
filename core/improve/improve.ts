// `art improve`: a task library improved by demonstrations bootstrapped from its own runs, and the gain proven.
// 1. Bootstrap: the library runs the training examples at a temperature above 0 (several rounds as the budget
//    allows); each run whose answer is right (exact match) becomes a candidate demonstration (./candidates.ts) when
//    its replay reproduces it.
// 2. Choose: candidate sets (candidates added in a random order, the library's demonstrations kept or left out),
//    drawn by a generator seeded with --seed, are scored on the dev split; the best is kept, the original on a tie.
// 3. Prove: the original and the chosen library run the test split and are compared example by example as
//    `art compare` does (McNemar's exact test); a gain is claimed only when p < 0.05 and the improved library is better.
// Every evaluation is core/evaluation/evaluate.ts with its own results file in the work folder, named by what it
// evaluates (the library's text, the data, the options): an identical evaluation is run once, and running the same
// command again after a stop resumes each one where it was, so it reuses every request already made. The budget is
// counted in requests from the results (the same on a resumed run as on an uninterrupted one) and caps what is sent.
import { readFileSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { parseArt } from '../art/parse';
import { readTextFile, writeTargetProblem } from '../common/textFile';
import { makeOwnedFolder, OwnedFileError, writeOwnedFile } from '../common/ownedFiles';
import { prng, shuffled } from '../common/random';
import { compareResults, formatP, type Comparison } from '../evaluation/compare';
import { EvalDataError, readDataset, readResults, type EvalExample, type EvalResult } from '../evaluation/eval';
import { evaluate, type EvaluationConfig, type EvaluationEnd } from '../evaluation/evaluate';
import { testProgram } from '../evaluation/libraryTest';
import { HEADLESS, LaunchError, parseRunOptions, type RunOptions } from '../launch/options';
import { openSession } from '../launch/session';
import {
  candidateOf,
  contentHash,
  existingDemonstrations,
  HEADER_PREFIX,
  libraryText,
  withHeader,
  type Candidate,
  type CandidateSet,
} from './candidates';
import { formatPlan, planBudget, requestsPerRun, type ImprovePlan } from './plan';
import { checkSplits } from './splits';

export { PlanError } from './plan';

/** The bootstrap's temperature when the options give none above 0. */
export const BOOTSTRAP_TEMPERATURE = 0.7;

export type ImprovePhase = 'bootstrap' | 'dev' | 'test';

/** What every evaluation of `art improve` is given as `art eval` gives it: the run options, the key, the trust, ... */
type EvaluationShared = Pick<
  EvaluationConfig,
  'options' | 'optionLabel' | 'apiKey' | 'trusted' | 'userToolsRefused' | 'chatModel' | 'concurrency' | 'signal' | 'log'
>;

export interface ImproveConfig extends EvaluationShared {
  /** The task library and the three splits (JSONL), absolute paths. */
  library: string;
  train: string;
  dev: string;
  test: string;
  /** The proposed library (default LIBRARY.improved.art); never the library itself. */
  out?: string;
  /** The most requests everything may send. */
  budget: number;
  /** Seeds the choice of candidate sets, and each bootstrap round's sampling (the run option `seed`, round by round). */
  seed: number;
  /** The bootstrap's temperature (default: the options' when above 0, else BOOTSTRAP_TEMPERATURE). */
  temperature?: number;
  maxRounds?: number;
  maxSets?: number;
  /** Candidates one set adds at most. Default 4. */
  maxAdded?: number;
  /** Where the evaluations' results and traces are kept (default `.art/improve/NAME` beside the proposed file). */
  work?: string;
  /** The plan, before anything runs. */
  onPlan?(plan: ImprovePlan, text: string): void;
  /** An evaluation starts: its phase, what it is, its examples and those already done. */
  onEvaluation?(e: { phase: ImprovePhase; label: string; total: number; done: number }): void;
  onResult?(phase: ImprovePhase, r: EvalResult): void;
}

export interface ImproveSide {
  n: number;
  correct: number;
  accuracy: number;
}

export interface AddedDemonstration {
  /** The training example's id and line. */
  id: string;
  line: number;
  program: string;
}

export interface ImproveEnd {
  plan: ImprovePlan;
  /** The test split: the original, the improved, compared. */
  baseline: ImproveSide;
  improved: ImproveSide;
  comparison: Comparison;
  pValue: number;
  significant: boolean;
  added: AddedDemonstration[];
  /** Titles of the library's demonstrations the chosen set leaves out. */
  removed: string[];
  candidates: number;
  /** Candidate sets scored on dev (the original included), and the dev accuracy of the original and the chosen. */
  sets: number;
  dev: { n: number; baseline: number; best: number };
  /** Requests of every run used (those reused from an earlier, stopped command included), and those sent now. */
  requests: number;
  requestsSent: number;
  /** The proposed library, its text, and the test results files compared. */
  out: string;
  text: string;
  work: string;
  results: { baseline: string; improved: string };
  notes: string[];
}

export class ImproveError extends Error {}

/**
 * Why the proposed library may not be written at `out`, or null: only over nothing, an empty file, or an earlier
 * proposal (its first line art improve's header), never over a file of the user's (a caller of `art mcp` may be
 * prompt-injected: `out: "package.json"` must not replace it).
 */
export function proposalTargetProblem(out: string): string | null {
  return writeTargetProblem(out, (_json, line) => line.startsWith(HEADER_PREFIX), {
    notOwn: `not a library art improve proposed (its first line is not "${HEADER_PREFIX} …"), so it is not written over`,
    give: 'move it away, or name another file for the proposed library (art improve --out, MCP improve\'s "out")',
  });
}

/** The proposed library's path when none is given: `LIBRARY.improved.art` beside it. */
export function defaultImprovedPath(library: string): string {
  return join(dirname(library), `${basename(library, extname(library))}.improved.art`);
}

/**
 * Where the evaluations of a proposal are kept: `.art/improve/NAME` beside the proposed file (ART Studio's own folder,
 * which the editor's pickers and the Test Explorer leave out), kept out of git.
 */
export function defaultWorkFolder(out: string): string {
  return join(dirname(out), '.art', 'improve', basename(out, extname(out)));
}

/**
 * Makes the work folder; under `.art/improve/`, a .gitignore there keeps the evaluations out of git (once). No link
 * is followed in it, nor to it below `.art` (core/common/ownedFiles.ts): a planted `train.jsonl -> ~/.bashrc` is refused.
 */
function prepareWork(work: string): void {
  makeOwnedFolder(work);
  const parent = dirname(work);
  if (basename(parent) !== 'improve') return;
  try {
    writeOwnedFile(join(parent, '.gitignore'), '# art improve: the evaluations of its proposals\n*\n', 'new');
  } catch (e) {
    if (!(e instanceof OwnedFileError && e.kind === 'exists')) throw e;
  }
}

const side = (s: Comparison['a']): ImproveSide => ({ n: s.n, correct: s.correct, accuracy: s.accuracy });

export async function improve(c: ImproveConfig): Promise<ImproveEnd> {
  const out = resolve(c.out ?? defaultImprovedPath(c.library));
  if (out === resolve(c.library)) throw new ImproveError(`${out}: the proposed library is never written over the original: give another --out`);
  const target = proposalTargetProblem(out);
  if (target) throw new ImproveError(target);
  let original: string;
  try {
    original = readTextFile(c.library);
  } catch (e) {
    throw new EvalDataError(`${c.library}: ${(e as Error).message}`);
  }
  const splits = { train: readDataset(c.train), dev: readDataset(c.dev), test: readDataset(c.test) };
  for (const [name, examples] of Object.entries(splits))
    if (!examples.length) throw new EvalDataError(`${c[name as 'train']}: the ${name} split has no example`);
  const doc = parseArt(original);
  const demos = existingDemonstrations(original);
  const checked = checkSplits(
    splits,
    demos.map(i => doc.programs[i].input!.text),
  );
  const notes = [...checked.notes];
  for (const n of notes) c.log(n);
  if (!checked.train.length)
    throw new EvalDataError(`${c.train}: every training example is also in the dev or test split: nothing is left to bootstrap from`);
  const plan = planBudget(c.budget, { train: checked.train.length, dev: splits.dev.length, test: splits.test.length }, requestsPerRun(original), {
    maxRounds: c.maxRounds ?? 3,
    maxSets: c.maxSets ?? 16,
  });
  c.onPlan?.(plan, formatPlan(plan));
  // The options are checked now, before anything runs (evaluate checks them again).
  const o = parseRunOptions({ ...c.options, program: c.library, mode: 'generate' }, c.optionLabel);
  const temperature = c.temperature ?? (o.temperature !== undefined && o.temperature > 0 ? o.temperature : BOOTSTRAP_TEMPERATURE);
  if (!(temperature > 0)) throw new ImproveError('the bootstrap samples at a temperature above 0: give one');

  const work = resolve(c.work ?? defaultWorkFolder(out));
  prepareWork(work);
  const trainFile = join(work, 'train.jsonl');
  writeOwnedFile(trainFile, checked.train.map(e => readLine(c.train, e)).join(''), 'replace');
  const dataHash = (path: string) => contentHash(readFileSync(path, 'utf8'));
  const optionsKey = JSON.stringify(Object.entries(c.options).sort(([a], [b]) => a.localeCompare(b)));

  let spent = 0;
  let sent = 0;
  let perRun = plan.perRun;
  let runs = 0;
  let stopped = false;
  const account = (results: readonly EvalResult[]) => {
    spent += results.reduce((s, r) => s + r.requests, 0);
    runs += results.length;
    if (runs) perRun = Math.max(1, spent / runs);
  };

  /** One evaluation of a library text on a split, resumed from its results file when it has one. */
  const run = async (
    phase: ImprovePhase,
    label: string,
    text: string,
    data: string,
    extra: Record<string, unknown>,
    tag: string,
    reserve: number,
  ): Promise<{ end: EvaluationEnd; path: string } | null> => {
    const hash = contentHash(text);
    const library = text === original ? c.library : join(work, 'sets', hash, basename(c.library));
    // Written each time (named by its content, so the same text): a link planted at its name is refused, not read.
    if (library !== c.library) writeOwnedFile(library, text, 'replace');
    const key = contentHash(JSON.stringify([hash, dataHash(data), optionsKey, extra, tag]));
    const path = join(work, `${phase}-${key}.results.jsonl`);
    const before = readResults(path);
    const already = [...before.values()].reduce((s, r) => s + r.requests, 0);
    const end = await evaluate({
      library,
      data,
      out: path,
      options: { ...c.options, ...extra },
      optionLabel: c.optionLabel,
      apiKey: c.apiKey,
      trusted: c.trusted,
      userToolsRefused: c.userToolsRefused,
      chatModel: c.chatModel,
      concurrency: c.concurrency,
      runs: { folder: join(work, 'runs'), gitignore: true },
      signal: c.signal,
      maxRequests: Math.max(0, c.budget - reserve - spent - already),
      log: c.log,
      onStart: s => c.onEvaluation?.({ phase, label, total: s.total, done: s.done.length }),
      onResult: r => c.onResult?.(phase, r),
    });
    sent += end.requestsSent;
    if (end.stopped && !end.budgetSpent) {
      stopped = true;
      return null;
    }
    account(end.results);
    if (end.budgetSpent) {
      c.log(`the budget (${c.budget} requests) ran out during ${label}`);
      return null;
    }
    return { end, path };
  };

  // 1. Bootstrap.
  const candidates: Candidate[] = [];
  const byId = new Map(checked.train.map(e => [e.id, e]));
  const seenPrograms = new Set<string>();
  const testReserve = (n: number) => Math.ceil(n * perRun);
  const tools = await openTools(c, o);
  try {
    for (let round = 0; round < plan.rounds && !stopped; round++) {
      const reserve = testReserve(splits.dev.length * 2 + splits.test.length * 2);
      // Each round samples anew: a seeded sampler (a local model) gets another seed each round.
      const sampling = { temperature, seed: c.seed + 1_000_003 * (round + 1) };
      const r = await run('bootstrap', `bootstrap round ${round + 1}`, original, trainFile, sampling, `round ${round}`, reserve);
      if (!r) break;
      for (const result of r.end.results) {
        if (!result.exact || candidates.some(x => x.id === result.id)) continue;
        const made = candidateOf(result, r.path, byId.get(result.id)!, round);
        if ('rejected' in made) {
          c.log(`training example ${result.id}: not a candidate: ${made.rejected}`);
          continue;
        }
        if (seenPrograms.has(made.candidate.program)) continue;
        const replay = await testProgram(parseArt(made.candidate.program), 0, {
          tools: tools.registry,
          toolTimeoutMs: o.toolTimeoutMs,
          signal: c.signal,
        });
        if (!replay.passed) {
          c.log(`training example ${result.id}: not a candidate: its replay does not reproduce it`);
          continue;
        }
        seenPrograms.add(made.candidate.program);
        candidates.push(made.candidate);
      }
    }
  } finally {
    await tools.dispose();
  }
  if (stopped) return stopEnd();
  c.log(`${candidates.length} candidate demonstration(s) from ${checked.train.length} training example(s)`);

  // 2. Choose on dev: the original first, then random sets; the best strictly above the original replaces it.
  const base = await run('dev', 'the original on dev', original, c.dev, {}, 'dev', testReserve(splits.test.length * 2));
  if (!base) return stopEnd();
  const score = (e: EvaluationEnd) => e.results.filter(r => r.exact).length;
  let best = { set: { dropped: [], added: [] } as CandidateSet, text: original, score: score(base.end) };
  const tried = new Set([contentHash(original)]);
  const random = prng(c.seed);
  const maxAdded = Math.max(1, c.maxAdded ?? 4);
  for (let k = 0, draws = 0; candidates.length && k < plan.sets - 1 && draws < plan.sets * 8 && !stopped; draws++) {
    const added = shuffled(candidates, random).slice(0, 1 + Math.floor(random() * Math.min(maxAdded, candidates.length)));
    const dropped = demos.filter(() => random() < 0.25);
    const set: CandidateSet = { dropped, added };
    const text = libraryText(original, set, c.train);
    const hash = contentHash(text);
    if (tried.has(hash)) continue;
    if (spent + testReserve(splits.dev.length + splits.test.length * 2) > c.budget) {
      c.log(`the budget leaves no room for more candidate sets after ${k}`);
      break;
    }
    tried.add(hash);
    k++;
    const r = await run('dev', `candidate set ${k} on dev`, text, c.dev, {}, 'dev', testReserve(splits.test.length * 2));
    if (!r) break;
    const s = score(r.end);
    c.log(
      `candidate set ${k}: +${added.length} (${added.map(a => a.id).join(', ')})${dropped.length ? `, −${dropped.length}` : ''}: ${s}/${splits.dev.length} on dev`,
    );
    if (s > best.score) best = { set, text, score: s };
  }
  if (stopped) return stopEnd();

  // 3. Prove on test.
  const a = await run('test', 'the original on test', original, c.test, {}, 'test', 0);
  if (!a) return stopEnd(true);
  const b = best.text === original ? a : await run('test', 'the improved on test', best.text, c.test, {}, 'test', 0);
  if (!b) return stopEnd(true);
  const comparison = compareResults(a.end.results, b.end.results);
  const significant = comparison.pValue < 0.05 && comparison.difference > 0;
  const verdict =
    best.text === original
      ? 'no candidate set beat the original on the dev split: nothing added (no significant gain)'
      : significant
        ? `test accuracy ${comparison.a.correct}/${comparison.a.n} → ${comparison.b.correct}/${comparison.b.n}, McNemar p = ${formatP(comparison.pValue)}: a significant gain`
        : `no significant gain: test accuracy ${comparison.a.correct}/${comparison.a.n} → ${comparison.b.correct}/${comparison.b.n}, McNemar p = ${formatP(comparison.pValue)}`;
  const header = [
    `proposed from ${basename(c.library)} with demonstrations bootstrapped from ${basename(c.train)} (seed ${c.seed}, budget ${c.budget})`,
    verdict,
    'these header lines are not part of what was measured: remove them (Accept does) to keep the library as tested',
  ];
  const text = withHeader(best.text, header);
  writeOwnedFile(out, text, 'replace');
  const removed = best.set.dropped.map(i => doc.programs[i].description?.taskName ?? doc.programs[i].input?.text.trim() ?? `program ${i + 1}`);
  return {
    plan,
    baseline: side(comparison.a),
    improved: side(comparison.b),
    comparison,
    pValue: comparison.pValue,
    significant,
    added: best.set.added.map(x => ({ id: x.id, line: x.line, program: x.program })),
    removed,
    candidates: candidates.length,
    sets: tried.size,
    dev: { n: splits.dev.length, baseline: score(base.end), best: best.score },
    requests: spent,
    requestsSent: sent,
    out,
    text,
    work,
    results: { baseline: a.path, improved: b.path },
    notes,
  };

  function stopEnd(budget = false): never {
    if (budget)
      throw new ImproveError(
        `the budget (${c.budget} requests) ran out before the test split was done: raise --budget (the runs so far are kept and reused)`,
      );
    throw new ImproveStopped(sent);
  }
}

/** The command was stopped (the signal): what ran is kept in the work folder, and the same command resumes. */
export class ImproveStopped extends Error {
  constructor(readonly requestsSent: number) {
    super('stopped: run the same command again to resume (what ran is kept and reused)');
  }
}

/** The tools a candidate's replay runs, as the runs had them. */
async function openTools(c: ImproveConfig, o: RunOptions) {
  try {
    const session = await openSession({
      ...o,
      mode: 'replay',
      trusted: c.trusted,
      ...HEADLESS,
      log: c.log,
      chatModel: c.chatModel,
      userToolsRefused: c.userToolsRefused,
    });
    return { registry: session.tools, dispose: () => session.dispose() };
  } catch (e) {
    if (e instanceof LaunchError) throw e;
    throw new LaunchError((e as Error).message);
  }
}

/** An example's own line of its data file, as the training split written into the work folder keeps it. */
function readLine(path: string, e: EvalExample): string {
  const lines = readFileSync(path, 'utf8').split('\n');
  const raw = lines[e.line - 1] ?? '';
  // The id is made explicit: an example without one is named by its line in the original file.
  const value = JSON.parse(raw.replace(/^\uFEFF/, '')) as Record<string, unknown>;
  return `${JSON.stringify({ ...value, id: e.id })}\n`;
}
