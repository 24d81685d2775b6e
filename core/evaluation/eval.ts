// Evaluation over a dataset: every example (`{"input", "target"}`, optional `id` and `description`) runs as a new
// task of a library through the runner, a bounded number at once; each finished example is scored (exact match of
// the normalised answer, and the ART reference's substring match: the target occurs in the answer, case folded) and
// handed to the caller, which appends it to the results file. A stopped run leaves its unfinished examples out of
// the results, so running again over the same results file redoes none of the finished ones.
import { dirname, resolve } from 'node:path';
import { readTextFile, TextFileError } from '../common/textFile';
import type { Runner } from '../engine/runner';
import type { EndReason } from '../trace/vocabulary';
import type { RunResult, Snapshot } from '../engine/types';

/** One sample's end: a run's result, or a runner that could not be made (no snapshot). */
type SampleEnd = Pick<RunResult, 'reason' | 'answer' | 'error'> & { snapshot?: Snapshot; run?: EvalRun };

export interface EvalExample {
  id: string;
  input: string;
  target: string;
  description?: string;
  /** 1-based line in the data file. */
  line: number;
}

export interface EvalResult {
  id: string;
  input: string;
  target: string;
  /** The answer (the vote with several samples); null when the run gave none. */
  answer: string | null;
  exact: boolean;
  substring: boolean;
  toolCalls: number;
  tokens: { prompt: number; completion: number };
  requests: number;
  durationMs: number;
  /** How the run ended (`finished`, `error`, `incomplete`, `limit`). */
  end: EndReason;
  error: string | null;
  /** With several samples: each sample's answer, in order. */
  samples?: (string | null)[];
  /** The task the example ran as (its description, else the library's task): what the accuracy per task groups by. */
  task?: string;
  /**
   * The run's trace in the run history, relative to the results file's folder (`/` separators): with several
   * samples, that of the first sample that gave the voted answer. Read it with traceOfResult.
   */
  trace?: string;
  /** With several samples: each sample's trace, in order (as `trace`). */
  traces?: string[];
}

export class EvalDataError extends Error {}

/** Reads a JSONL dataset; a bad line is an EvalDataError naming the file and line. */
export function readDataset(path: string): EvalExample[] {
  let text: string;
  try {
    text = readTextFile(path);
  } catch (e) {
    if (e instanceof TextFileError) throw new EvalDataError(`${path}: ${e.message}`);
    throw e;
  }
  const out: EvalExample[] = [];
  const seen = new Set<string>();
  // A byte-order mark (some editors save UTF-8 with one) is not part of the first example.
  if (text.startsWith('\uFEFF')) text = text.slice(1);
  text.split('\n').forEach((raw, i) => {
    const line = i + 1;
    if (!raw.trim()) return;
    let v: unknown;
    try {
      v = JSON.parse(raw);
    } catch {
      throw new EvalDataError(`${path}:${line}: not JSON: each line must be an object {"input": ..., "target": ...}`);
    }
    const o = v as Record<string, unknown>;
    if (!o || typeof o !== 'object' || typeof o.input !== 'string' || !o.input.trim())
      throw new EvalDataError(`${path}:${line}: the example needs an "input" string`);
    if (typeof o.target !== 'string' && typeof o.target !== 'number')
      throw new EvalDataError(`${path}:${line}: the example needs a "target" (a string)`);
    if (o.id !== undefined && typeof o.id !== 'string' && !(typeof o.id === 'number' && Number.isFinite(o.id)))
      throw new EvalDataError(
        `${path}:${line}: "id" must be a string or a number, not ${o.id === null ? 'null' : Array.isArray(o.id) ? 'a list' : typeof o.id}`,
      );
    const id = o.id === undefined ? String(line) : String(o.id);
    if (seen.has(id)) throw new EvalDataError(`${path}:${line}: the id ${JSON.stringify(id)} is used twice: give each example its own "id"`);
    seen.add(id);
    if (o.description !== undefined && typeof o.description !== 'string') throw new EvalDataError(`${path}:${line}: "description" must be a string`);
    out.push({ id, input: o.input, target: String(o.target), description: o.description as string | undefined, line });
  });
  return out;
}

