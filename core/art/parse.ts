// Parse an `.art` task library: split.ts finds the programs; for each program the line cursor walks its lines,
// head.peggy reads the head of every line that starts a part, and the text up to the next head is that part's
// value. Never throws.
import type { Span } from '../common/text';
import type { ArtDocument, Program } from './ast';
import { Answer, Description, Marked, Place, Reference, Source, Step, isEoqName } from './ast';
import type { RawHead } from './grammarTypes';
import { parse as parseHead } from './head.parser';
import { LineCursor, LineKind, indexWithin, isDescriptionWord, isHead } from './lines';
import { splitPrograms } from './split';

export function parseArt(text: string): ArtDocument {
  const split = splitPrograms(text);
  const source = new Source(text);
  return {
    text,
    preamble: split.preamble ? { text: text.slice(split.preamble.start, split.preamble.end).trim(), span: split.preamble } : null,
    programs: split.programs.map(s => parseProgram(source, s)),
    separators: split.separators,
  };
}

/** A part being read: its head and the end of its last non-blank line so far. */
interface Pending {
  /** The head parsed at offset 0 (null: stray text); `base` is the offset of its line. */
  head: RawHead | null;
  base: number;
  valueStart: number;
  valueEnd: number;
}

/** Parse the program that occupies `span` of the source's text (spans in the result are offsets into it). */
export function parseProgram(source: Source, span: Span): Program {
  const text = source.text;
  const b = new ProgramBuilder(source, span);
  const line = new LineCursor(text, span.start, span.end);
  let pending: Pending | null = null;
  while (line.advance()) {
    if (isHead(line.kind)) {
      const head = readHead(text, line.start, line.headEnd);
      if (head) {
        if (pending) b.add(pending);
        pending = { head, base: line.start, valueStart: line.headEnd, valueEnd: line.end };
        continue;
      }
    }
    if (line.kind === LineKind.Blank) continue;
    if (pending) pending.valueEnd = line.end;
    else pending = { head: null, base: line.start, valueStart: line.start, valueEnd: line.end };
  }
  if (pending) b.add(pending);
  return b.finish();
}

// Heads are parsed at offset 0 and cached; the builder adds each line's offset.
const grammarOptions = { offset: 0, isDescriptionWord };

// Heads repeat (`#1:`, `Input:`, `Q2: [search]`): each distinct head is parsed by the grammar once, at offset 0,
// and reused. peggy's per-call set-up costs microseconds, more than reading a whole line here.
const headCache = new Map<string, RawHead | null>();
const HEAD_CACHE_LIMIT = 20_000;

/**
 * The head of the line at `start` (up to the classifier's `headEnd`), with spans relative to `start` (add `start`
 * for document offsets). The one reading of a head's syntax: the runner's streaming scanner uses it too.
 */
export function readHead(text: string, start: number, end: number): RawHead | null {
  const source = text.slice(start, end);
  let head = headCache.get(source);
  if (head === undefined) {
    try {
      head = parseHead(source, grammarOptions);
    } catch {
      // The classifier and the grammar disagree about this line; keep it as text rather than lose it.
      head = null;
    }
    if (headCache.size >= HEAD_CACHE_LIMIT) headCache.clear();
    headCache.set(source, head);
  }
  return head;
}

const at = (s: Span, by: number): Span => ({ start: s.start + by, end: s.end + by });

const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;

/** The span of the value's text without surrounding blank lines (empty when there is none); the indentation of a first code line is kept. */
function valueOf(text: string, from: number, to: number): Span {
  let s = from;
  while (s < to && (text.charCodeAt(s) === 32 || text.charCodeAt(s) === 9)) s++;
  if (s < to && (text.charCodeAt(s) === 10 || text.charCodeAt(s) === 13)) {
    // The value starts on a later line: skip blank lines, keep the indentation of the first line with text.
    let lineStart = s;
    for (let i = s; i < to; i++) {
      const c = text.charCodeAt(i);
      if (c === 10 || c === 13) lineStart = i + 1;
      else if (c !== 32 && c !== 9) break;
    }
    s = lineStart;
  }
  let e = to;
  while (e > s && isSpace(text.charCodeAt(e - 1))) e--;
  if (e <= s) {
    const at = Math.min(s, to);
    return { start: at, end: at };
  }
  return { start: s, end: e };
}

/** The lists of the program being parsed (parsing is synchronous: one program at a time). */
const scratch = { steps: [] as Step[], strayAnswers: [] as Answer[], strayText: [] as Span[], references: [] as Reference[] };
const NONE: never[] = Object.freeze([]) as unknown as never[];

/** A copy of `list` of its exact length (the shared empty array when it is empty), and `list` emptied. */
function exact<T>(list: T[]): T[] {
  if (list.length === 0) return NONE;
  const out = list.slice();
  list.length = 0;
  return out;
}

