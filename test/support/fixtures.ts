// The project's own test files (test/fixtures): small `.art` libraries, `.agent` specs and traces written for the
// tests in the shapes of the papers' examples. Unit tests read these, never the corpus (see test/support/corpus.ts).
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const FIXTURES = resolve(__dirname, '../fixtures');

export const fixturePath = (p: string) => join(FIXTURES, p);

export const readFixture = (p: string) => readFileSync(fixturePath(p), 'utf8');
