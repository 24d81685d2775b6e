// Shared helpers for the tool tests: paths, a tiny fake ModelClient, and a run context.
import { join } from 'node:path';
import type { CompletionChunk, CompletionRequest, CompletionResult, ModelClient } from '../../../core/model/types';
import type { ToolContext } from '../../../core/tools/types';

export const REPO = join(__dirname, '../../..');
export const CORPUS_DIR = join(REPO, 'examples/corpus');
export const PYTHON = '/usr/bin/python3';

/** A model that answers every request with `answer(req)`, and remembers the requests. */
export function fakeModel(answer: (req: CompletionRequest) => Partial<CompletionResult> | string): ModelClient & { requests: CompletionRequest[] } {
  const requests: CompletionRequest[] = [];
  const complete = async (req: CompletionRequest): Promise<CompletionResult> => {
    requests.push(req);
    const a = answer(req);
    return typeof a === 'string' ? { text: a } : { text: '', ...a };
  };
  return {
    id: 'fake',
    honoursStop: true,
    requests,
    complete,
    async *stream(req: CompletionRequest): AsyncGenerator<CompletionChunk, CompletionResult, void> {
      const r = await complete(req);
      yield { text: r.text };
      return r;
    },
  };
}

export function ctx(extra: Partial<ToolContext> = {}): ToolContext {
  return { signal: new AbortController().signal, ...extra };
}
