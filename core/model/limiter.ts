// A bound on the requests in flight to one endpoint, shared by every run that uses it (`art eval` runs many programs
// at once). A rate limit (429) slows the whole run down, not just the request that met it: the bound is halved and
// no new request starts until the server's Retry-After (or the backoff) has passed; after as many successful
// requests as the bound, it grows back by one, up to the configured concurrency. A total, when given, is the most
// requests it lets start at all (`art improve --budget`): the next one is refused and `onSpent` called.
import type { CompletionChunk, CompletionRequest, CompletionResult, ModelClient, RetryInfo } from './types';

export class RequestLimiter {
  /** Requests allowed in flight now (halved on a 429, grown back by one as requests succeed). */
  limit: number;
  inFlight = 0;
  /** Rate limits seen. */
  rateLimited = 0;
  /** Until when (Date.now()) no new request starts. */
  private closedUntil = 0;
  private successes = 0;
  private readonly waiting: (() => void)[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** Requests started so far. */
  started = 0;

  constructor(
    readonly max: number,
    private readonly total?: { requests: number; onSpent(): void },
  ) {
    if (!Number.isInteger(max) || max < 1) throw new Error(`the concurrency must be an integer of at least 1, not ${max}`);
    this.limit = max;
  }

  /** Whether the total is spent: no request may start any more. */
  get spent(): boolean {
    return this.total !== undefined && this.started >= this.total.requests;
  }

  /** Waits for a slot (the gate open and fewer than `limit` in flight); resolves with the function that frees it. */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    while (!this.free()) {
      if (signal?.aborted) throw signal.reason ?? new Error('aborted');
      await new Promise<void>(resolve => {
        this.waiting.push(resolve);
        this.armTimer();
      });
    }
    if (signal?.aborted) throw signal.reason ?? new Error('aborted');
    if (this.spent) {
      this.total!.onSpent();
      throw new Error(`the request budget (${this.total!.requests}) is spent`);
    }
    this.started++;
    this.inFlight++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight--;
      this.wake();
    };
  }

  /** A request met a rate limit: halve the bound and hold every new request for `delayMs`. */
  onRateLimit(delayMs: number): void {
    this.rateLimited++;
    this.limit = Math.max(1, Math.floor(this.limit / 2));
    this.successes = 0;
    this.closedUntil = Math.max(this.closedUntil, Date.now() + delayMs);
  }

  /** A request succeeded: after `limit` of them in a row, allow one more in flight (up to `max`). */
  onSuccess(): void {
    if (this.limit >= this.max) return;
    if (++this.successes >= this.limit) {
      this.successes = 0;
      this.limit++;
      this.wake();
    }
  }

  /** Wraps a model so that each of its requests holds a slot while it runs; 429s it retries slow everyone down. */
  wrap(model: ModelClient): ModelClient {
    model.addRetryListener?.(info => {
      if (/\b429\b/.test(info.reason)) this.onRateLimit(info.delayMs);
    });
    return new LimitedModel(model, this);
  }

  private free(): boolean {
    return Date.now() >= this.closedUntil && this.inFlight < this.limit;
  }

  private wake(): void {
    if (!this.waiting.length) return;
    // Each woken waiter checks again; wake one per free slot.
    if (this.free()) for (const w of this.waiting.splice(0, Math.max(1, this.limit - this.inFlight))) w();
    else this.armTimer();
  }

  /** While the gate is closed, wake the waiters when it opens. */
  private armTimer(): void {
    if (this.timer || !this.waiting.length) return;
    const wait = this.closedUntil - Date.now();
    if (wait <= 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.wake();
    }, wait);
  }
}

class LimitedModel implements ModelClient {
  readonly id: string;
  readonly honoursStop: boolean;

  constructor(
    private readonly base: ModelClient,
    private readonly limiter: RequestLimiter,
  ) {
    this.id = base.id;
    this.honoursStop = base.honoursStop;
  }

  /** The runner subscribes to the endpoint's retries to report them. */
  addRetryListener(fn: (info: RetryInfo) => void): () => void {
    return this.base.addRetryListener?.(fn) ?? (() => {});
  }

  dispose(): void | Promise<void> {
    return this.base.dispose?.();
  }

  async *stream(req: CompletionRequest): AsyncGenerator<CompletionChunk, CompletionResult, void> {
    const release = await this.limiter.acquire(req.signal);
    try {
      const result = yield* this.base.stream(req);
      this.limiter.onSuccess();
      return result;
    } finally {
      release();
    }
  }

  async complete(req: CompletionRequest): Promise<CompletionResult> {
    const release = await this.limiter.acquire(req.signal);
    try {
      const result = await this.base.complete(req);
      this.limiter.onSuccess();
      return result;
    } finally {
      release();
    }
  }
}
