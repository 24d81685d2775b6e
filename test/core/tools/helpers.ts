// Shared helpers for the tool tests: paths and a run context (fake models: test/support/fakeModels.ts).
import { join } from 'node:path';
import type { ToolContext } from '../../../core/tools/types';

export const REPO = join(__dirname, '../../..');
export const CORPUS_DIR = join(REPO, 'examples/corpus');
export const PYTHON = '/usr/bin/python3';

export function ctx(extra: Partial<ToolContext> = {}): ToolContext {
  return { signal: new AbortController().signal, ...extra };
}