/** Whether a line's value says it is a result (its `id` and `exact`); whether it is a whole one, resultOf says. */
export function isResultLine(v: unknown): v is EvalResult {
  return !!v && typeof v === 'object' && typeof (v as EvalResult).id === 'string' && typeof (v as EvalResult).exact === 'boolean';
}

const isText = (v: unknown) => typeof v === 'string';
const isTextOrNull = (v: unknown) => v === null || typeof v === 'string';
const isCount = (v: unknown) => typeof v === 'number' && Number.isFinite(v);

/** What a line that says it is a result lacks of the fields its readers use, or null when it has them. */
function resultProblem(r: EvalResult): string | null {
  const v = r as unknown as Record<string, unknown>;
  const tokens = v.tokens as Record<string, unknown> | null | undefined;
  if (!isText(v.input) || !isText(v.target)) return '"input" or "target" is not a text';
  if (!isTextOrNull(v.answer) || !isTextOrNull(v.error)) return '"answer" or "error" is neither a text nor null';
  if (typeof v.substring !== 'boolean' || !isText(v.end)) return '"substring" is not true or false, or "end" is not a text';
  if (![v.toolCalls, v.requests, v.durationMs, tokens?.prompt, tokens?.completion].every(isCount))
    return '"toolCalls", "requests", "durationMs" or "tokens" is not a count';
  if (![v.task, v.trace].every(x => x === undefined || isText(x))) return '"task" or "trace" is not a text';
  if (v.traces !== undefined && !(Array.isArray(v.traces) && v.traces.every(isText))) return '"traces" is not a list of paths';
  if (v.samples !== undefined && !(Array.isArray(v.samples) && v.samples.every(isTextOrNull))) return '"samples" is not a list of answers';
  return null;
}

/**
 * The result of line `line` of the results file `path` from its value, or null when that is no result (a header, a
 * foreign line); one that says it is a result but lacks a field its readers use is an EvalDataError naming the file,
 * the line, what it lacks and the fix (before, an internal error where a reader used the field).
 */
export function resultOf(path: string, line: number, v: unknown): EvalResult | null {
  if (!isResultLine(v)) return null;
  const problem = resultProblem(v);
  if (problem)
    throw new EvalDataError(
      `${path}:${line}: a result whose ${problem}: the file was edited or not written by art eval: give a results file written by art eval (or remove that line)`,
    );
  return v;
}

/**
 * The results already in a results file, by id. A line cut by a kill (the last one) is dropped, as is anything that
 * is not a result: that example runs again. A line that says it is a result but is not whole is an EvalDataError.
 */
export function readResults(path: string): Map<string, EvalResult> {
  const out = new Map<string, EvalResult>();
  let text: string;
  try {
    text = readTextFile(path);
  } catch (e) {
    if (e instanceof TextFileError && e.kind === 'missing') return out;
    const why = e instanceof TextFileError ? (e.code ?? e.message) : ((e as NodeJS.ErrnoException).code ?? (e as Error).message);
    throw new EvalDataError(`${path}: cannot read the results: ${why}`);
  }
  text.split('\n').forEach((raw, i) => {
    if (!raw.trim()) return;
    let v: unknown;
    try {
      v = JSON.parse(raw);
    } catch {
      return; // A torn line: redo that example.
    }
    const r = resultOf(path, i + 1, v);
    if (r) out.set(r.id, r);
  });
  return out;
}

