// The region of each document edited since its last analysis, from the didChange ranges, so the incremental parser
// need not compare a large text with its previous version to find what changed.
import type { Range, TextDocument, TextDocumentContentChangeEvent } from 'vscode-languageserver-textdocument';
import type { EditRegion } from '../core/art/incremental';

interface Pending {
  /** [start, end) in the current text; `delta` = current length - length at the last analysis. */
  start: number;
  end: number;
  delta: number;
}

export class EditRegions {
  /** A document maps to null when its edits are not known exactly (full-text change, several changes at once). */
  private readonly pending = new Map<string, Pending | null>();

  /** Called with the document as it was before `changes` are applied. */
  record(before: TextDocument, changes: readonly TextDocumentContentChangeEvent[]): void {
    const uri = before.uri;
    const change = changes.length === 1 ? changes[0] : undefined;
    const range = change && 'range' in change ? (change as { range: Range }).range : undefined;
    if (!change || !range) {
      this.pending.set(uri, null);
      return;
    }
    if (this.pending.get(uri) === null) return;
    const s = before.offsetAt(range.start);
    const e = before.offsetAt(range.end);
    const d = change.text.length - (e - s);
    const r = this.pending.get(uri);
    this.pending.set(
      uri,
      r ? { start: Math.min(r.start, s), end: Math.max(r.end, e) + d, delta: r.delta + d } : { start: s, end: s + change.text.length, delta: d },
    );
  }

  /** The region edited since the last `take` (undefined: unknown, compare texts), and start afresh. */
  take(uri: string): EditRegion | undefined {
    const r = this.pending.get(uri);
    this.pending.delete(uri);
    return r ? { start: r.start, oldEnd: r.end - r.delta, newEnd: r.end } : undefined;
  }

  /** The next analysis does not start from the text the edits were counted against. */
  forget(uri: string): void {
    this.pending.set(uri, null);
  }
}
