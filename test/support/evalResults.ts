// Evaluation results made up for tests of comparisons: one result, and the example pair.
import type { EvalResult } from '../../core/evaluation/eval';

export function result(id: string, exact: boolean, extra: Partial<EvalResult> = {}): EvalResult {
  return {
    id,
    input: `question ${id}`,
    target: '1',
    answer: exact ? '1' : '2',
    exact,
    substring: exact,
    toolCalls: 0,
    tokens: { prompt: 1, completion: 1 },
    requests: 1,
    durationMs: 1,
    end: 'finished',
    error: null,
    ...extra,
  };
}

/** The example: 100 shared examples, 55 right in both, 15 fixed, 5 broken, 25 wrong in both; one only in B. */
export function acceptancePair(): [EvalResult[], EvalResult[]] {
  const a: EvalResult[] = [];
  const b: EvalResult[] = [];
  for (let i = 0; i < 100; i++) {
    const id = `e${i}`;
    const [okA, okB] = i < 55 ? [true, true] : i < 70 ? [false, true] : i < 75 ? [true, false] : [false, false];
    a.push(result(id, okA));
    b.push(result(id, okB));
  }
  b.push(result('new', true));
  return [a, b];
}
