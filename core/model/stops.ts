// Stop sequences applied on the client side, for endpoints that ignore `stop` (most chat-only and reasoning
// models) and as a guard for those that honour it: text is released only when no stop sequence can start in it.

export class StopScanner {
  private buffer = '';
  private readonly stops: string[];
  private done = false;

  constructor(stops: readonly string[] | undefined) {
    this.stops = (stops ?? []).filter(s => s.length > 0);
  }

  get active(): boolean {
    return this.stops.length > 0;
  }

  /** The stop sequence that ended the text, once one was found. */
  matched: string | null = null;

  /**
   * Feeds streamed text; returns the text that is safe to release now and whether a stop sequence was reached
   * (the stop sequence itself and everything after it are dropped, as the completions API does).
   */
  push(text: string): { release: string; stopped: boolean } {
    if (this.done) return { release: '', stopped: true };
    if (!this.active) return { release: text, stopped: false };
    this.buffer += text;
    let first = -1;
    for (const s of this.stops) {
      const i = this.buffer.indexOf(s);
      if (i >= 0 && (first < 0 || i < first)) {
        first = i;
        this.matched = s;
      }
    }
    if (first >= 0) {
      this.done = true;
      const release = this.buffer.slice(0, first);
      this.buffer = '';
      return { release, stopped: true };
    }
    const keep = this.partialSuffix();
    const release = this.buffer.slice(0, this.buffer.length - keep);
    this.buffer = this.buffer.slice(this.buffer.length - keep);
    return { release, stopped: false };
  }

  /** Text held back at the end of the stream (it turned out not to be a stop sequence). */
  flush(): string {
    const rest = this.done ? '' : this.buffer;
    this.buffer = '';
    return rest;
  }

  /** Length of the longest end of the buffer that is a proper prefix of some stop sequence. */
  private partialSuffix(): number {
    let best = 0;
    for (const s of this.stops) {
      for (let k = Math.min(s.length - 1, this.buffer.length); k > best; k--) {
        if (this.buffer.endsWith(s.slice(0, k))) {
          best = k;
          break;
        }
      }
    }
    return best;
  }
}
