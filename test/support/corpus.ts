// Where the papers' examples are: `shared/corpus` beside this checkout (CI clones the project with shared/ beside
// it). ART_CORPUS points elsewhere when needed. Every test finds the corpus through here.
import { join, resolve } from 'node:path';

export const CORPUS = process.env.ART_CORPUS ?? resolve(__dirname, '../../../shared/corpus');

export const corpusPath = (p: string) => join(CORPUS, p);
