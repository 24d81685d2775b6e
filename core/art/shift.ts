// Moving parsed programs and their diagnostics to a new offset, in place: the incremental path reuses them after an
// edit before them changed the text's length. Allocation-free, and a few numbers per program: its nodes' offsets are
// relative to its Place (copying every later program, then moving every node, was most of a re-check's time).
import type { Diagnostic } from '../common/diagnostics';
import type { Span } from '../common/text';
import type { Program } from './ast';

function move(s: Span, by: number): void {
  s.start += by;
  s.end += by;
}

/** Every offset of a parsed program: its nodes' by their Place, then its own spans. */
export function moveProgram(p: Program, by: number): void {
  p.place.base += by;
  move(p.span, by);
  for (const s of p.strayText) move(s, by);
}

/** A diagnostic whose spans are its own objects (checks point at the tree's spans; these must move separately). */
export function ownSpans(d: Diagnostic): Diagnostic {
  const out: Diagnostic = { ...d, span: { start: d.span.start, end: d.span.end } };
  if (d.fixes)
    out.fixes = d.fixes.map(f => ({ ...f, edits: f.edits.map(e => ({ span: { start: e.span.start, end: e.span.end }, newText: e.newText })) }));
  if (d.related) out.related = d.related.map(r => ({ span: { start: r.span.start, end: r.span.end }, message: r.message }));
  return out;
}

/** Moves a diagnostic made by `ownSpans`. */
export function moveDiagnostic(d: Diagnostic, by: number): void {
  move(d.span, by);
  if (d.fixes) for (const f of d.fixes) for (const e of f.edits) move(e.span, by);
  if (d.related) for (const r of d.related) move(r.span, by);
}
