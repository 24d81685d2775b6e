// The syntax tree of an `.art` task library. Every part keeps its exact span (document offsets) because the
// language server (ranges, hovers, fixes) and the runner (where a tool call sits) need them.
import type { Span } from '../common/text';

// The nodes keep their offsets as numbers and make a span object only when one is read: a large library has
// tens of thousands of programs with about forty spans each, and a span object (40 bytes, plus the pointer to it)
// per offset pair was half the tree's memory (issue 13). A span read from a node is a fresh copy: writing to it
// changes nothing (the types say so with Readonly). Offsets are kept relative to the program's start (Place).
//
// The same for the values' text: a node reads `text` and `instruction` from its Source when asked, rather than
// holding a string that points into the document (a slice keeps the whole document alive: after an edit, every
// program the edit did not touch kept the previous text, 2 bytes a character, in memory). Names, few and short,
// are held as strings of their own (see `ownString`).

/**
 * The text a tree's offsets point into. parseArt makes one per parse; the incremental parser keeps one per document
 * and points it at each new text, which is why a result is valid only until the next update.
 */
export class Source {
  constructor(public text: string) {}
  toJSON(): undefined {
    return undefined;
  }
}

const ownStrings = new Map<string, string>();
const OWN_STRINGS_LIMIT = 10_000;

/**
 * `s` as a string that does not point into the text it was cut from (V8 makes a slice of 13 characters or more
 * a view of its parent), shared between equal values: step names and task names repeat across programs.
 */
export function ownString(s: string): string {
  let own = ownStrings.get(s);
  if (own === undefined) {
    own = JSON.parse(JSON.stringify(s)) as string; // a fresh string with the same characters
    if (ownStrings.size >= OWN_STRINGS_LIMIT) ownStrings.clear();
    ownStrings.set(own, own);
  }
  return own;
}

const NO = -1;
const spanOf = (start: number, end: number): Readonly<Span> => ({ start, end });

/**
 * Where a program's nodes are: the text they read their values from and the program's start. Node offsets are
 * relative to `base`, so the incremental parser moves a whole program (tens of nodes) after an edit before it by
 * changing `base` once (moveProgram), not every node.
 */
export class Place {
  constructor(
    readonly source: Source,
    public base: number,
  ) {}
  /** Left out of JSON (a program's JSON would otherwise hold the whole document). */
  toJSON(): undefined {
    return undefined;
  }
}

/** A part written `Marker: value`: `Input:`, `Ans:` (and, extended below, descriptions and answers). */
export class Marked {
  protected readonly at: Place;
  protected m0: number;
  protected m1: number;
  protected t0: number;
  protected t1: number;
  constructor(at: Place, marker: Span, textSpan: Span) {
    this.at = at;
    this.m0 = marker.start - at.base;
    this.m1 = marker.end - at.base;
    this.t0 = textSpan.start - at.base;
    this.t1 = textSpan.end - at.base;
  }
  /** The value, trimmed of the space after the colon and of trailing blank lines. May span several lines. */
  get text(): string {
    const b = this.at.base;
    return this.at.source.text.slice(b + this.t0, b + this.t1);
  }
  /** The keyword with its colon: `Input:`, `Q3:`, `#3:`, `Ans：`. */
  get marker(): Readonly<Span> {
    return spanOf(this.at.base + this.m0, this.at.base + this.m1);
  }
  get textSpan(): Readonly<Span> {
    return spanOf(this.at.base + this.t0, this.at.base + this.t1);
  }
  /** Marker through the end of the value. */
  get span(): Readonly<Span> {
    return spanOf(this.at.base + this.m0, this.at.base + Math.max(this.m1, this.t1));
  }
  /** JSON shows the node as its readers see it (its values and spans), not its offsets and source. */
  toJSON(): object {
    return { marker: this.marker, text: this.text, textSpan: this.textSpan, span: this.span };
  }
}