/** An answer as compared and voted on: trimmed, case folded, spaces folded, outer quotes and a final period dropped. */
export function normaliseAnswer(s: string): string {
  const t = s.trim().toLowerCase().replace(/\s+/g, ' ').replace(/\.$/, '').trim();
  const q = /^(["'])(.*)\1$/.exec(t);
  return q ? q[2].replace(/\.$/, '').trim() : t;
}

export function scoreAnswer(answer: string | null, target: string): { exact: boolean; substring: boolean } {
  if (answer === null) return { exact: false, substring: false };
  return {
    exact: normaliseAnswer(answer) === normaliseAnswer(target),
    // The ART reference's substring_match: label.lower() in prediction.lower().
    substring: answer.toLowerCase().includes(target.toLowerCase()),
  };
}

/** The Wilson score interval of k successes in n trials (95% with z = 1.96). */
export function wilson(k: number, n: number, z = 1.96): [number, number] {
  if (n === 0) return [0, 1];
  const p = k / n;
  const d = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / d;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / d;
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/** The most frequent normalised answer (a tie goes to the one reached first); null when no sample answered. */
export function vote(answers: (string | null)[]): string | null {
  const counts = new Map<string, { n: number; first: string }>();
  for (const a of answers) {
    if (a === null) continue;
    const k = normaliseAnswer(a);
    const c = counts.get(k);
    if (c) c.n++;
    else counts.set(k, { n: 1, first: a });
  }
  let best: { n: number; first: string } | null = null;
  for (const c of counts.values()) if (!best || c.n > best.n) best = c;
  return best?.first ?? null;
}

export interface EvalSummary {
  n: number;
  exact: number;
  substring: number;
  exactInterval: [number, number];
  substringInterval: [number, number];
  /** Examples whose run called at least one tool. */
  withToolCalls: number;
  toolCalls: number;
  promptTokens: number;
  completionTokens: number;
  /** Failures by kind: the run's end (`error`, `incomplete`, `limit`) or `wrong answer`. */
  failures: Record<string, number>;
}

export function summarise(results: EvalResult[]): EvalSummary {
  const n = results.length;
  const exact = results.filter(r => r.exact).length;
  const substring = results.filter(r => r.substring).length;
  const failures: Record<string, number> = {};
  for (const r of results) {
    if (r.exact) continue;
    const kind = r.end === 'finished' ? (r.answer === null ? 'no answer' : 'wrong answer') : r.end;
    failures[kind] = (failures[kind] ?? 0) + 1;
  }
  return {
    n,
    exact,
    substring,
    exactInterval: wilson(exact, n),
    substringInterval: wilson(substring, n),
    withToolCalls: results.filter(r => r.toolCalls > 0).length,
    toolCalls: results.reduce((s, r) => s + r.toolCalls, 0),
    promptTokens: results.reduce((s, r) => s + r.tokens.prompt, 0),
    completionTokens: results.reduce((s, r) => s + r.tokens.completion, 0),
    failures,
  };
}

/** The results' summary per task (EvalResult.task; examples with none under `untitled`), tasks in order of first appearance. */
export function summariseByTask(results: EvalResult[], untitled = '(no task)'): { task: string; summary: EvalSummary }[] {
  const groups = new Map<string, EvalResult[]>();
  for (const r of results) {
    const task = r.task ?? untitled;
    const g = groups.get(task);
    if (g) g.push(r);
    else groups.set(task, [r]);
  }
  return [...groups].map(([task, rs]) => ({ task, summary: summarise(rs) }));
}

/** The absolute path of a result's trace (EvalResult.trace is relative to the results file's folder), if it has one. */
export function traceOfResult(resultsPath: string, r: Pick<EvalResult, 'trace'>): string | undefined {
  return r.trace === undefined ? undefined : resolve(dirname(resultsPath), r.trace);
}

export function formatSummary(s: EvalSummary): string {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const acc = (k: number, [lo, hi]: [number, number]) => `${k}/${s.n} = ${pct(s.n ? k / s.n : 0)} (95% CI ${pct(lo)}–${pct(hi)})`;
  const failures = Object.entries(s.failures)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  return [
    `exact match:     ${acc(s.exact, s.exactInterval)}`,
    `substring match: ${acc(s.substring, s.substringInterval)}`,
    `tool calls:      ${s.toolCalls} in ${s.withToolCalls}/${s.n} examples (${pct(s.n ? s.withToolCalls / s.n : 0)} used a tool)`,
    `tokens:          ${s.promptTokens} prompt + ${s.completionTokens} completion`,
    `failures:        ${failures || 'none'}`,
  ].join('\n');
}

/** A result's error when its run finished but stated no answer that could be read. */
export const NO_ANSWER =
  "no answer could be read: the run finished without stating one (ART: an 'Ans:' line; MultiTool-CoT: 'So the answer is N.' as the prompt's examples say it; an agent: a final state)";

/** A run of one sample made by the caller, with the trace it writes and what to do once it has ended. */
export interface EvalRun {
  runner: Runner;
  /** Where the run's trace is, as the result records it (see EvalResult.trace). */
  trace?: string;
  /**
   * Called once when the run has ended: `kept` is whether its example is reported (false when the evaluation was
   * stopped, and the example runs again next time): close the trace, keep it in the history or drop it.
   */
  ended?(kept: boolean): void;
}

export interface EvalRunOptions {
  /** The examples to run (those already done left out). */
  examples: EvalExample[];
  /** A runner for sample `sample` (0-based) of an example, or a run with its trace. */
  makeRunner(example: EvalExample, sample: number): Runner | EvalRun | Promise<Runner | EvalRun>;
  /** The task an example runs as (recorded in its result). */
  taskOf?(example: EvalExample): string | undefined;
  /** Examples in flight at once. */
  concurrency: number;
  /** Programs per example, run at once, voting on the normalised answer. Default 1. */
  samples?: number;
  /** Aborting stops the runs in flight; their examples are not reported (they run again next time). */
  signal?: AbortSignal;
  /** Each finished example, as soon as it is done. */
  onResult(result: EvalResult): void;
}

/** Runs the examples; resolves when all are done or the signal stopped the run (`stopped`). */
export async function runEval(o: EvalRunOptions): Promise<{ stopped: boolean }> {
  const queue = [...o.examples];
  const samples = Math.max(1, o.samples ?? 1);
  const active = new Set<Runner>();
  const stopAll = () => {
    for (const r of active) r.stop();
  };
  o.signal?.addEventListener('abort', stopAll, { once: true });
  const runExample = async (ex: EvalExample): Promise<EvalResult | null> => {
    const started = performance.now();
    const results = await Promise.all(
      Array.from({ length: samples }, async (_, k): Promise<SampleEnd> => {
        let run: EvalRun;
        try {
          const made = await o.makeRunner(ex, k);
          run = 'runner' in made ? made : { runner: made };
        } catch (e) {
          return { reason: 'error', answer: null, error: (e as Error).message };
        }
        if (o.signal?.aborted) return { reason: 'stopped', answer: null, snapshot: run.runner.snapshot(), run };
        active.add(run.runner);
        try {
          return { ...(await run.runner.run()), run };
        } catch (e) {
          return { reason: 'error', answer: null, error: (e as Error).message, run };
        } finally {
          active.delete(run.runner);
        }
      }),
    );
    const kept = !(o.signal?.aborted || results.some(r => r.reason === 'stopped'));
    for (const r of results) r.run?.ended?.(kept);
    if (!kept) return null;
    const answers = results.map(r => (r.reason === 'finished' ? r.answer : null));
    const answer = samples > 1 ? vote(answers) : answers[0];
    const failed = results.find(r => r.reason !== 'finished');
    const snaps = results.flatMap(r => (r.snapshot ? [r.snapshot] : []));
    const traces = results.map(r => r.run?.trace);
    const voted = answer === null ? -1 : answers.findIndex(a => a !== null && normaliseAnswer(a) === normaliseAnswer(answer));
    const trace = traces[Math.max(0, voted)];
    const task = o.taskOf?.(ex);
    return {
      id: ex.id,
      input: ex.input,
      target: ex.target,
      answer,
      ...scoreAnswer(answer, ex.target),
      toolCalls: snaps.reduce((s, x) => s + x.calls.length, 0),
      tokens: {
        prompt: snaps.reduce((s, x) => s + x.usage.promptTokens, 0),
        completion: snaps.reduce((s, x) => s + x.usage.completionTokens, 0),
      },
      requests: snaps.reduce((s, x) => s + x.requests, 0),
      durationMs: Math.round(performance.now() - started),
      // With several samples the example counts as finished when any sample answered.
      end: answer !== null ? 'finished' : (failed?.reason ?? 'finished'),
      error: failed ? `${failed.reason}${failed.error ? `: ${failed.error}` : ''}` : answer === null ? NO_ANSWER : null,
      ...(samples > 1 ? { samples: answers } : {}),
      ...(task !== undefined ? { task } : {}),
      ...(trace !== undefined ? { trace } : {}),
      ...(samples > 1 && traces.every(t => t !== undefined) ? { traces: traces as string[] } : {}),
    };
  };
  const worker = async () => {
    for (let ex = queue.shift(); ex && !o.signal?.aborted; ex = queue.shift()) {
      const r = await runExample(ex);
      if (r) o.onResult(r);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(o.concurrency, queue.length)) }, worker));
  } finally {
    o.signal?.removeEventListener('abort', stopAll);
  }
  return { stopped: !!o.signal?.aborted };
}
