// Helpers for `.art` tests: check a text and read diagnostics as `line:code` pairs (1-based lines).
import { checkArt, parseArt } from '../../core/art';
import type { Diagnostic } from '../../core/common/diagnostics';
import { LineIndex } from '../../core/common/text';

export function diagnose(text: string): Diagnostic[] {
  return checkArt(parseArt(text));
}

/** `3:missing-answer` for each diagnostic, in document order. */
export function codesAt(text: string): string[] {
  const index = new LineIndex(text);
  return diagnose(text).map(d => `${index.position(d.span.start).line + 1}:${d.code}`);
}

export { applyEdits } from '../../core/common/diagnostics';

/** Lines joined with \n, so fixtures read like files. */
export const lines = (...ls: string[]) => ls.join('\n');
