// Finds where programs begin and end with one pass of the line cursor, so the parser (and the incremental path)
// can work one program at a time.
import type { Span } from '../common/text';
import { LineCursor, LineKind } from './lines';

export interface SplitResult {
  /** Prose before the first program, when there is any non-blank text. */
  preamble: Span | null;
  /** Each program from its first non-blank line to the end of its last non-blank line (line break excluded). */
  programs: Span[];
  separators: Span[];
}

/**
 * A program starts at the first non-blank line after the preamble or a separator, and at a `Description:` (or
 * `Input:`) line once the current program already has one, or has steps: libraries need no separators.
 */
export function splitPrograms(text: string): SplitResult {
  return splitFrom(text, 0, true, () => false).result;
}

/**
 * Split from `from` (the start of a line where a program starts, or 0). `stopAt(start)` is asked each time a new
 * program opens after the first; when it says yes the split stops there (the incremental path has found a program
 * start it already knows, and everything after it is unchanged). Returns where it stopped (-1: end of text).
 */
export function splitFrom(
  text: string,
  from: number,
  preambleAllowed: boolean,
  stopAt: (programStart: number) => boolean,
): { result: SplitResult; stoppedAt: number } {
  const programs: Span[] = [];
  const separators: Span[] = [];
  let preamble: Span | null = null;
  let inPreamble = preambleAllowed;
  let stoppedAt = -1;
  let start = -1; // current program's start, -1 between programs
  let end = -1; // end of its last non-blank line
  let hasDescription = false;
  let hasInput = false;
  let hasBody = false;

  let opened = 0;
  const open = (at: number): boolean => {
    if (opened++ > 0 && stopAt(at)) {
      if (start >= 0) programs.push({ start, end });
      start = -1;
      stoppedAt = at;
      return false;
    }
    if (start >= 0) programs.push({ start, end });
    start = at;
    hasDescription = hasInput = hasBody = false;
    return true;
  };

  const line = new LineCursor(text, from);
  while (line.advance()) {
    const kind = line.kind;
    if (kind === LineKind.Blank) continue;
    if (kind === LineKind.Separator) {
      if (start >= 0) programs.push({ start, end });
      start = -1;
      inPreamble = false;
      separators.push({ start: line.start, end: line.end });
      continue;
    }
    if (start < 0) {
      if (inPreamble && kind === LineKind.Text) {
        preamble = { start: preamble ? preamble.start : line.start, end: line.end };
        continue;
      }
      inPreamble = false;
      if (!open(line.start)) break;
    } else if ((kind === LineKind.Description && (hasDescription || hasInput || hasBody)) || (kind === LineKind.Input && (hasInput || hasBody))) {
      if (!open(line.start)) break;
    }
    end = line.end;
    if (kind === LineKind.Description) hasDescription = true;
    else if (kind === LineKind.Input) hasInput = true;
    else if (kind !== LineKind.Text) hasBody = true;
  }
  if (start >= 0) programs.push({ start, end });
  return { result: { preamble, programs, separators }, stoppedAt };
}
