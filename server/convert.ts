// Core speaks offsets; LSP speaks line/character. The TextDocument keeps its line table up to date incrementally,
// so converting through it costs no pass over a large file.
import { DiagnosticSeverity, type Diagnostic as LspDiagnostic, type Range, type TextEdit as LspTextEdit } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Diagnostic, Severity, TextEdit } from '../core/common/diagnostics';
import type { Span } from '../core/common/text';

export const SOURCE = 'art';

export function toRange(document: TextDocument, s: Span): Range {
  return { start: document.positionAt(s.start), end: document.positionAt(s.end) };
}

export function toSpan(document: TextDocument, r: Range): Span {
  return { start: document.offsetAt(r.start), end: document.offsetAt(r.end) };
}

const SEVERITY: Record<Severity, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  information: DiagnosticSeverity.Information,
  hint: DiagnosticSeverity.Hint,
};

export function toLspDiagnostic(document: TextDocument, d: Diagnostic): LspDiagnostic {
  const out: LspDiagnostic = {
    range: toRange(document, d.span),
    severity: SEVERITY[d.severity] ?? DiagnosticSeverity.Error,
    code: d.code,
    source: SOURCE,
    message: d.message,
  };
  if (d.related?.length) {
    out.relatedInformation = d.related.map(r => ({ location: { uri: document.uri, range: toRange(document, r.span) }, message: r.message }));
  }
  return out;
}

export function toLspEdit(document: TextDocument, e: TextEdit): LspTextEdit {
  return { range: toRange(document, e.span), newText: e.newText };
}

/** True when the spans overlap or touch (an empty span at a boundary counts: a cursor at the end of a word). */
export function touches(a: Span, b: Span): boolean {
  return a.start <= b.end && b.start <= a.end;
}

export function contains(s: Span, offset: number): boolean {
  return s.start <= offset && offset <= s.end;
}
