// Diagnostics as core produces them: offsets, a stable code, and optional fixes computed in core so that the
// language server and the CLI only translate them.
import type { Range, Span } from './text';

export type Severity = 'error' | 'warning' | 'information' | 'hint';

/** Replace the text in `span` with `newText` (an insertion when the span is empty). */
export interface TextEdit {
  span: Span;
  newText: string;
}

export interface Fix {
  title: string;
  edits: TextEdit[];
  /** The fix a user most likely wants (shown first, applied by "fix all"). */
  preferred?: boolean;
}

export interface Diagnostic {
  code: string;
  severity: Severity;
  message: string;
  span: Span;
  fixes?: Fix[];
  /** Other places that explain the problem (e.g. the first of two duplicates). */
  related?: { span: Span; message: string }[];
}

/** A diagnostic of a file, at a 0-based range (as LSP has it): what `art check` and the agent tool check report. */
export interface FileDiagnostic {
  file: string;
  range: Range;
  severity: Severity;
  code: string;
  message: string;
}

export function sortDiagnostics(ds: Diagnostic[]): Diagnostic[] {
  return ds.sort((a, b) => a.span.start - b.span.start || a.span.end - b.span.end || a.code.localeCompare(b.code));
}

/** Applies non-overlapping edits to `text` (edits at the same offset in the order given). */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const sorted = [...edits].sort((a, b) => a.span.start - b.span.start);
  let out = '';
  let at = 0;
  for (const e of sorted) {
    out += text.slice(at, e.span.start) + e.newText;
    at = e.span.end;
  }
  return out + text.slice(at);
}