/** `text` is the task's instruction, after the `(Task name)`. */
export class Description extends Marked {
  /** `Aqua-rat` for `Description: (Aqua-rat) Solve ...`; null when there is no parenthesised task name. */
  readonly taskName: string | null;
  private n0: number;
  private n1: number;
  constructor(at: Place, marker: Span, textSpan: Span, taskName: string | null, taskNameSpan: Span | null) {
    super(at, marker, textSpan);
    this.taskName = taskName === null ? null : ownString(taskName);
    this.n0 = taskNameSpan ? taskNameSpan.start - at.base : NO;
    this.n1 = taskNameSpan ? taskNameSpan.end - at.base : NO;
  }
  get taskNameSpan(): Readonly<Span> | null {
    return this.n0 === NO ? null : spanOf(this.at.base + this.n0, this.at.base + this.n1);
  }
  override toJSON(): object {
    return { ...super.toJSON(), taskName: this.taskName, taskNameSpan: this.taskNameSpan };
  }
}

export class Answer extends Marked {
  readonly number: number;
  /** `#2` written without its colon (the reference library has such lines); the text is still read. */
  readonly missingColon: boolean;
  private k0: number;
  private k1: number;
  constructor(at: Place, marker: Span, textSpan: Span, number: number, numberSpan: Span, missingColon: boolean) {
    super(at, marker, textSpan);
    this.number = number;
    this.missingColon = missingColon;
    this.k0 = numberSpan.start - at.base;
    this.k1 = numberSpan.end - at.base;
  }
  get numberSpan(): Readonly<Span> {
    return spanOf(this.at.base + this.k0, this.at.base + this.k1);
  }
  override toJSON(): object {
    return { ...super.toJSON(), number: this.number, numberSpan: this.numberSpan, missingColon: this.missingColon };
  }
}

export interface StepParts {
  number: number;
  numberSpan: Span;
  marker: Span;
  name: string | null;
  nameSpan: Span | null;
  bracketSpan: Span | null;
  unclosedBracket: boolean;
  instructionSpan: Span;
  /** End of the query (marker, brackets and instruction). */
  end: number;
  isEoq: boolean;
}

export class Step {
  readonly number: number;
  /** The step name inside the brackets, as written (`generate python code`); null when there is none. */
  readonly name: string | null;
  readonly unclosedBracket: boolean;
  readonly isEoq: boolean;
  answer: Answer | null = null;
  private readonly at: Place;
  private k0: number;
  private k1: number;
  private m0: number;
  private m1: number;
  private n0: number;
  private n1: number;
  private b0: number;
  private b1: number;
  private i0: number;
  private i1: number;
  private e: number;
  constructor(at: Place, p: StepParts) {
    const b = at.base;
    this.at = at;
    this.number = p.number;
    this.name = p.name === null ? null : ownString(p.name);
    this.unclosedBracket = p.unclosedBracket;
    this.isEoq = p.isEoq;
    this.k0 = p.numberSpan.start - b;
    this.k1 = p.numberSpan.end - b;
    this.m0 = p.marker.start - b;
    this.m1 = p.marker.end - b;
    this.n0 = p.nameSpan ? p.nameSpan.start - b : NO;
    this.n1 = p.nameSpan ? p.nameSpan.end - b : NO;
    this.b0 = p.bracketSpan ? p.bracketSpan.start - b : NO;
    this.b1 = p.bracketSpan ? p.bracketSpan.end - b : NO;
    this.i0 = p.instructionSpan.start - b;
    this.i1 = p.instructionSpan.end - b;
    this.e = p.end - b;
  }
  get numberSpan(): Readonly<Span> {
    return spanOf(this.at.base + this.k0, this.at.base + this.k1);
  }
  /** The `Qk:` marker. */
  get marker(): Readonly<Span> {
    return spanOf(this.at.base + this.m0, this.at.base + this.m1);
  }
  /** Span of the name inside the brackets (empty for `[]`); null when there are no brackets. */
  get nameSpan(): Readonly<Span> | null {
    return this.n0 === NO ? null : spanOf(this.at.base + this.n0, this.at.base + this.n1);
  }
  /** Span of the brackets themselves, `[` through `]` (or end of line when unclosed). */
  get bracketSpan(): Readonly<Span> | null {
    return this.b0 === NO ? null : spanOf(this.at.base + this.b0, this.at.base + this.b1);
  }
  /** Instruction text after the name, possibly several lines. */
  get instruction(): string {
    const b = this.at.base;
    return this.at.source.text.slice(b + this.i0, b + this.i1);
  }
  get instructionSpan(): Readonly<Span> {
    return spanOf(this.at.base + this.i0, this.at.base + this.i1);
  }
  /** The query through its instruction (not the answer). */
  get span(): Readonly<Span> {
    return spanOf(this.at.base + this.m0, this.at.base + this.e);
  }
  toJSON(): object {
    const { number, numberSpan, marker, name, nameSpan, bracketSpan, unclosedBracket, instruction, instructionSpan, span, isEoq, answer } = this;
    return { number, numberSpan, marker, name, nameSpan, bracketSpan, unclosedBracket, instruction, instructionSpan, span, isEoq, answer };
  }
}

