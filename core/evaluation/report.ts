// What the results view of an evaluation shows ("ART: Evaluate Task" in VS Code), as plain data the webview only
// draws: the accuracy per task for the chart (exact and substring match, in percent, with their Wilson intervals),
// the summary, and one row per example with the trace of its run. Computed here so the shell holds no scoring.
import { formatSummary, summarise, summariseByTask, traceOfResult, type EvalResult, type EvalSummary } from './eval';

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
  names: { library: string; data: string; results: string };
}): EvalReport {
  const summary = summarise(o.results);
  return {
    ...o.names,
    total: o.total,
    stopped: o.stopped,
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

/** The running count and accuracy of an evaluation, as its progress shows them: `3/6 done · exact 2/3 = 66.7%`. */
export function progressLine(done: readonly EvalResult[], total: number): string {
  const right = done.filter(r => r.exact).length;
  return `${done.length}/${total} done${done.length ? ` · exact ${right}/${done.length} = ${percent(right, done.length).toFixed(1)}%` : ''}`;
}
