// What the results view of an evaluation shows ("ART: Evaluate Task" in VS Code), as plain data the webview only
// draws: the accuracy per task for the chart (exact and substring match, in percent, with their Wilson intervals),
// the summary, and one row per example with the trace of its run. Computed here so the shell holds no scoring.
import { compareResults, formatP, pValueWords, type ChangedExample, type CompareMetric, type CompareSide } from './compare';
import { dirname, isAbsolute, resolve } from 'node:path';
import { formatSummary, readDataset, summarise, summariseByTask, traceOfResult, type EvalResult, type EvalSummary } from './eval';
import { formatHeader, headerDifferences, libraryChanged, loadResultsFile } from './header';
import { resultsWriter } from './resultsFile';

export interface EvalReportTask {
  task: string;
  n: number;
  exact: number;
  substring: number;
  /** Accuracy in percent (one decimal), and its 95% Wilson interval in percent. */
  exactPercent: number;
  substringPercent: number;
  exactInterval: [number, number];
  substringInterval: [number, number];
}

export interface EvalReportRow {
  id: string;
  task?: string;
  input: string;
  answer: string | null;
  target: string;
  exact: boolean;
  substring: boolean;
  /** How the run ended, and its error if any. */
  end: EvalResult['end'];
  error: string | null;
  toolCalls: number;
  /** The absolute path of the run's trace, when it left one. */
  trace?: string;
}

export interface EvalReport {
  /** The library, the data and the results file as the shell names them (workspace-relative in VS Code). */
  library: string;
  data: string;
  results: string;
  /** Examples in the dataset; `rows` holds those done. */
  total: number;
  stopped: boolean;
  /** The process writing the results file now (an evaluation still running: `art eval` in a terminal), if any. */
  running?: { pid: number; started: string };
  summary: EvalSummary;
  /** The summary as `art eval` prints it, line by line. */
  summaryLines: string[];
  tasks: EvalReportTask[];
  rows: EvalReportRow[];
}

const percent = (k: number, n: number) => (n ? Math.round((1000 * k) / n) / 10 : 0);
const percents = ([lo, hi]: [number, number]): [number, number] => [Math.round(1000 * lo) / 10, Math.round(1000 * hi) / 10];

export function evalReport(o: {
  results: EvalResult[];
  /** The results file's absolute path (the traces are relative to its folder). */
  resultsPath: string;
  total: number;
  stopped: boolean;
  running?: { pid: number; started: string };
  names: { library: string; data: string; results: string };
}): EvalReport {
  const summary = summarise(o.results);
  return {
    ...o.names,
    total: o.total,
    stopped: o.stopped,
    ...(o.running ? { running: o.running } : {}),
    summary,
    summaryLines: formatSummary(summary).split('\n'),
    tasks: summariseByTask(o.results).map(({ task, summary: s }) => ({
      task,
      n: s.n,
      exact: s.exact,
      substring: s.substring,
      exactPercent: percent(s.exact, s.n),
      substringPercent: percent(s.substring, s.n),
      exactInterval: percents(s.exactInterval),
      substringInterval: percents(s.substringInterval),
    })),
    rows: o.results.map(r => ({
      id: r.id,
      ...(r.task !== undefined ? { task: r.task } : {}),
      input: r.input,
      answer: r.answer,
      target: r.target,
      exact: r.exact,
      substring: r.substring,
      end: r.end,
      error: r.error,
      toolCalls: r.toolCalls,
      ...(r.trace !== undefined ? { trace: traceOfResult(o.resultsPath, r) } : {}),
    })),
  };
}

/**
 * The report of an evaluation, from its results file alone (the Evaluations view opens one): the library and the data
 * as its header names them (`name` says how the shell shows a path), the results in the dataset's order and its count
 * of examples when the dataset can still be read (else the results as they are). An evaluation still writing the file
 * (its lock held by a live process: resultsFile.ts resultsWriter) is `running`, not `stopped`, however few results it
 * has. An EvalDataError when the file cannot be read.
 */
export function resultsFileReport(path: string, name: (absolute: string) => string): EvalReport {
  const { header, results } = loadResultsFile(path);
  const at = (p: string) => (isAbsolute(p) ? p : resolve(dirname(path), p));
  let total = results.length;
  let ordered = results;
  if (header) {
    try {
      const examples = readDataset(at(header.data.path));
      const order = new Map(examples.map((e, i) => [e.id, i]));
      ordered = [...results].sort((a, b) => (order.get(a.id) ?? examples.length) - (order.get(b.id) ?? examples.length));
      total = Math.max(results.length, examples.length);
    } catch {
      // The dataset moved or changed: the results as the file has them.
    }
  }
  const running = resultsWriter(path);
  return evalReport({
    results: ordered,
    resultsPath: path,
    total,
    stopped: !running && results.length < total,
    running,
    names: {
      library: header ? name(at(header.library.path)) : '(library not recorded)',
      data: header ? name(at(header.data.path)) : '(data not recorded)',
      results: name(path),
    },
  });
}

/** The running count and accuracy of an evaluation, as its progress shows them: `3/6 done · exact 2/3 = 66.7%`. */
export function progressLine(done: readonly EvalResult[], total: number): string {
  const right = done.filter(r => r.exact).length;
  return `${done.length}/${total} done${done.length ? ` · exact ${right}/${done.length} = ${percent(right, done.length).toFixed(1)}%` : ''}`;
}

/** What the comparison view of two evaluations shows ("ART: Compare Evaluations"), as plain data the page draws. */
export interface ComparisonReport {
  metric: CompareMetric;
  /** The results files as the shell names them, and their headers in one line each. */
  names: [string, string];
  headers: [string, string];
  /** What differs besides the library (another model, options), and whether the library changed (undefined: unknown). */
  differences: string[];
  libraryChanged?: boolean;
  a: CompareSide;
  b: CompareSide;
  difference: number;
  differenceInterval: [number, number];
  pValue: number;
  /** The p-value formatted, and in plain words. */
  p: string;
  pWords: string;
  bothRight: number;
  bothWrong: number;
  onlyA: number;
  onlyB: number;
  /** The changed examples, their traces absolute paths. */
  fixed: ChangedExample[];
  broken: ChangedExample[];
}

/** Two results files compared (an EvalDataError when one cannot be read). */
export function comparisonReport(pathA: string, pathB: string, names: [string, string], metric: CompareMetric = 'exact'): ComparisonReport {
  const [a, b] = [loadResultsFile(pathA), loadResultsFile(pathB)];
  const c = compareResults(a.results, b.results, metric);
  const absolute = (e: ChangedExample): ChangedExample => ({
    ...e,
    ...(e.traceA !== undefined ? { traceA: traceOfResult(pathA, { trace: e.traceA }) } : {}),
    ...(e.traceB !== undefined ? { traceB: traceOfResult(pathB, { trace: e.traceB }) } : {}),
  });
  const changed = libraryChanged(a.header, b.header);
  return {
    metric,
    names,
    headers: [formatHeader(a.header), formatHeader(b.header)],
    differences: headerDifferences(a.header, b.header),
    ...(changed !== undefined ? { libraryChanged: changed } : {}),
    a: c.a,
    b: c.b,
    difference: c.difference,
    differenceInterval: c.differenceInterval,
    pValue: c.pValue,
    p: formatP(c.pValue),
    pWords: pValueWords(c),
    bothRight: c.bothRight,
    bothWrong: c.bothWrong,
    onlyA: c.onlyA.length,
    onlyB: c.onlyB.length,
    fixed: c.fixed.map(absolute),
    broken: c.broken.map(absolute),
  };
}
