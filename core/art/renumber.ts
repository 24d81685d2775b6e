// The "renumber the program" fix: queries become 1, 2, 3, ... in order, each answer takes its query's new number,
// and every `#k` reference follows the answer it meant (the latest answer numbered k before the reference).
import type { Fix, TextEdit } from '../common/diagnostics';
import type { Program } from './ast';

export function renumberFix(p: Program): Fix {
  const edits: TextEdit[] = [];
  // (answer position, old number, new number) in document order: a reference means the latest answer before it.
  const renamed: { at: number; from: number; to: number }[] = [];
  p.steps.forEach((s, i) => {
    const to = i + 1;
    if (s.answer) renamed.push({ at: s.answer.marker.start, from: s.answer.number, to });
    if (s.number !== to) edits.push({ span: s.numberSpan, newText: String(to) });
    if (s.answer && s.answer.number !== to) edits.push({ span: s.answer.numberSpan, newText: String(to) });
  });
  for (const r of p.references) {
    let to: number | null = null;
    for (const e of renamed) if (e.at < r.span.start && e.from === r.number) to = e.to;
    if (to !== null && to !== r.number) edits.push({ span: { start: r.span.start + 1, end: r.span.end }, newText: String(to) });
  }
  return { title: 'Renumber the steps of this program', edits, preferred: true };
}