/** A `#k` mention inside an instruction, an answer or `Ans:`. */
export class Reference {
  /** k in `#k`. */
  readonly number: number;
  private readonly at: Place;
  private s: number;
  private e: number;
  constructor(at: Place, number: number, start: number, end: number) {
    this.at = at;
    this.number = number;
    this.s = start - at.base;
    this.e = end - at.base;
  }
  get span(): Readonly<Span> {
    return spanOf(this.at.base + this.s, this.at.base + this.e);
  }
  toJSON(): object {
    return { number: this.number, span: this.span };
  }
}

export interface Program {
  /** Where its nodes read their text and offsets from (moveProgram moves them all by moving this). */
  place: Place;
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

const normalized = new Map<string, string>();

/**
 * Canonical form of a step name: lower case, runs of white space folded, trimmed. Names repeat (a large library asks
 * for the same few hundred names hundreds of thousands of times), so each is computed once; keys and values are strings of
 * their own (ownString), never slices that would keep a document alive.
 */
export function normalizeName(name: string): string {
  let n = normalized.get(name);
  if (n === undefined) {
    n = ownString(name.trim().replace(/\s+/g, ' ').toLowerCase());
    if (normalized.size >= OWN_STRINGS_LIMIT) normalized.clear();
    normalized.set(ownString(name), n);
  }
  return n;
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

/**
 * The step the model writes from: a program's last `Qk:` with nothing after it (no `[name]`, no instruction, no
 * answer, no `Ans:` after it), the way a person asks the model to go on (a prompt template's slot is one too). The
 * checks leave it alone, and a run writes the program as given up to it, then the model writes from there.
 */
export function openStep(p: Program): Step | null {
  const last = p.steps.at(-1);
  if (!last || last.nameSpan !== null || last.answer || p.ans || last.instruction.trim() !== '') return null;
  if (p.strayAnswers.some(a => a.span.start > last.marker.start)) return null;
  return last;
}

/** The steps a program records (all but its open step, see openStep). */
export function recordedSteps(p: Program): Step[] {
  const open = openStep(p);
  return open ? p.steps.slice(0, -1) : p.steps;
}

/** The task name shown for a program: its `(Task name)`, else the start of its input. */
export function programTitle(p: Program, index: number): string {
  if (p.description?.taskName) return p.description.taskName;
  if (p.template) return 'Prompt template';
  const input = p.input?.text.split(/\r?\n/)[0]?.trim();
  if (input) return input.length > 48 ? `${input.slice(0, 47)}…` : input;
  return `Program ${index + 1}`;
}
