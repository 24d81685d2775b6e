// The server's open documents: what vscode-languageserver-textdocument keeps (the text and where its lines start)
// and how it answers (positions clamped the same way, never inside a \r\n), made for large files: the line starts
// are found with indexOf (core's lineBreakEnds, far faster than the library's loop over every character: figures in
// docs/performance.md) and kept in a Uint32Array (4 bytes a line, not 8).
// An incremental change updates the line starts in place of what it replaced, as the library does.
import type { TextDocumentContentChangeEvent } from 'vscode-languageserver';
import type { Position, Range, TextDocument } from 'vscode-languageserver-textdocument';
import { lineBreakEnds, lineBreaksBetween } from '../core/common/text';

const isEol = (c: number) => c === 10 || c === 13;

export class ServerDocument implements TextDocument {
  private starts: Uint32Array | undefined;
  /** The line of the last positionAt (a hint for the next). */
  private lastLine = 0;
  /** Line starts found so far by `prepareLines`, and where its scan stopped (reset by any change). */
  private found: number[] | undefined;
  private scanned = 0;

  constructor(
    readonly uri: string,
    readonly languageId: string,
    public version: number,
    private content: string,
  ) {}

  getText(range?: Range): string {
    if (!range) return this.content;
    return this.content.substring(this.offsetAt(range.start), this.offsetAt(range.end));
  }

  get lineCount(): number {
    return this.lineStarts().length;
  }

  positionAt(offset: number): Position {
    const o = Math.max(Math.min(offset, this.content.length), 0);
    const starts = this.lineStarts();
    let line = this.lastLine;
    // Features ask for positions in document order (outline, folding, tokens, diagnostics): the line of the last
    // answer, or one of the next two, is checked before a binary search.
    if (line < starts.length && starts[line] <= o) {
      if (line + 1 < starts.length && starts[line + 1] <= o) {
        line++;
        if (line + 1 < starts.length && starts[line + 1] <= o) line = this.lineOf(o, starts);
      }
    } else line = this.lineOf(o, starts);
    this.lastLine = line;
    return { line, character: this.beforeEol(o, starts[line]) - starts[line] };
  }

  private lineOf(o: number, starts: Uint32Array): number {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= o) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  offsetAt(position: Position): number {
    const starts = this.lineStarts();
    if (position.line >= starts.length) return this.content.length;
    if (position.line < 0) return 0;
    const start = starts[position.line];
    if (position.character <= 0) return start;
    const next = position.line + 1 < starts.length ? starts[position.line + 1] : this.content.length;
    return this.beforeEol(Math.min(start + position.character, next), start);
  }

  getLineRange(line: number): Range {
    const starts = this.lineStarts();
    if (line >= starts.length) {
      const last = starts.length - 1;
      return { start: { line: last, character: 0 }, end: { line: last, character: this.content.length - starts[last] } };
    }
    if (line < 0) return { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
    const next = line + 1 < starts.length ? starts[line + 1] : this.content.length;
    return { start: { line, character: 0 }, end: { line, character: this.beforeEol(next, starts[line]) - starts[line] } };
  }

  getEOLCharacters(line: number): string {
    const starts = this.lineStarts();
    if (line < 0 || line >= starts.length) return '';
    const next = line + 1 < starts.length ? starts[line + 1] : this.content.length;
    return this.content.substring(this.beforeEol(next, starts[line]), next);
  }

  /** Applies the changes in order (each range is in the text as the changes before it left it). */
  update(changes: readonly TextDocumentContentChangeEvent[], version: number): void {
    for (const change of changes) {
      this.found = undefined;
      this.scanned = 0;
      if (!('range' in change)) {
        this.content = change.text;
        this.starts = undefined;
        continue;
      }
      const [from, to] = ordered(change.range);
      const start = this.offsetAt(from);
      const end = this.offsetAt(to);
      const text = this.content;
      this.content = text.substring(0, start) + change.text + text.substring(end);
      const insertedEnd = start + change.text.length;
      const c = this.content;
      // A \r\n made or split at a boundary of the edit: the line starts around it are found again from the text.
      if (
        (c.charCodeAt(start - 1) === 13 && c.charCodeAt(start) === 10) ||
        (c.charCodeAt(insertedEnd - 1) === 13 && c.charCodeAt(insertedEnd) === 10)
      ) {
        this.starts = undefined;
        continue;
      }
      if (!this.starts) continue;
      const old = this.starts;
      const firstLine = Math.min(Math.max(from.line, 0), old.length - 1);
      const lastLine = Math.min(Math.max(to.line, 0), old.length - 1);
      const added = lineBreakEnds(change.text);
      const delta = change.text.length - (end - start);
      const next = new Uint32Array(old.length - (lastLine - firstLine) + added.length);
      next.set(old.subarray(0, firstLine + 1));
      for (let i = 0; i < added.length; i++) next[firstLine + 1 + i] = added[i] + start;
      let at = firstLine + 1 + added.length;
      for (let i = lastLine + 1; i < old.length; i++) next[at++] = old[i] + delta;
      this.starts = next;
    }
    this.version = version;
  }

  /**
   * Finds the line starts up to `offset` (the first analysis of a large text calls this between its steps, so that
   * the first position asked does not hold the server while the whole text is scanned).
   */
  prepareLines(offset: number): void {
    if (this.starts) return;
    this.found ??= [0];
    if (offset > this.scanned) this.scanned = lineBreaksBetween(this.content, this.scanned, Math.min(offset, this.content.length), this.found);
  }

  private lineStarts(): Uint32Array {
    if (!this.starts) {
      const found = this.found ?? [0];
      if (this.scanned < this.content.length) lineBreaksBetween(this.content, this.scanned, this.content.length, found);
      this.starts = Uint32Array.from(found);
      this.found = undefined;
      this.scanned = 0;
    }
    return this.starts;
  }

  /** `offset` moved back before the line break it is in or after (the library's ensureBeforeEOL). */
  private beforeEol(offset: number, lineStart: number): number {
    while (offset > lineStart && isEol(this.content.charCodeAt(offset - 1))) offset--;
    return offset;
  }
}

function ordered(r: Range): [Position, Position] {
  const { start, end } = r;
  return start.line > end.line || (start.line === end.line && start.character > end.character) ? [end, start] : [start, end];
}

/** The document manager's factory (`new TextDocuments(serverDocuments)`). */
export const serverDocuments = {
  create: (uri: string, languageId: string, version: number, content: string): TextDocument => new ServerDocument(uri, languageId, version, content),
  update: (document: TextDocument, changes: TextDocumentContentChangeEvent[], version: number): TextDocument => {
    if (!(document instanceof ServerDocument)) throw new Error(`${document.uri} was not made by serverDocuments.create`);
    document.update(changes, version);
    return document;
  },
};
