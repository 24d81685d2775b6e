// Two evaluations compared example by example (`art compare`, "ART: Compare Evaluations"): the results are paired by
// example id; on the examples both have, each side's accuracy with its Wilson interval, the difference B − A with
// Newcombe's paired score interval (his method 10), the examples the edit fixed (wrong in A, right in B) and broke
// (right in A, wrong in B), and McNemar's exact two-sided p-value: the discordant pairs as a binomial(fixed + broken,
// 1/2) test. Examples only one side has are counted, never scored.
import { wilson, type EvalResult } from './eval';

export type CompareMetric = 'exact' | 'substring';
export const COMPARE_METRICS: readonly CompareMetric[] = ['exact', 'substring'];

export interface CompareSide {
  /** The examples both sides have, those this side got right, and the share. */
  n: number;
  correct: number;
  accuracy: number;
  /** 95% Wilson interval of the accuracy. */
  interval: [number, number];
}

/** An example whose score changed between A and B. */
export interface ChangedExample {
  id: string;
  input: string;
  target: string;
  answerA: string | null;
  answerB: string | null;
  /** How each run ended (`finished`, `error`, ...). */
  endA: EvalResult['end'];
  endB: EvalResult['end'];
  /** The runs' traces as the results name them (relative to each results file's folder). */
  traceA?: string;
  traceB?: string;
}

export interface Comparison {
  metric: CompareMetric;
  a: CompareSide;
  b: CompareSide;
  /** B's accuracy minus A's, and its 95% paired interval. */
  difference: number;
  differenceInterval: [number, number];
  /** Wrong in A, right in B; right in A, wrong in B (in A's order). */
  fixed: ChangedExample[];
  broken: ChangedExample[];
  /** Right on both sides, wrong on both. */
  bothRight: number;
  bothWrong: number;
  /** McNemar's exact two-sided p-value on the discordant pairs (1 when there are none). */
  pValue: number;
  /** The ids only A has and only B has. */
  onlyA: string[];
  onlyB: string[];
}

const score = (r: EvalResult, metric: CompareMetric) => (metric === 'exact' ? r.exact : r.substring);

export function compareResults(a: readonly EvalResult[], b: readonly EvalResult[], metric: CompareMetric = 'exact'): Comparison {
  const byIdB = new Map(b.map(r => [r.id, r]));
  const idsA = new Set(a.map(r => r.id));
  const fixed: ChangedExample[] = [];
  const broken: ChangedExample[] = [];
  let bothRight = 0;
  let bothWrong = 0;
  const onlyA: string[] = [];
  for (const ra of a) {
    const rb = byIdB.get(ra.id);
    if (!rb) {
      onlyA.push(ra.id);
      continue;
    }
    const [okA, okB] = [score(ra, metric), score(rb, metric)];
    if (okA && okB) bothRight++;
    else if (!okA && !okB) bothWrong++;
    else
      (okB ? fixed : broken).push({
        id: ra.id,
        input: ra.input,
        target: ra.target,
        answerA: ra.answer,
        answerB: rb.answer,
        endA: ra.end,
        endB: rb.end,
        ...(ra.trace !== undefined ? { traceA: ra.trace } : {}),
        ...(rb.trace !== undefined ? { traceB: rb.trace } : {}),
      });
  }
  const onlyB = b.filter(r => !idsA.has(r.id)).map(r => r.id);
  const n = bothRight + bothWrong + fixed.length + broken.length;
  const side = (correct: number): CompareSide => ({ n, correct, accuracy: n ? correct / n : 0, interval: wilson(correct, n) });
  const sa = side(bothRight + broken.length);
  const sb = side(bothRight + fixed.length);
  return {
    metric,
    a: sa,
    b: sb,
    difference: sb.accuracy - sa.accuracy,
    differenceInterval: pairedDifferenceInterval(bothRight, fixed.length, broken.length, bothWrong),
    fixed,
    broken,
    bothRight,
    bothWrong,
    pValue: mcnemarExact(fixed.length, broken.length),
    onlyA,
    onlyB,
  };
}

/**
 * McNemar's exact test: with `b` and `c` discordant pairs, the two-sided p-value of b + c fair coin tosses giving a
 * split at least as uneven, min(1, 2·P(X ≤ min(b, c))) for X ~ binomial(b + c, 1/2).
 */
export function mcnemarExact(b: number, c: number): number {
  const m = b + c;
  if (m === 0) return 1;
  const k = Math.min(b, c);
  // P(X ≤ k) summed in log space: exact enough for any count an evaluation has (2^-m underflows past m ≈ 1074).
  let logTerm = -m * Math.LN2; // log(C(m, 0) / 2^m)
  let tail = Math.exp(logTerm);
  for (let i = 1; i <= k; i++) {
    logTerm += Math.log((m - i + 1) / i);
    tail += Math.exp(logTerm);
  }
  return Math.min(1, 2 * tail);
}

/**
 * The 95% interval of the difference of two paired proportions, pB − pA, by Newcombe's hybrid score method (his
 * method 10, Statistics in Medicine 1998): each side's Wilson interval, combined with the correlation of the pairs.
 * `both` right on both sides, `fixed` right only in B, `broken` right only in A, `neither` wrong on both.
 */
