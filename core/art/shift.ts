// Moving parsed programs and their diagnostics to a new offset, in place: the incremental path reuses them after an
// edit before them changed the text's length. Allocation-free: copying every later program (tens of thousands of
// objects in a large library) was most of a re-check's time.
import type { Diagnostic } from '../common/diagnostics';
import type { Span } from '../common/text';
import type { Answer, Marked, Program, Step } from './ast';

function move(s: Span, by: number): void {
  s.start += by;
  s.end += by;
}

function moveMarked(m: Marked, by: number): void {
  move(m.marker, by);
  move(m.textSpan, by);
  move(m.span, by);
}

function moveAnswer(a: Answer, by: number): void {
  moveMarked(a, by);
  move(a.numberSpan, by);
}

function moveStep(s: Step, by: number): void {
  move(s.numberSpan, by);
  move(s.marker, by);
  if (s.nameSpan) move(s.nameSpan, by);
  if (s.bracketSpan) move(s.bracketSpan, by);
  move(s.instructionSpan, by);
  move(s.span, by);
  if (s.answer) moveAnswer(s.answer, by);
}

/** Every span object of a parsed program is its own (parse.ts never shares one between two fields). */
export function moveProgram(p: Program, by: number): void {
  move(p.span, by);
  if (p.description) {
    moveMarked(p.description, by);
    if (p.description.taskNameSpan) move(p.description.taskNameSpan, by);
  }
  if (p.input) moveMarked(p.input, by);
  for (const s of p.steps) moveStep(s, by);
  for (const a of p.strayAnswers) moveAnswer(a, by);
  if (p.ans) moveMarked(p.ans, by);
  for (const s of p.strayText) move(s, by);
  for (const r of p.references) move(r.span, by);
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
