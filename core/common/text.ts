// Offsets, ranges and line/column conversion shared by both languages. Parsers keep offsets (cheap);
// shells convert to line/character only for what they show.

/** Half-open [start, end) character offsets into a document's text. */
export interface Span {
  start: number;
  end: number;
}

export interface Position {
  /** 0-based line. */
  line: number;
  /** 0-based UTF-16 column, as in LSP. */
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

/**
 * The offset just after each line break of `text` (\n, \r\n or a lone \r), in order: where each line but the first
 * starts. indexOf scans far faster than a loop over every character (figures: docs/performance.md, figures behind the code).
 */
export function lineBreakEnds(text: string, out: number[] = []): number[] {
  lineBreaksBetween(text, 0, text.length, out);
  return out;
}

/**
 * lineBreakEnds for the stretch [from, to) of `text`, so that a large text can be scanned a stretch at a time:
 * appends to `out` and returns where the stretch really ended (one further when `to` would split a \r\n).
 */
export function lineBreaksBetween(text: string, from: number, to: number, out: number[]): number {
  if (to < text.length && text.charCodeAt(to - 1) === 13 && text.charCodeAt(to) === 10) to++;
  // A slice of the stretch (a view, not a copy): indexOf then stops at its end instead of searching the rest.
  const part = from === 0 && to === text.length ? text : text.slice(from, to);
  let nl = part.indexOf('\n');
  let cr = part.indexOf('\r');
  while (nl >= 0 || cr >= 0) {
    if (cr >= 0 && (nl < 0 || cr < nl)) {
      if (cr + 1 === nl) {
        out.push(from + nl + 1);
        nl = part.indexOf('\n', nl + 1);
      } else out.push(from + cr + 1);
      cr = part.indexOf('\r', cr + 1);
    } else {
      out.push(from + nl + 1);
      nl = part.indexOf('\n', nl + 1);
    }
  }
  return to;
}

/** Maps offsets to positions and back by binary search over line starts. Handles \n, \r\n and lone \r. */
export class LineIndex {
  readonly lineStarts: number[];
  constructor(readonly text: string) {
    this.lineStarts = lineBreakEnds(text, [0]);
  }

  get lineCount(): number {
    return this.lineStarts.length;
  }

  position(offset: number): Position {
    const o = Math.max(0, Math.min(offset, this.text.length));
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid] <= o) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: o - this.lineStarts[lo] };
  }

  offset(pos: Position): number {
    if (pos.line < 0) return 0;
    if (pos.line >= this.lineStarts.length) return this.text.length;
    const start = this.lineStarts[pos.line];
    const end = pos.line + 1 < this.lineStarts.length ? this.lineStarts[pos.line + 1] : this.text.length;
    return Math.min(start + Math.max(0, pos.character), end);
  }

  range(s: Span): Range {
    return { start: this.position(s.start), end: this.position(s.end) };
  }

  /** Offset of the end of the line holding `offset`, before its line break. */
  lineEnd(offset: number): number {
    const { line } = this.position(offset);
    let end = line + 1 < this.lineStarts.length ? this.lineStarts[line + 1] : this.text.length;
    while (end > this.lineStarts[line] && (this.text.charCodeAt(end - 1) === 10 || this.text.charCodeAt(end - 1) === 13)) end--;
    return end;
  }
}

/**
 * The candidate nearest to `word` within `max` edits (2 by default), compared after `fold` (lower case by default):
 * the one fix for a misspelt keyword, flag, state or tool name. Ties go to the first candidate; undefined when none
 * is close enough.
 */
export function nearestName(
  word: string,
  candidates: Iterable<string>,
  opts: { max?: number; fold?: (s: string) => string } = {},
): { name: string; distance: number } | undefined {
  const max = opts.max ?? 2;
  const fold = opts.fold ?? ((s: string) => s.toLowerCase());
  const w = fold(word);
  let best: { name: string; distance: number } | undefined;
  for (const c of candidates) {
    const d = editDistance(w, fold(c), max);
    if (d <= max && (!best || d < best.distance)) best = { name: c, distance: d };
  }
  return best;
}

/** A copy of `o` without its undefined properties (so a spread of it keeps the defaults it would override). */
export function withoutUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Levenshtein distance, stopping early once it exceeds `max` (returns max + 1 then). */
export function editDistance(a: string, b: string, max = Infinity): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      cur.push(v);
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    prev = cur;
  }
  return prev[b.length];
}

const CHUNK = 1024;

/**
 * Length of the common prefix of `a` and `b`. Compares chunks with native string equality first: a document an
 * editor edits is a concatenation of pieces, and charCodeAt on such a string is far slower than a slice compare.
 */
export function commonPrefixLength(a: string, b: string): number {
  const max = Math.min(a.length, b.length);
  let i = 0;
  while (i + CHUNK <= max && a.slice(i, i + CHUNK) === b.slice(i, i + CHUNK)) i += CHUNK;
  while (i < max && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** Length of the common suffix of `a` and `b`, at most `limit` characters. */
export function commonSuffixLength(a: string, b: string, limit: number): number {
  let n = 0;
  while (n + CHUNK <= limit && a.slice(a.length - n - CHUNK, a.length - n) === b.slice(b.length - n - CHUNK, b.length - n)) n += CHUNK;
  while (n < limit && a.charCodeAt(a.length - 1 - n) === b.charCodeAt(b.length - 1 - n)) n++;
  return n;
}

/** White space folded: runs of it become one space, none at either end (how recorded and new outputs compare). */
export function foldWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** A value quoted for a message (JSON string syntax), cut at `max` characters with an ellipsis. */
export function quoteShort(text: string, max: number): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max - 1)}…` : text);
}
