// The three splits of `art improve` and their rules: training examples become demonstrations and never score one;
// dev examples score candidate sets and never become demonstrations; test examples only prove the result. An example
// whose input is in two splits would leak one into the other, so a training example whose input is also a dev or test
// example (or an existing demonstration's, for dev and test) is left out of the bootstrap, and one dataset can be
// split in three by a seeded shuffle.
import { makeOwnedFolder, writeOwnedFile } from '../common/ownedFiles';
import { join } from 'node:path';
import { prng, shuffled } from '../common/random';
import { normaliseAnswer, readDataset, type EvalExample } from '../evaluation/eval';

export interface Splits {
  train: EvalExample[];
  dev: EvalExample[];
  test: EvalExample[];
}

/** The key an input is compared by across splits: white space and case folded. */
export const inputKey = (input: string) => normaliseAnswer(input);

export interface SplitCheck {
  /** The training examples the bootstrap may run: those whose input is in neither dev nor test. */
  train: EvalExample[];
  /** Lines about what was left out or what overlaps, one per problem (empty: the splits are disjoint). */
  notes: string[];
}

/**
 * The training examples safe to bootstrap from, and what overlaps: a training input that is also a dev or test input
 * is left out (its demonstration would show the answer of an example that scores or proves it); dev and test inputs
 * in common, or equal to a demonstration the library already has, are reported (the proof would be weaker).
 */
export function checkSplits(s: Splits, demonstrationInputs: readonly string[] = []): SplitCheck {
  const notes: string[] = [];
  const dev = new Set(s.dev.map(e => inputKey(e.input)));
  const test = new Set(s.test.map(e => inputKey(e.input)));
  const train = s.train.filter(e => {
    const k = inputKey(e.input);
    const where = [dev.has(k) ? 'dev' : '', test.has(k) ? 'test' : ''].filter(Boolean);
    if (where.length) notes.push(`training example ${e.id} (line ${e.line}) left out: its input is also in the ${where.join(' and ')} split`);
    return !where.length;
  });
  const both = s.test.filter(e => dev.has(inputKey(e.input)));
  if (both.length)
    notes.push(`${both.length} test example(s) also in the dev split (${both.map(e => e.id).join(', ')}): the test is not held out from the choice`);
  const shown = new Set(demonstrationInputs.map(inputKey));
  const seen = [...s.dev, ...s.test].filter(e => shown.has(inputKey(e.input)));
  if (seen.length)
    notes.push(`${seen.length} dev or test example(s) already shown by a demonstration of the library (${seen.map(e => e.id).join(', ')})`);
  return { train, notes };
}

/**
 * One dataset split in three by a shuffle seeded with `seed` (the same seed, the same split): `fractions` of it to
 * train and dev (default half and a quarter), the rest to test; each split gets at least one example when there are three.
 */
export function splitExamples(examples: readonly EvalExample[], seed: number, fractions: [number, number] = [0.5, 0.25]): Splits {
  const order = shuffled(examples, prng(seed));
  const n = order.length;
  let nTrain = Math.round(n * fractions[0]);
  let nDev = Math.round(n * fractions[1]);
  if (n >= 3) {
    nTrain = Math.min(Math.max(1, nTrain), n - 2);
    nDev = Math.min(Math.max(1, nDev), n - nTrain - 1);
  }
  return { train: order.slice(0, nTrain), dev: order.slice(nTrain, nTrain + nDev), test: order.slice(nTrain + nDev) };
}

/** A split as a JSONL dataset (the lines readDataset reads back, ids kept). */
export function datasetText(examples: readonly EvalExample[]): string {
  return examples
    .map(e => JSON.stringify({ id: e.id, input: e.input, target: e.target, ...(e.description !== undefined ? { description: e.description } : {}) }))
    .map(l => `${l}\n`)
    .join('');
}

/** One dataset split in three by `seed`, written as train/dev/test.jsonl into `folder`: their paths and sizes. */
export function writeSplits(
  data: string,
  seed: number,
  folder: string,
): { paths: { train: string; dev: string; test: string }; sizes: [number, number, number] } {
  const s = splitExamples(readDataset(data), seed);
  makeOwnedFolder(folder);
  const paths = { train: join(folder, 'train.jsonl'), dev: join(folder, 'dev.jsonl'), test: join(folder, 'test.jsonl') };
  for (const k of ['train', 'dev', 'test'] as const) writeOwnedFile(paths[k], datasetText(s[k]), 'replace');
  return { paths, sizes: [s.train.length, s.dev.length, s.test.length] };
}
