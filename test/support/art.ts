// Helpers for `.art` tests: check a text and read diagnostics as `line:code` pairs (1-based lines).
import { checkArt, parseArt } from '../../core/art';
import type { Diagnostic, TextEdit } from '../../core/common/diagnostics';
import { LineIndex } from '../../core/common/text';

export function diagnose(text: string): Diagnostic[] {
  return checkArt(parseArt(text));
}

/** `3:missing-answer` for each diagnostic, in document order. */
export function codesAt(text: string): string[] {
  const index = new LineIndex(text);
  return diagnose(text).map((d) => `${index.position(d.span.start).line + 1}:${d.code}`);
}

export function applyEdits(text: string, edits: TextEdit[]): string {
  const sorted = [...edits].sort((a, b) => b.span.start - a.span.start);
  let out = text;
  for (const e of sorted) out = out.slice(0, e.span.start) + e.newText + out.slice(e.span.end);
  return out;
}

/** Lines joined with \n, so fixtures read like files. */
export const lines = (...ls: string[]) => ls.join('\n');
