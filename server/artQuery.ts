// Questions the features ask of an `.art` syntax tree: what is at this offset, which answer does `#k` mean.
import type { Answer, ArtDocument, Program, Reference, Step } from '../core/art';
import { contains } from './convert';
import { answerBefore, answersOf, isEoqName as isEoqNameCore } from '../core/art/ast';

export { answerBefore, answersOf };

/** Index of the last program starting at or before `offset` (-1 when none): the program being written there. */
export function programIndexBefore(doc: ArtDocument, offset: number): number {
  const ps = doc.programs;
  let lo = 0;
  let hi = ps.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (ps[mid].span.start <= offset) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** The program whose span holds `offset`. */
export function programAt(doc: ArtDocument, offset: number): { program: Program; index: number } | null {
  const index = programIndexBefore(doc, offset);
  if (index < 0) return null;
  const program = doc.programs[index];
  return contains(program.span, offset) ? { program, index } : null;
}

/** The step an answer belongs to (null for a stray answer). */
export function stepOfAnswer(program: Program, answer: Answer): Step | null {
  return program.steps.find(s => s.answer === answer) ?? null;
}

export function referenceAt(program: Program, offset: number): Reference | null {
  return program.references.find(r => contains(r.span, offset)) ?? null;
}

export function stepNameAt(program: Program, offset: number): Step | null {
  return program.steps.find(s => s.bracketSpan && s.name !== null && contains(s.bracketSpan, offset)) ?? null;
}

/** An answer whose `#k:` marker holds `offset`. */
export function answerMarkerAt(program: Program, offset: number): Answer | null {
  return answersOf(program).find(a => contains(a.marker, offset)) ?? null;
}

export function stepMarkerAt(program: Program, offset: number): Step | null {
  return program.steps.find(s => contains(s.marker, offset)) ?? null;
}

/** References in the program that resolve to `answer`. */
export function referencesTo(program: Program, answer: Answer): Reference[] {
  return program.references.filter(r => r.number === answer.number && answerBefore(program, r.number, r.span.start) === answer);
}

/** `[EOQ]`, compared as names are (case-insensitive, spaces folded). */
/** Core's isEoqName for a name that may be absent. */
export const isEoqName = (name: string | null): boolean => name !== null && isEoqNameCore(name);

/** First line of a text, shortened for a detail column. */
export function firstLine(text: string, max = 60): string {
  const line = text.split(/\r?\n/, 1)[0]?.trim() ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** A markdown code block that survives backticks inside. */
export function codeBlock(text: string, lang = '', max = 1500): string {
  const body = text.length > max ? `${text.slice(0, max)}\n…` : text;
  const fence = '`'.repeat(Math.max(3, ...[...body.matchAll(/`+/g)].map(m => m[0].length + 1)));
  return `${fence}${lang}\n${body}\n${fence}`;
}
