// Evidence ranking by the model's negative log-likelihood, as in "Large Language Model Programs" (Schlag et al.
// 2023): a passage is better evidence when the question is more likely after it. The NLL of the question given
// the passage is the log-likelihood of `passage + question` minus that of the passage alone, per question token.
// Both come from one-shot completions with `logprobs: true, maxTokens: 0`, which an echoing completions endpoint
// answers with the prompt's token log-probabilities. An endpoint that returns none (or only the logprob of a
// generated token, which says nothing about the prompt) leaves the BM25 order as it is.
import type { ModelClient } from '../model/types';

export interface NllScore {
  /** Mean negative log-likelihood per question token; lower is better. */
  nll: number;
}

export type RerankOutcome<T> = { reranked: true; items: T[]; scores: number[] } | { reranked: false; items: T[]; reason: string };

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const finite = (xs: readonly number[] | undefined) => (xs ?? []).filter(x => Number.isFinite(x));

/** Separator between passage and question; the passage-only prompt ends with it too so token boundaries agree. */
export const QUESTION_SEPARATOR = '\n\nQuestion: ';

/**
 * Reorders `items` by the NLL of `question` after each item's text. Returns the input order with a reason when the
 * model gives no usable log-probabilities. `passageCache` keeps passage-only log-likelihoods between searches
 * (they do not depend on the question).
 */
export async function rerankByNll<T>(
  model: ModelClient,
  question: string,
  items: T[],
  textOf: (item: T) => string,
  signal: AbortSignal,
  passageCache: Map<string, number[]> = new Map(),
): Promise<RerankOutcome<T>> {
  if (items.length < 2) return { reranked: false, items, reason: 'fewer than two passages' };
  const scores: number[] = [];
  for (const item of items) {
    const base = textOf(item) + QUESTION_SEPARATOR;
    const cacheKey = `${model.id}\0${base}`;
    let alone = passageCache.get(cacheKey);
    if (!alone) {
      alone = finite((await model.complete({ prompt: base, logprobs: true, maxTokens: 0, temperature: 0, signal })).tokenLogprobs);
      passageCache.set(cacheKey, alone);
    }
    const joint = finite((await model.complete({ prompt: base + question, logprobs: true, maxTokens: 0, temperature: 0, signal })).tokenLogprobs);
    const questionTokens = joint.length - alone.length;
    if (joint.length === 0 || questionTokens <= 0) {
      return { reranked: false, items, reason: `the model ${model.id} returned no log-probabilities for the prompt` };
    }
    scores.push(-(sum(joint) - sum(alone)) / questionTokens);
  }
  const order = items.map((_, i) => i).sort((a, b) => scores[a] - scores[b] || a - b);
  return { reranked: true, items: order.map(i => items[i]), scores: order.map(i => scores[i]) };
}
