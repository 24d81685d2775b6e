// Moving parsed programs and their diagnostics to a new offset (the incremental path reuses them after an edit
// before them changed the text's length). Explicit object literals keep one shape per type; spreads and a
// generic deep walk made this the slowest part of a re-check.
import type { Diagnostic } from '../common/diagnostics';
import type { Span } from '../common/text';
import type { Answer, Description, Marked, Program, Step } from './ast';

const sp = (s: Span, by: number): Span => ({ start: s.start + by, end: s.end + by });

function marked(m: Marked, by: number): Marked {
  return { marker: sp(m.marker, by), text: m.text, textSpan: sp(m.textSpan, by), span: sp(m.span, by) };
}

function description(d: Description, by: number): Description {
  return {
    marker: sp(d.marker, by),
    text: d.text,
    textSpan: sp(d.textSpan, by),
    span: sp(d.span, by),
    taskName: d.taskName,
    taskNameSpan: d.taskNameSpan && sp(d.taskNameSpan, by),
  };
}

function answer(a: Answer, by: number): Answer {
  return {
    marker: sp(a.marker, by),
    text: a.text,
    textSpan: sp(a.textSpan, by),
    span: sp(a.span, by),
    number: a.number,
    numberSpan: sp(a.numberSpan, by),
    missingColon: a.missingColon,
  };
}

function step(s: Step, by: number): Step {
  return {
    number: s.number,
    numberSpan: sp(s.numberSpan, by),
    marker: sp(s.marker, by),
    name: s.name,
    nameSpan: s.nameSpan && sp(s.nameSpan, by),
    bracketSpan: s.bracketSpan && sp(s.bracketSpan, by),
    unclosedBracket: s.unclosedBracket,
    instruction: s.instruction,
    instructionSpan: sp(s.instructionSpan, by),
    span: sp(s.span, by),
    isEoq: s.isEoq,
    answer: s.answer && answer(s.answer, by),
  };
}

export function shiftProgram(p: Program, by: number): Program {
  return {
    span: sp(p.span, by),
    description: p.description && description(p.description, by),
    input: p.input && marked(p.input, by),
    steps: p.steps.map((s) => step(s, by)),
    strayAnswers: p.strayAnswers.map((a) => answer(a, by)),
    ans: p.ans && marked(p.ans, by),
    strayText: p.strayText.map((s) => sp(s, by)),
    template: p.template,
    references: p.references.map((r) => ({ number: r.number, span: sp(r.span, by) })),
  };
}

export function shiftDiagnostic(d: Diagnostic, by: number): Diagnostic {
  const out: Diagnostic = { ...d, span: sp(d.span, by) };
  if (d.fixes) out.fixes = d.fixes.map((f) => ({ ...f, edits: f.edits.map((e) => ({ span: sp(e.span, by), newText: e.newText })) }));
  if (d.related) out.related = d.related.map((r) => ({ span: sp(r.span, by), message: r.message }));
  return out;
}