const REFERENCE = /(?<![\w&#])#(\d+)(?!\d)/g;

class ProgramBuilder {
  readonly program: Program;
  private lastStep: Step | null = null;
  private readonly text: string;
  private readonly place: Place;

  constructor(source: Source, span: Span) {
    this.text = source.text;
    for (const list of Object.values(scratch)) list.length = 0; // a parse cut short (it never throws) left nothing behind
    // The lists are filled in scratch arrays and copied at their exact length when the program is done (see finish).
    this.place = new Place(source, span.start);
    this.program = {
      place: this.place,
      span,
      description: null,
      input: null,
      steps: scratch.steps,
      strayAnswers: scratch.strayAnswers,
      ans: null,
      strayText: scratch.strayText,
      template: false,
      references: scratch.references,
    };
  }

  private marked(marker: Span, p: Pending): Marked {
    const v = valueOf(this.text, p.valueStart, p.valueEnd);
    return new Marked(this.place, marker, v);
  }

  private references(within: Span): void {
    const text = this.text;
    if (within.end <= within.start) return;
    if (indexWithin(text, '#', within.start, within.end) < 0) return;
    // The regex runs on the value alone (an O(1) slice), so a failed search never scans the rest of the document.
    const value = text.slice(within.start, within.end);
    REFERENCE.lastIndex = 0;
    for (let m = REFERENCE.exec(value); m; m = REFERENCE.exec(value)) {
      const start = within.start + m.index;
      this.program.references.push(new Reference(this.place, parseInt(m[1], 10), start, start + m[0].length));
    }
  }

  add(p: Pending): void {
    const program = this.program;
    const head = p.head;
    const base = p.base;
    if (!head) {
      const v = valueOf(this.text, p.valueStart, p.valueEnd);
      if (v.end > v.start) program.strayText.push(v);
      return;
    }
    const marker = at(head.marker, base);
    switch (head.kind) {
      case 'description':
        if (program.description) program.strayText.push({ start: marker.start, end: p.valueEnd });
        else {
          const v = valueOf(this.text, p.valueStart, p.valueEnd);
          const t = head.taskName;
          program.description = new Description(
            this.place,
            marker,
            v,
            t ? this.text.slice(t.name.start + base, t.name.end + base).trim() : null,
            t ? at(t.name, base) : null,
          );
        }
        return;
      case 'input':
        if (program.input) program.strayText.push({ start: marker.start, end: p.valueEnd });
        else program.input = this.marked(marker, p);
        return;
      case 'ans':
        if (program.ans) program.strayText.push({ start: marker.start, end: p.valueEnd });
        else {
          program.ans = this.marked(marker, p);
          this.references(program.ans.textSpan);
        }
        return;
      case 'query': {
        const instruction = valueOf(this.text, p.valueStart, p.valueEnd);
        const br = head.bracket;
        const nameSpan = br ? at(br.name, base) : null;
        const bracketSpan = br ? at(br.span, base) : null;
        const name = nameSpan ? this.text.slice(nameSpan.start, nameSpan.end) : null;
        const end = Math.max(marker.end, bracketSpan ? bracketSpan.end : 0, instruction.end > instruction.start ? instruction.end : 0);
        const step = new Step(this.place, {
          number: head.number.value,
          numberSpan: at(head.number.span, base),
          marker,
          name,
          nameSpan,
          bracketSpan,
          unclosedBracket: br ? !br.closed : false,
          instructionSpan: instruction,
          end,
          isEoq: name !== null && br !== null && br.closed && isEoqName(name),
        });
        this.references(instruction);
        program.steps.push(step);
        this.lastStep = step;
        return;
      }
      case 'answer': {
        const v = valueOf(this.text, p.valueStart, p.valueEnd);
        const answer = new Answer(this.place, marker, v, head.number.value, at(head.number.span, base), head.missingColon);
        this.references(v);
        const last = this.lastStep;
        if (last && !last.answer && !last.isEoq) last.answer = answer;
        else program.strayAnswers.push(answer);
        return;
      }
    }
  }

  finish(): Program {
    const p = this.program;
    p.template = isTemplate(p);
    // An array grown by push keeps room for 17 entries or more; a library of 60,000 programs has four lists each,
    // most of them empty (one shared frozen array) or short.
    p.steps = exact(p.steps);
    p.strayAnswers = exact(p.strayAnswers);
    p.strayText = exact(p.strayText);
    p.references = exact(p.references);
    return p;
  }
}

/** `Description: %s` / `Input: %s` / `Q1:`: the slot where a new task is filled in. */
function isTemplate(p: Program): boolean {
  if (p.input?.text !== '%s' && p.description?.text !== '%s') return false;
  const last = p.steps[p.steps.length - 1];
  return !!last && last.nameSpan === null && last.instruction === '' && last.answer === null && p.ans === null;
}
