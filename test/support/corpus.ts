// Where the papers' examples and the real ART library are: `shared/corpus` beside this checkout (CI clones the
// project with shared/ beside it), or wherever ART_CORPUS points. Only the corpus suite (test/corpus, run by
// `npm run test:corpus` and the full test line) reads it; every other test uses the project's own test/fixtures.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setupError } from './provision';

export const CORPUS = process.env.ART_CORPUS ?? resolve(__dirname, '../../../shared/corpus');

export const corpusPath = (p: string) => join(CORPUS, p);

/** The one line that says what is missing and where it was looked for, or undefined when the corpus is there. */
export function corpusMissing(): string | undefined {
  const need = ['programs', 'agents', 'traces', 'art-library'].filter(d => !existsSync(join(CORPUS, d)));
  if (!need.length) return undefined;
  const where = process.env.ART_CORPUS ? `${CORPUS} (from ART_CORPUS)` : `${CORPUS} (shared/corpus beside the checkout)`;
  const what = existsSync(CORPUS) ? `${need.map(d => `${d}/`).join(', ')} missing in ${where}` : `no folder ${where}`;
  return `corpus suite: the papers' examples and the ART library are needed: ${what}; set ART_CORPUS to the corpus folder`;
}

/** Fails the calling test file with that one line when the corpus is missing (test/corpus files call it first). */
export function requireCorpus(): void {
  const missing = corpusMissing();
  if (!missing) return;
  throw setupError(missing);
}