export function pairedDifferenceInterval(both: number, fixed: number, broken: number, neither: number, z = 1.96): [number, number] {
  const n = both + fixed + broken + neither;
  if (n === 0) return [-1, 1];
  const pB = (both + fixed) / n;
  const pA = (both + broken) / n;
  const [lB, uB] = wilson(both + fixed, n, z);
  const [lA, uA] = wilson(both + broken, n, z);
  // The phi coefficient of the 2×2 table (0 when a margin is empty).
  const margins = (both + fixed) * (broken + neither) * (both + broken) * (fixed + neither);
  const phi = margins === 0 ? 0 : (both * neither - fixed * broken) / Math.sqrt(margins);
  const d = pB - pA;
  const lower = d - Math.sqrt(Math.max(0, (pB - lB) ** 2 - 2 * phi * (pB - lB) * (uA - pA) + (uA - pA) ** 2));
  const upper = d + Math.sqrt(Math.max(0, (uB - pB) ** 2 - 2 * phi * (uB - pB) * (pA - lA) + (pA - lA) ** 2));
  return [Math.max(-1, lower), Math.min(1, upper)];
}

/** The p-value in plain words, for people who do not read p-values. */
export function pValueWords(c: Pick<Comparison, 'pValue' | 'fixed' | 'broken'>): string {
  const changed = c.fixed.length + c.broken.length;
  if (changed === 0) return 'no example changed: the two evaluations agree on every shared example';
  const p = formatP(c.pValue);
  if (c.pValue < 0.05)
    return `p = ${p}: a split this uneven (${c.fixed.length} fixed, ${c.broken.length} broken) would be rare if the edit made no difference, so the ${c.fixed.length > c.broken.length ? 'gain' : 'loss'} is likely real`;
  return `p = ${p}: ${c.fixed.length} fixed against ${c.broken.length} broken is within what chance alone gives: more examples are needed to tell`;
}

export function formatP(p: number): string {
  return p >= 0.001 ? p.toFixed(4) : p.toExponential(2);
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const signedPct = (x: number) => `${x >= 0 ? '+' : '−'}${(100 * Math.abs(x)).toFixed(1)}`;

/** The comparison as `art compare` prints it (the headers and their differences are printed by the caller). */
export function formatComparison(c: Comparison, names: [string, string]): string {
  const side = (label: string, s: CompareSide) =>
    `${label}: ${s.correct}/${s.n} = ${pct(s.accuracy)} (95% CI ${pct(s.interval[0])}–${pct(s.interval[1])})`;
  const [lo, hi] = c.differenceInterval;
  const lines = [
    `${c.metric} match on the ${c.a.n} examples both have`,
    side(`A ${names[0]}`, c.a),
    side(`B ${names[1]}`, c.b),
    `difference B − A: ${signedPct(c.difference)} points (95% paired CI ${signedPct(lo)} to ${signedPct(hi)})`,
    `fixed ${c.fixed.length}, broken ${c.broken.length}, right in both ${c.bothRight}, wrong in both ${c.bothWrong}`,
    `McNemar exact: ${pValueWords(c)}`,
  ];
  if (c.onlyA.length || c.onlyB.length) lines.push(`not compared: ${c.onlyA.length} example(s) only in A, ${c.onlyB.length} only in B`);
  const example = (e: ChangedExample) =>
    `  ${e.id}: ${oneLine(e.input)}\n    target ${JSON.stringify(e.target)} · A ${answerText(e.answerA, e.endA)} · B ${answerText(e.answerB, e.endB)}`;
  if (c.fixed.length) lines.push('', `fixed (wrong in A, right in B):`, ...c.fixed.map(example));
  if (c.broken.length) lines.push('', `broken (right in A, wrong in B):`, ...c.broken.map(example));
  return lines.join('\n');
}

function answerText(answer: string | null, end: EvalResult['end']): string {
  if (answer !== null) return JSON.stringify(answer);
  return end === 'finished' ? 'no answer' : `no answer (${end})`;
}

function oneLine(s: string, max = 100): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** The comparison as `art compare --json` prints it: `fixed` and `broken` are ids, `examples` their details. */
export function comparisonJson(c: Comparison, names: [string, string], headers: unknown[] = []) {
  const side = (s: CompareSide, file: string, header: unknown) => ({ file, ...s, ...(header ? { header } : {}) });
  return {
    metric: c.metric,
    a: side(c.a, names[0], headers[0]),
    b: side(c.b, names[1], headers[1]),
    difference: c.difference,
    differenceInterval: c.differenceInterval,
    fixed: c.fixed.map(e => e.id),
    broken: c.broken.map(e => e.id),
    bothRight: c.bothRight,
    bothWrong: c.bothWrong,
    pValue: c.pValue,
    onlyA: c.onlyA.length,
    onlyB: c.onlyB.length,
    onlyAIds: c.onlyA,
    onlyBIds: c.onlyB,
    examples: [...c.fixed, ...c.broken],
  };
}
