// An endpoint's model whose output never carries a secret: a completion that echoes the key (a careless proxy, a
// model shown its own request) has every form of it (core/common/redact.ts) replaced by `***` before the runner
// sees a chunk, so no shell prints it, and no trace, run summary or results file records it, however the stream
// cut it. Errors and retry reasons are redacted the same way.
import { Redactor } from '../common/redact';
import type { CompletionChunk, CompletionRequest, CompletionResult, ModelClient, RetryInfo } from '../model/types';

/** `model` with its output redacted of `secrets`; `model` itself when there is none. */
export function redactedModel(model: ModelClient, secrets: readonly (string | undefined)[]): ModelClient {
  const redactor = new Redactor(secrets);
  return redactor.active ? new RedactedModel(model, redactor) : model;
}

class RedactedModel implements ModelClient {
  readonly id: string;
  readonly honoursStop: boolean;

  constructor(
    private readonly base: ModelClient,
    private readonly redactor: Redactor,
  ) {
    this.id = base.id;
    this.honoursStop = base.honoursStop;
    if (base.recordedAnswer) this.recordedAnswer = instruction => base.recordedAnswer?.(instruction);
  }

  recordedAnswer?: (instruction: string) => string | undefined;

  /** The runner and the request limiter subscribe to the endpoint's retries. */
  addRetryListener(fn: (info: RetryInfo) => void): () => void {
    return this.base.addRetryListener?.(info => fn({ ...info, reason: this.redactor.redact(info.reason) })) ?? (() => {});
  }

  dispose(): void | Promise<void> {
    return this.base.dispose?.();
  }

  async *stream(req: CompletionRequest): AsyncGenerator<CompletionChunk, CompletionResult, void> {
    const text = this.redactor.stream();
    const it = this.base.stream(req);
    let done = false;
    try {
      for (;;) {
        let r: IteratorResult<CompletionChunk, CompletionResult>;
        try {
          r = await it.next();
        } catch (e) {
          done = true;
          throw this.redactError(e);
        }
        if (r.done) {
          done = true;
          const rest = text.end();
          if (rest) yield { text: rest, ...(r.value.cached ? { cached: true } : {}) };
          return { ...r.value, text: this.redactor.redact(r.value.text) };
        }
        // A chunk that is all held back is passed on empty (its flags still count).
        yield { ...r.value, text: text.push(r.value.text) };
      }
    } finally {
      // The caller stopped reading (a tool call is complete, a pause): stop the endpoint's stream too.
      if (!done) await it.return?.(undefined as never);
    }
  }

  async complete(req: CompletionRequest): Promise<CompletionResult> {
    try {
      const r = await this.base.complete(req);
      return { ...r, text: this.redactor.redact(r.text) };
    } catch (e) {
      throw this.redactError(e);
    }
  }

  private redactError(e: unknown): unknown {
    if (e instanceof Error) e.message = this.redactor.redact(e.message);
    return e;
  }
}
