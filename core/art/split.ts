// Finds where programs begin and end with one pass of the line cursor, so the parser (and the incremental path)
// can work one program at a time.
import type { Span } from '../common/text';
import { LineCursor, LineKind } from './lines';

export { isDescriptionWord } from './lines';

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
  const programs: Span[] = [];
  const separators: Span[] = [];
  let preamble: Span | null = null;
  let inPreamble = true;
  let start = -1; // current program's start, -1 between programs
  let end = -1; // end of its last non-blank line
  let hasDescription = false;
  let hasInput = false;
  let hasBody = false;

  const open = (at: number) => {
    if (start >= 0) programs.push({ start, end });
    start = at;
    hasDescription = hasInput = hasBody = false;
  };

  const line = new LineCursor(text);
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
      open(line.start);
    } else if (
      (kind === LineKind.Description && (hasDescription || hasInput || hasBody)) ||
      (kind === LineKind.Input && (hasInput || hasBody))
    ) {
      open(line.start);
    }
    end = line.end;
    if (kind === LineKind.Description) hasDescription = true;
    else if (kind === LineKind.Input) hasInput = true;
    else if (kind !== LineKind.Text) hasBody = true;
  }
  if (start >= 0) programs.push({ start, end });
  return { preamble, programs, separators };
}
