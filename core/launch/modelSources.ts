// The model sources as providers: each source (the OpenAI-compatible endpoint, VS Code's Language Model API, a local
// GGUF model) says what it can do, and every decision that depends on the source (the key, reranking, decoding
// constraints, the request cache, the notes a run prints, whether a run has a live model at all) asks these
// capabilities here instead of comparing source names where it is made.
import { DEFAULT_LOCAL_SEQUENCES } from '../model/defaultModel';
import type { ConstrainServer } from '../trace/vocabulary';
import type { RunOptions } from './options';

export type ModelSourceName = RunOptions['modelSource'];

export interface ModelCapabilities {
  /** Stop sequences honoured by the model (else applied as the reply streams, by giving up the stream). */
  stopSequences: boolean;
  /** Log-probabilities of the tokens it generates (alternatives ranked by NLL, `llm` task selection). */
  generatedLogprobs: boolean;
  /** Log-probabilities of a given text (the prompt): `--rerank`. */
  promptLogprobs: boolean;
  /**
   * The decoding constraints it enforces and their dialect: a server kind, `probe` (ask the endpoint what it is:
   * `constrain auto`), or null (none: the monitor alone checks).
   */
  constraints: ConstrainServer | 'probe' | null;
  /** Whether the constraint may use the exact grammar (non-ASCII classes read right), not only the portable subset. */
  exactGrammar: boolean;
  /** Function calling (ART programs over tool calls). */
  functionCalling: boolean;
  /** Requests it decodes at once, more waiting their turn (null: as many as the endpoint takes). */
  concurrency: number | null;
  /** Real token counts in its usage. */
  tokenCounts: boolean;
  /** It is reached with an API key. */
  needsKey: boolean;
}

/** What each source can do (the endpoint's are what an OpenAI-compatible API offers in `api`). */
export function capabilitiesOf(o: Pick<RunOptions, 'modelSource'> & Partial<Pick<RunOptions, 'api'>>): ModelCapabilities {
  switch (o.modelSource) {
    case 'vscode':
      return {
        stopSequences: false,
        generatedLogprobs: false,
        promptLogprobs: false,
        constraints: null,
        exactGrammar: false,
        functionCalling: true,
        concurrency: null,
        tokenCounts: false,
        needsKey: false,
      };
    case 'local':
      return {
        stopSequences: true,
        generatedLogprobs: true,
        promptLogprobs: true,
        constraints: 'llama.cpp',
        exactGrammar: true,
        functionCalling: false,
        // One context of DEFAULT_LOCAL_SEQUENCES sequences (KV caches): that many requests decode at once.
        concurrency: DEFAULT_LOCAL_SEQUENCES,
        tokenCounts: true,
        needsKey: false,
      };
    case 'endpoint':
      return {
        // Every API of it takes `stop`: the completions API and the chat completions API alike (the client sends them).
        stopSequences: true,
        generatedLogprobs: true,
        promptLogprobs: o.api === undefined || o.api === 'completions',
        constraints: 'probe',
        exactGrammar: false,
        functionCalling: o.api === 'tools',
        concurrency: null,
        tokenCounts: true,
        needsKey: true,
      };
  }
}

/** What the one rule of a live model reads: the options and whether the caller gave a chat model. */
export type LiveModelOptions = Pick<RunOptions, 'modelSource' | 'baseURL' | 'model' | 'modelFile'>;

/**
 * Whether a run has a live model (the one rule, for the runs, the request cache and the replays that depart): the
 * caller's chat model with the VS Code source, a model file with the local one, an endpoint with a model name.
 */
export function hasLiveModel(o: LiveModelOptions, chatModel: unknown): boolean {
  switch (o.modelSource) {
    case 'vscode':
      return !!chatModel;
    case 'local':
      return !!o.modelFile;
    case 'endpoint':
      return !!(o.baseURL && o.model);
  }
}
