// When and how long to wait before retrying a model request. Kept apart from the client so the policy is
// testable and the same for streams, one-shot completions and LLM-backed tools.
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';

export interface RetryPolicy {
  /** Retries after the first attempt (0 = never retry). */
  maxRetries: number;
  /** First backoff delay; doubles on every retry. */
  initialDelayMs: number;
  /** Cap on one backoff delay (a Retry-After above it is still capped, so a run never hangs for minutes). */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 4, initialDelayMs: 500, maxDelayMs: 20_000 };

/** Why a request may be retried, or null when it must not be (bad request, auth, cancelled by the user). */
export function retryReason(err: unknown): string | null {
  if (err instanceof APIUserAbortError) return null;
  if (err instanceof APIConnectionTimeoutError) return 'timeout';
  if (err instanceof APIConnectionError) return 'connection error';
  if (err instanceof APIError) {
    const s = err.status;
    if (s === 408) return 'timeout (408)';
    if (s === 409) return 'conflict (409)';
    if (s === 429) return 'rate limited (429)';
    if (typeof s === 'number' && s >= 500) return `server error (${s})`;
    return null;
  }
  if (err instanceof StreamInterruptedError) return err.message;
  return null;
}

/** A stream that ended without a finish reason or stalled: the connection dropped mid-way. */
export class StreamInterruptedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StreamInterruptedError';
  }
}

/** Milliseconds the server asked us to wait (`retry-after-ms`, `retry-after` in seconds or as an HTTP date). */
export function retryAfterMs(headers: Headers | undefined | null, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms != null && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const after = headers.get('retry-after');
  if (after == null || after.trim() === '') return undefined;
  if (Number.isFinite(Number(after))) return Math.max(0, Number(after) * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Delay before retry number `attempt` (1-based): the server's Retry-After when given, else exponential with jitter. */
export function backoffDelay(attempt: number, policy: RetryPolicy, err?: unknown, random = Math.random): number {
  const asked = err instanceof APIError ? retryAfterMs(err.headers as Headers | undefined) : undefined;
  if (asked !== undefined) return Math.min(asked, policy.maxDelayMs);
  const base = Math.min(policy.initialDelayMs * 2 ** (attempt - 1), policy.maxDelayMs);
  // Up to 25% jitter downwards so that parallel clients do not retry in lockstep.
  return Math.round(base * (1 - random() * 0.25));
}

/** Sleeps, rejecting at once with the signal's reason when it is aborted. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal!));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The error a cancelled operation rejects with (named `AbortError` like the platform's). */
export function abortError(signal?: AbortSignal): Error {
  const reason = signal?.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  const e = new Error(typeof reason === 'string' ? reason : 'The operation was cancelled.');
  e.name = 'AbortError';
  return e;
}

export function isAbortError(err: unknown): boolean {
  return err instanceof APIUserAbortError || (err instanceof Error && err.name === 'AbortError');
}
