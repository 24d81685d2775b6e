// Formatting: programs through core's formatter (marker spacing), specs through core's s-expression layout.
// A spec is reformatted whole; the edit sent is only the part that changed, so the cursor and folds stay put.
import type { DocumentFormattingParams, TextEdit as LspTextEdit } from 'vscode-languageserver';
import { formatArt } from '../core/art/format';
import { formatAgentText } from './agentCore';
import { toLspEdit } from './convert';
import { isArt, target, type ServerContext } from './context';
import { commonPrefixLength, commonSuffixLength } from '../core/common/text';

export function formatting(ctx: ServerContext, params: DocumentFormattingParams): LspTextEdit[] | null {
  const t = target(ctx, params.textDocument.uri);
  if (!t) return null;
  const { document } = t;
  if (isArt(t)) return formatArt(t.analysis.doc).map(e => toLspEdit(document, e));
  const text = document.getText();
  const formatted = formatAgentText(text); // null when the spec has syntax errors: never reflow what cannot be read
  if (formatted === null) return null;
  if (formatted === text) return [];
  return [toLspEdit(document, minimalEdit(text, formatted))];
}

/** One edit covering only what differs between `before` and `after` (common prefix and suffix kept). */
export function minimalEdit(before: string, after: string): { span: { start: number; end: number }; newText: string } {
  const start = commonPrefixLength(before, after);
  const tail = commonSuffixLength(before, after, Math.min(before.length, after.length) - start);
  const endBefore = before.length - tail;
  const endAfter = after.length - tail;
  return { span: { start, end: endBefore }, newText: after.slice(start, endAfter) };
}
