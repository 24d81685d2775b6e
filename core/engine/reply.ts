// One request's reply as the Runner reads it: its text joins the program chunk by chunk and is shown only once the
// runner has read it (what a stop point or the continuation check cuts off is never shown); its reasoning and the
// repairs the chat client made to it are kept per request (replyLog.ts), traced and reported; text that does not
// continue the program (the protocol's `checkContinuation`) is cut there and ends the run (`malformed`); and after
// the request, whether it made progress (progress.ts: requests in a row that add nothing end the run). A chunk
// costs its own length: the program text (a string grown chunk by chunk) is not read while the reply streams.
import type { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { CompletionChunk, Usage } from '../model/types';
import type { Detection, RunProtocol, StreamEndAction } from '../protocols/runProtocol';
import type { TraceRecord } from '../trace/schema';
import type { Progress } from './checkpoints';
import type { RunnerEvents } from './types';

/** What the trace's `completion` record says besides the text. */
export interface CompletionExtra {
  finishReason?: string;
  usage?: Usage;
  aborted?: boolean;
  cached?: boolean;
}

/** Where the runner shows the program text (its `text` events: TextEvents, below). */
export interface TextView {
  /** The text grew by `delta` since it was last shown: show it. */
  show(delta: string): void;
  /** The generated text changed from `offset` on, other than by growing: what was shown past it is taken back. */
  changedAt(offset: number): void;
}

/**
 * The runner's `text` events: the text as it stands and `delta`, what it added; `grown` when the text is the last
 * event's text followed by `delta` (a listener may then read `delta` alone, not the text, whose whole length it
 * costs to read). What the events showed is taken back by a change before its end (a cut, an edit, a rewind).
 */
export class TextEvents implements TextView {
  /** The length of the text the events showed, and how much of it the text still begins with. */
  private length = -1;
  private intact = -1;

  constructor(
    private readonly events: Pick<EventEmitter<RunnerEvents>, 'emit'>,
    private readonly header: string,
    private readonly text: () => string,
  ) {}

  show(delta: string): void {
    const text = this.text();
    const grown = this.length >= 0 && this.intact === this.length && this.length + delta.length === text.length;
    this.length = this.intact = text.length;
    this.events.emit('text', { delta, text, grown });
  }

  changedAt(offset: number): void {
    this.intact = Math.min(this.intact, this.header.length + offset);
  }
}

export class Reply {
  /** Where the request's text starts in the generated text. */
  readonly start: number;
  /** Some of the reply came from a recorded run (core/replay/cachedModel.ts). */
  cached = false;
  /** The reply is a recording replayed (CompletionChunk.recorded), not a model's. */
  recorded = false;
  /** How much of the generated text the `text` events have shown. */
  private shown: number;
  /** The text read since, not shown yet (the generated text from `shown` on). */
  private unshown = '';
  /** Whether detect() has read this reply's text: the next chunk is then given to it alone. */
  private detected = false;

  constructor(
    readonly n: number,
    private readonly progress: Progress,
    private readonly protocol: RunProtocol,
    private readonly events: Pick<EventEmitter<RunnerEvents>, 'emit'>,
    private readonly trace: (r: TraceRecord) => void,
    private readonly view: TextView,
  ) {
    this.start = progress.written.length;
    this.shown = this.start;
  }

  /** Reads a chunk: its reasoning and repairs are kept, traced and reported; its text joins the program (not shown yet). */
  take(chunk: CompletionChunk): string {
    const { n } = this;
    if (chunk.cached) this.cached = true;
    if (chunk.recorded) this.recorded = true;
    if (chunk.reasoning || chunk.repairs) this.progress.replies.add(n, this.start, chunk.reasoning, chunk.repairs);
    if (chunk.reasoning) this.events.emit('reasoning', { n, delta: chunk.reasoning });
    for (const repair of chunk.repairs ?? []) {
      this.trace({ t: 'repair', at: Date.now(), n, kind: repair.kind, summary: repair.summary, removed: repair.removed });
      this.events.emit('repair', { n, repair });
    }
    if (chunk.text) {
      this.progress.written += chunk.text;
      this.unshown += chunk.text;
      this.trace({ t: 'chunk', at: Date.now(), n, text: chunk.text });
    }
    return chunk.text;
  }

  /** The detections in the text so far, after the chunk that added `added` (the protocol reads only that, after the first). */
  detect(added: string): Detection[] {
    const first = !this.detected;
    this.detected = true;
    return first ? this.protocol.detect(this.progress.written) : this.protocol.detect(this.progress.written, added);
  }

  /**
   * Where the reply stops continuing the program, if it does before `stopAt` (a stop point cuts first). `final`:
   * the stream has ended (an unfinished last line is judged too).
   */
  problem(final: boolean, stopAt?: { cut: number } | null): { cut: number; message: string } | null {
    // A recording replayed is the user's own program (the real ART library numbers steps its own way): not judged.
    if (this.recorded) return null;
    const bad = this.protocol.checkContinuation?.(this.progress.written, this.start, final) ?? null;
    return bad && (!stopAt || bad.cut < stopAt.cut) ? bad : null;
  }

  /** The reply does not continue the program from `bad.cut` on: cut there (never shown), and the run ends. */
  malformed(bad: { cut: number; message: string }, extra: CompletionExtra): StreamEndAction {
    this.cut(bad.cut, extra);
    this.show();
    return { type: 'malformed', cut: bad.cut, message: bad.message };
  }

  /** Shows (a `text` event) the text read and kept since the last time. */
  show(): void {
    const delta = this.unshown;
    this.unshown = '';
    this.shown += delta.length;
    if (delta) this.view.show(delta);
  }

  /** Ends the request's text at `cut`, dropping what the model wrote past a stop point, and traces the completion. */
  cut(cut: number, extra: CompletionExtra = {}): void {
    const p = this.progress;
    const dropped = p.written.slice(cut);
    p.lastDropped = dropped;
    const text = p.written.slice(this.start, Math.max(this.start, cut));
    p.written = p.written.slice(0, cut);
    if (dropped) this.view.changedAt(cut);
    // What is left to show: the text read up to the cut; what was shown past it is taken back.
    this.unshown = cut > this.shown ? this.unshown.slice(0, cut - this.shown) : '';
    this.shown = Math.min(this.shown, cut);
    const reasoning = p.replies.reasoningOf(this.n);
    const cutAt = dropped ? cut : undefined;
    this.trace({
      t: 'completion',
      at: Date.now(),
      n: this.n,
      text,
      ...extra,
      cut: cutAt,
      dropped: dropped || undefined,
      ...(reasoning ? { reasoning } : {}),
    });
    if (dropped) this.events.emit('cut', { dropped, at: performance.now() });
  }
}

/** What a request added to the generated text (`before` → `after`; all of it where a correction cut below `before`). */
export function addedSince(before: string, after: string): string {
  return after.startsWith(before) ? after.slice(before.length) : after;
}

/** After request `p.requests` (its action taken): why the run ends for want of progress (progress.ts), or null. */
export function stalled(p: Progress, action: StreamEndAction | { type: 'paused' }, added: string): string | null {
  if (action.type === 'paused') return null;
  return p.stall.record({
    n: p.requests,
    added,
    correction: action.type === 'correction' ? p.correctionLog.at(-1) : undefined,
    repairs: p.replies.repairsOf(p.requests),
  });
}
