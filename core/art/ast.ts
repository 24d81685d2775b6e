// The syntax tree of an `.art` task library. Every part keeps its exact span (document offsets) because the
// language server (ranges, hovers, fixes) and the runner (where a tool call sits) need them.
import type { Span } from '../common/text';

export interface Marked {
  /** The keyword with its colon: `Input:`, `Q3:`, `#3:`, `Ans：`. */
  marker: Span;
  /** The value, trimmed of the space after the colon and of trailing blank lines. May span several lines. */
  text: string;
  textSpan: Span;
  /** Marker through the end of the value. */
  span: Span;
}

/** `text` is the task's instruction, after the `(Task name)`. */
export interface Description extends Marked {
  /** `Aqua-rat` for `Description: (Aqua-rat) Solve ...`; null when there is no parenthesised task name. */
  taskName: string | null;
  taskNameSpan: Span | null;
}

export interface Answer extends Marked {
  number: number;
  numberSpan: Span;
  /** `#2` written without its colon (the reference library has such lines); the text is still read. */
  missingColon: boolean;
}

export interface Step {
  number: number;
  numberSpan: Span;
  /** The `Qk:` marker; `span` covers the query through its instruction (not the answer). */
  marker: Span;
  /** The step name inside the brackets, as written (`generate python code`); null when there is none. */
  name: string | null;
  /** Span of the name inside the brackets (empty for `[]`); null when there are no brackets. */
  nameSpan: Span | null;
  /** Span of the brackets themselves, `[` through `]` (or end of line when unclosed). */
  bracketSpan: Span | null;
  unclosedBracket: boolean;
  /** Instruction text after the name, possibly several lines. */
  instruction: string;
  instructionSpan: Span;
  span: Span;
  isEoq: boolean;
  answer: Answer | null;
}

export interface Reference {
  /** k in `#k`. */
  number: number;
  span: Span;
}

export interface Program {
  /** From the first line of the program (after a separator or the preamble) to the end of its last part. */
  span: Span;
  description: Description | null;
  input: Marked | null;
  steps: Step[];
  /** `#k:` lines with no query before them (kept so checks and tools can see them). */
  strayAnswers: Answer[];
  ans: Marked | null;
  /** Text inside the program that belongs to no part (e.g. lines before `Input:` that are not a description). */
  strayText: Span[];
  /** A `%s` prompt template ending in a bare `Qk:` (the slot where a new task goes). */
  template: boolean;
  /** `#k` mentions inside instructions, answers and `Ans:`. */
  references: Reference[];
}

export interface ArtDocument {
  text: string;
  /** Prose before the first program, trimmed; null when there is none. */
  preamble: { text: string; span: Span } | null;
  programs: Program[];
  /** Separator lines (`----`, `---`, `——`). */
  separators: Span[];
}

/** Canonical form of a step name: lower case, runs of white space folded, trimmed. */
export function normalizeName(name: string): string {
  return name.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** `[EOQ]`, the end of the queries (any case, spaces folded): never a tool and never a sub-step. */
export function isEoqName(name: string): boolean {
  return name.length < 16 && normalizeName(name) === 'eoq';
}

/** Every answer of a program (those of its steps and stray ones) in document order. */
export function answersOf(program: Program): Answer[] {
  const out: Answer[] = [];
  for (const s of program.steps) if (s.answer) out.push(s.answer);
  out.push(...program.strayAnswers);
  return out.sort((a, b) => a.span.start - b.span.start);
}

/** The answer `#k` at `offset` refers to: the last answer k that starts before it in the same program. */
export function answerBefore(program: Program, k: number, offset: number): Answer | null {
  let found: Answer | null = null;
  for (const s of program.steps)
    if (s.answer && s.answer.number === k && s.answer.span.start < offset && (!found || s.answer.span.start > found.span.start)) found = s.answer;
  for (const a of program.strayAnswers) if (a.number === k && a.span.start < offset && (!found || a.span.start > found.span.start)) found = a;
  return found;
}

/** The task name shown for a program: its `(Task name)`, else the start of its input. */
export function programTitle(p: Program, index: number): string {
  if (p.description?.taskName) return p.description.taskName;
  if (p.template) return 'Prompt template';
  const input = p.input?.text.split(/\r?\n/)[0]?.trim();
  if (input) return input.length > 48 ? `${input.slice(0, 47)}…` : input;
  return `Program ${index + 1}`;
}
