// What an endpoint can make the model client hold or wait for, bounded while reading, whatever it sends:
// - a response body: at most MAX_BODY_BYTES in all (a non-streamed reply is cut while it is read, not after), a
//   single line (SSE event) at most MAX_EVENT_BYTES, an error body kept up to MAX_ERROR_BODY_CHARS (boundedFetch);
// - a stream's silence: only progress (text, reasoning, a function call's pieces, the finish) resets the idle timer,
//   so events that carry nothing (empty deltas, logprobs alone) do not keep a stalled stream alive (idle);
// - a request's time: requestTimeoutMs from its start to its last byte, retries and resumed streams included
//   (openai.ts), DEFAULT_REQUEST_TIMEOUT_MS by default.
// The number of events and the characters of text and reasoning are bounded per request in openai.ts (the local
// budget).
import { APIError, APIUserAbortError } from 'openai';
import { StreamInterruptedError, isAbortError } from './retry';
import { sameOriginFetch } from './fetch';

/** Longest error body kept in a message or a trace. */
export const MAX_ERROR_BODY_CHARS = 2048;
/** Longest single line (SSE event) of a response accepted. */
export const MAX_EVENT_BYTES = 4 * 1024 * 1024;
/** Largest response body read (a stream in all, or a whole reply). */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;
/** The longest one model request may take, first byte to last, when the caller sets no `requestTimeoutMs`. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 300_000;

/** A response larger than the client reads: not retried (the endpoint would send it again). */
export class ResponseTooLargeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ResponseTooLargeError';
  }
}

/** A request that took longer than its request timeout: not retried. */
export class RequestTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`the request took longer than its request timeout of ${formatMs(timeoutMs)} (requestTimeoutMs) and was stopped`);
    this.name = 'RequestTimeoutError';
  }
}

const formatMs = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

/**
 * fetch for the `openai` client with bounded bodies: an error body is kept up to MAX_ERROR_BODY_CHARS (the rest is
 * read, counted up to 64 MB, and dropped), a body with a single line over MAX_EVENT_BYTES fails with a clear error
 * instead of being buffered whole, and so does a body over `maxBytes` in all (a stream or a whole reply), as soon
 * as it is read that far. Redirects are followed only within the endpoint's origin (fetch.ts).
 */
export async function boundedFetch(input: string | URL | Request, init?: RequestInit, maxBytes = MAX_BODY_BYTES): Promise<Response> {
  const res = await sameOriginFetch(input, init);
  if (!res.body) return res;
  if (!res.ok) {
    const reader = res.body.getReader();
    const kept: Uint8Array[] = [];
    let keptBytes = 0;
    let total = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        total += value.length;
        if (keptBytes < MAX_ERROR_BODY_CHARS) {
          kept.push(value.subarray(0, MAX_ERROR_BODY_CHARS - keptBytes));
          keptBytes += Math.min(value.length, MAX_ERROR_BODY_CHARS - keptBytes);
        }
        if (total > 64 * 1024 * 1024) {
          await reader.cancel().catch(() => undefined);
          break;
        }
      }
    } catch {
      /* a broken error body: what was read is enough */
    }
    let text = Buffer.concat(kept).toString('utf8');
    if (total > keptBytes) text += `… (${total > 64 * 1024 * 1024 ? 'over 64 MB' : `${total - keptBytes} bytes`} cut)`;
    // A JSON error body cut short is no longer JSON: the message is the text itself.
    const headers = new Headers(res.headers);
    headers.delete('content-length');
    if (total > keptBytes) headers.set('content-type', 'text/plain');
    return new Response(text, { status: res.status, statusText: res.statusText, headers });
  }
  let line = 0;
  let total = 0;
  const bounded = res.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        total += chunk.length;
        if (total > maxBytes) {
          controller.error(new ResponseTooLargeError(`a response over ${maxBytes / (1024 * 1024)} MB: it was cut there`));
          return;
        }
        let start = 0;
        for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, start)) {
          line += i - start;
          if (line > MAX_EVENT_BYTES) break;
          line = 0;
          start = i + 1;
        }
        if (line <= MAX_EVENT_BYTES) line += chunk.length - start;
        if (line > MAX_EVENT_BYTES) {
          controller.error(new Error(`the endpoint sent a single event over ${MAX_EVENT_BYTES / (1024 * 1024)} MB`));
          return;
        }
        controller.enqueue(chunk);
      },
    }),
  );
  const headers = new Headers(res.headers);
  headers.delete('content-length');
  return new Response(bounded, { status: res.status, statusText: res.statusText, headers });
}

/**
 * Iterates `events`, failing with StreamInterruptedError when no progress arrives for `ms` (a stalled connection,
 * or one that sends only events that carry nothing) or when the transport breaks; a cancellation by the caller and
 * a response too large pass through.
 */
export async function* idle<T>(events: AsyncIterable<T>, ms: number, ctrl: AbortController, progress: (ev: T) => boolean): AsyncGenerator<T> {
  const it = events[Symbol.asyncIterator]();
  let finished = false;
  let last = Date.now();
  try {
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const stalled = new Promise<'stalled'>(resolve => {
        timer = setTimeout(() => resolve('stalled'), Math.max(0, last + ms - Date.now()));
      });
      let r: IteratorResult<T> | 'stalled';
      try {
        r = await Promise.race([it.next(), stalled]);
      } catch (err) {
        if (isAbortError(err) || err instanceof APIUserAbortError || ctrl.signal.aborted) throw err;
        if (err instanceof APIError && err.status !== undefined) throw err;
        if (err instanceof ResponseTooLargeError || (err as Error)?.cause instanceof ResponseTooLargeError) throw err;
        throw new StreamInterruptedError(err instanceof Error ? err.message : String(err));
      } finally {
        clearTimeout(timer);
      }
      if (r === 'stalled') {
        ctrl.abort();
        throw new StreamInterruptedError(`no progress (text, reasoning or the finish) for ${formatMs(ms)}`);
      }
      if (r.done) {
        finished = true;
        return;
      }
      if (progress(r.value)) last = Date.now();
      yield r.value;
    }
  } finally {
    // Abort first: a pending read would otherwise keep `return()` waiting on the socket.
    if (!finished) ctrl.abort();
    void Promise.resolve(it.return?.()).catch(() => undefined);
  }
}
