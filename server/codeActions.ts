// Quick fixes: core computes every fix (renumber, use the tool's name, add `#k:` / `Qn: [EOQ]` / `Ans:`, add a
// missing state, close a list, ...) as offset edits; this module only turns them into LSP code actions.
// `source.fixAll.art` applies every preferred fix whose edits do not overlap.
import { CodeActionKind, type CodeAction, type CodeActionParams, type TextEdit as LspTextEdit } from 'vscode-languageserver';
import type { Diagnostic, TextEdit } from '../core/common/diagnostics';
import type { Span } from '../core/common/text';
import { toLspDiagnostic, toLspEdit, toSpan, touches } from './convert';
import { target, type ServerContext } from './context';

export const FIX_ALL_KIND = `${CodeActionKind.SourceFixAll}.art`;
export const CODE_ACTION_KINDS = [CodeActionKind.QuickFix, FIX_ALL_KIND];

const wanted = (only: string[] | undefined, kind: string) => !only || only.some(o => kind === o || kind.startsWith(`${o}.`));

export function codeActions(ctx: ServerContext, params: CodeActionParams): CodeAction[] | null {
  const t = target(ctx, params.textDocument.uri);
  if (!t) return null;
  const { document, analysis } = t;
  const only = params.context.only;
  const uri = document.uri;
  const edit = (edits: TextEdit[]) => ({ changes: { [uri]: edits.map((e): LspTextEdit => toLspEdit(document, e)) } });
  const actions: CodeAction[] = [];

  if (wanted(only, CodeActionKind.QuickFix)) {
    const range = toSpan(document, params.range);
    for (const d of analysis.diagnostics) {
      if (!d.fixes?.length || !touches(d.span, range)) continue;
      const lsp = toLspDiagnostic(document, d);
      for (const fix of d.fixes) {
        actions.push({
          title: fix.title,
          kind: CodeActionKind.QuickFix,
          diagnostics: [lsp],
          isPreferred: fix.preferred === true,
          edit: edit(fix.edits),
        });
      }
    }
  }
  if (only && wanted(only, FIX_ALL_KIND) && only.some(o => o !== CodeActionKind.QuickFix)) {
    const edits = preferredEdits(analysis.diagnostics);
    if (edits.length) actions.push({ title: 'Fix all auto-fixable ART problems', kind: FIX_ALL_KIND, edit: edit(edits) });
  }
  return actions;
}

/** The edits of every preferred fix, skipping a fix that overlaps one already taken (edits must not overlap). */
export function preferredEdits(diagnostics: readonly Diagnostic[]): TextEdit[] {
  const taken: Span[] = [];
  const out: TextEdit[] = [];
  const overlaps = (s: Span) =>
    taken.some(o => (s.start < o.end && o.start < s.end) || (s.start === s.end && s.start === o.start) || (o.start === o.end && o.start === s.start));
  for (const d of diagnostics) {
    const fix = d.fixes?.find(f => f.preferred);
    if (!fix || fix.edits.some(e => overlaps(e.span))) continue;
    for (const e of fix.edits) {
      taken.push(e.span);
      out.push(e);
    }
  }
  return out;
}
