// Every handler runs guarded: a bug or bad input gives "no result" and a log line, never a crashed server.
import { LSPErrorCodes, ResponseError, type CancellationToken } from 'vscode-languageserver';

export interface Logger {
  info(message: string): void;
  error(message: string): void;
}

export function describeError(e: unknown): string {
  if (e instanceof Error) return e.stack ?? `${e.name}: ${e.message}`;
  return String(e);
}

/**
 * Wraps a request handler: exceptions and rejections become `fallback`, logged with the handler's name. A
 * ResponseError is the handler's deliberate answer (the protocol's error for the request) and passes through, as
 * does RequestCancelled for a request cancelled before it ran.
 */
export function guard<P, R, F>(
  name: string,
  log: Logger,
  fallback: F,
  handler: (params: P, token: CancellationToken) => R | Promise<R>,
): (params: P, token: CancellationToken) => Promise<R | F> {
  return async (params, token) => {
    try {
      // A request the client cancelled before it ran gets the protocol's answer for that, not an empty result.
      if (token?.isCancellationRequested) throw new ResponseError(LSPErrorCodes.RequestCancelled, 'request cancelled');
      return await handler(params, token);
    } catch (e) {
      if (e instanceof ResponseError) throw e;
      log.error(`[${name}] ${describeError(e)}`);
      return fallback;
    }
  };
}

/** Same for notifications and events: nothing to return, only log. */
export function guardEvent<P>(name: string, log: Logger, handler: (params: P) => void | Promise<void>): (params: P) => void {
  return params => {
    try {
      const r = handler(params);
      if (r instanceof Promise) r.catch(e => log.error(`[${name}] ${describeError(e)}`));
    } catch (e) {
      log.error(`[${name}] ${describeError(e)}`);
    }
  };
}

const immediate = (): Promise<void> => new Promise(resolve => setImmediate(resolve));

/**
 * Lets messages that arrived meanwhile (a newer didChange, a hover, a cancel) run before the next chunk of work.
 * Twice: vscode-jsonrpc handles a message read in this loop turn in an immediate queued after ours, so one
 * yield would resume our work first.
 */
export async function yieldToEventLoop(): Promise<void> {
  await immediate();
  await immediate();
}

/**
 * Cooperative long work inside a request handler (an outline of 60,000 programs): `await slicer.tick()` in the loop
 * yields to the event loop about every `sliceMs`, so a hover or a keystroke is answered meanwhile instead of waiting
 * behind the whole answer. After a yield it stops with the protocol's errors when the client cancelled the request
 * (RequestCancelled) or the document changed meanwhile (ContentModified: the answer would describe an old text).
 */
export class WorkSlicer {
  private since = performance.now();
  private count = 0;

  constructor(
    private readonly stale: () => boolean,
    private readonly token?: CancellationToken,
    private readonly sliceMs = 8,
  ) {}

  /** `await slicer.tick()` in a loop: yields when the slice is spent (see `due`/`pause` for a loop of tiny steps). */
  async tick(): Promise<void> {
    if (this.due()) await this.pause();
  }

  /**
   * Whether the slice is spent, checked without a promise: a loop of tiny steps (a token each) writes
   * `if (slicer.due()) await slicer.pause();`, since even an `await` that does not wait costs a microtask per step.
   */
  due(): boolean {
    return (++this.count & 31) === 0 && performance.now() - this.since >= this.sliceMs;
  }

  /** Yields to the event loop, then stops if the request was cancelled or the document changed meanwhile. */
  async pause(): Promise<void> {
    await yieldToEventLoop();
    if (this.token?.isCancellationRequested) throw new ResponseError(LSPErrorCodes.RequestCancelled, 'request cancelled');
    if (this.stale()) throw new ResponseError(LSPErrorCodes.ContentModified, 'the document changed while the request was answered');
    this.since = performance.now();
  }
}
