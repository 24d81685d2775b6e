// What the runner and LLM-backed tools need from a model, independent of any endpoint or SDK.
import type { ReplyRepair } from './chatReply';

/** Tokens a request may generate when its caller sets no limit (the runner's requests, the code tool's, the `art.model.maxTokens` setting). */
export const DEFAULT_MAX_TOKENS = 512;

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  /** Of the completion tokens, those a reasoning model spent thinking (where the endpoint reports them). */
  reasoningTokens?: number;
  /** Of the prompt tokens, those the model did not evaluate again: kept from an earlier request (a KV cache). */
  cachedPromptTokens?: number;
}

export interface CompletionRequest {
  prompt: string;
  /** Stop sequences; a client whose endpoint ignores them must stop the stream itself (see `stopped`). */
  stop?: string[];
  maxTokens?: number;
  temperature?: number;
  /** Ask for token log-probabilities (used to rerank search passages by negative log-likelihood). */
  logprobs?: boolean;
  /** Extra JSON fields for this request's body, over the client's own (e.g. a decoding constraint, see protocols/constraints.ts). */
  extraBody?: Record<string, unknown>;
  signal?: AbortSignal;
}

export interface CompletionChunk {
  text: string;
  /** Reasoning the model streamed beside the text (a `reasoning_content` field, a `<think>` block): never program text. */
  reasoning?: string;
  /** Changes made to a chat reply before its text was given (see chatReply.ts), each reported once. */
  repairs?: ReplyRepair[];
  /** The chunk comes from a recorded completion (see core/replay/cachedModel.ts), not from the endpoint. */
  cached?: boolean;
  /**
   * The text is a recording replayed (a program's own steps, a trace), not a model's reply: what the user wrote or
   * kept, so the runner does not judge whether it continues the program.
   */
  recorded?: boolean;
}

export interface CompletionResult {
  text: string;
  /** All the reasoning of the completion (see CompletionChunk.reasoning). */
  reasoning?: string;
  repairs?: ReplyRepair[];
  usage?: Usage;
  /** Per-token log-probabilities of the completion when requested and the endpoint returns them. */
  tokenLogprobs?: number[];
  finishReason?: string;
  /** The completion was served from a recorded run (0 tokens), not by the endpoint. */
  cached?: boolean;
}

export interface ModelClient {
  /** Human-readable identity for traces: `openai:gpt-4o-mini@https://...`, `replay`, ... (never a key). */
  readonly id: string;
  /** Whether stop sequences are honoured by the endpoint (completions API) or must be emulated by aborting. */
  readonly honoursStop: boolean;
  /** Streams a continuation; the iterator's return value carries usage and finish reason. */
  stream(req: CompletionRequest): AsyncGenerator<CompletionChunk, CompletionResult, void>;
  /** One-shot completion (LLM-backed tools, NLL scoring). */
  complete(req: CompletionRequest): Promise<CompletionResult>;
  /**
   * A replay's recorded answer of the tool step with this instruction, while the run follows its recording: a
   * model-backed tool answers with it (marked as recorded) instead of asking a model that is not there.
   */
  recordedAnswer?(instruction: string): string | undefined;
  /** `n` completions of one request (alternatives at a step): in one request where the model can, else one by one. */
  completeMany?(req: CompletionRequest, n: number): Promise<CompletionResult[]>;
  /** Subscribes to the retries of its requests (the runner reports them as events); returns the unsubscribe function. */
  addRetryListener?(fn: (info: RetryInfo) => void): () => void;
  /** Releases what the client holds (a local model's sequence); the run calls it when it ends. */
  dispose?(): void | Promise<void>;
}

export interface RetryInfo {
  attempt: number;
  delayMs: number;
  reason: string;
  /** Characters already received when a stream was resumed. */
  resumedAfter?: number;
}

/** The result a stream returns, its chunks read and dropped: `complete()` of a client that streams. */
export async function streamResult(it: AsyncGenerator<CompletionChunk, CompletionResult, void>): Promise<CompletionResult> {
  for (;;) {
    const r = await it.next();
    if (r.done) return r.value;
  }
}
