// Shows a growing program on an append-only output (a terminal, a debug console). The runner's text can shrink:
// text past a tool call is dropped when a stream is aborted there, the end of a program is cut at the line break
// before a separator the model wrote after `Ans:`, and an agent monitor correction rewrites the tail. So while the
// model streams, only whole lines are printed, and the line break before an unfinished line is held back with it:
// the runner cuts at a line break before a line it reads as the end, and it reads a line (and cuts) before it
// shows it. The rest is printed when the run pauses or ends; if printed text was taken back after all (a monitor
// correction), a marker says so and the program goes on from the point where it still agrees. Given what the text
// added since the last update (`delta`, the runner's `grown` text events), an update costs the delta (and, when
// it ends a line, that line), not the whole text.
import { commonPrefixLength } from './text';
import { plural } from './counts';

export class StreamedText {
  private printed = '';
  /** The text of the last update from `printed` on, while it is known (null: read it from the next text). */
  private rest: string | null = null;

  constructor(private readonly write: (text: string) => void) {}

  /** What has been printed so far. */
  get text(): string {
    return this.printed;
  }

  /**
   * Prints what `current` adds to the printed text: whole lines (not the last line break), or everything with `all`.
   * `delta`: `current` is the text of the last update followed by `delta` (then only `delta` is read).
   */
  update(current: string, all = false, delta?: string): void {
    if (delta !== undefined && this.rest !== null) {
      const rest = this.rest + delta;
      this.rest = rest;
      if (!all && !delta.includes('\n')) return;
      const upTo = all ? rest.length : rest.lastIndexOf('\n');
      if (upTo <= 0) return;
      this.write(rest.slice(0, upTo));
      this.printed += rest.slice(0, upTo);
      this.rest = rest.slice(upTo);
      return;
    }
    if (!current.startsWith(this.printed)) {
      const common = commonPrefixLength(this.printed, current);
      const back = this.printed.length - common;
      const lineStart = current.lastIndexOf('\n', common - 1) + 1;
      this.write(`${this.printed.endsWith('\n') ? '' : '\n'}[… ${plural(back, 'character')} taken back; the program goes on from here:]\n`);
      this.write(current.slice(lineStart, common));
      this.printed = current.slice(0, common);
    }
    const rest = current.slice(this.printed.length);
    const upTo = all ? rest.length : rest.lastIndexOf('\n');
    this.rest = rest;
    if (upTo <= 0) return;
    this.write(rest.slice(0, upTo));
    this.printed += rest.slice(0, upTo);
    this.rest = rest.slice(upTo);
  }

  /** Starts over (a restarted run). */
  reset(): void {
    this.printed = '';
    this.rest = null;
  }
}
