// Reads a program while the model is still writing it: which queries are complete, where each answer starts,
// and whether the program has ended. Lines are classified by the parser's own line classifier and heads read by
// its head grammar (core/art/lines.ts, head.peggy), so the runner and the editor agree on every boundary; what is
// the scanner's own is the unfinished last line (`#`, `#2`, `Q`), on which it must decide before the line is done.
//
// The scanner is incremental: complete lines are read once, and each new chunk costs the lines it completes plus
// the unfinished last line, not a pass over the whole text (a long generation would otherwise cost the square of
// its length). It reads only its window, the text from the start of the unfinished line on (kept as a string of its
// own): `scanMore(text, added)` is given what a chunk added and never reads the whole text, which the runner holds as
// a string grown chunk by chunk (V8 would copy all of it to read it). Answers are read from the text when asked
// for. Any other change to the text (the runner cuts it, or the user edits a tool's input) starts over.
import type { Span } from '../common/text';
import { isEoqName } from '../art/ast';
import { LineCursor, LineKind, mayBecomeAnswerHead, startsProgram } from '../art/lines';
import { readHead } from '../art/parse';

export interface ScannedStep {
  number: number;
  /** The step name inside `[...]`, or null without brackets. */
  name: string | null;
  instruction: string;
  /** From after `] ` to the end of the instruction (its last line, without the line break). */
  instructionSpan: Span;
  /** `Qk:` through the end of the instruction. */
  querySpan: Span;
  /** Offset of the line break before the answer marker (`\n#k:`); null while no answer line has started. */
  answerBreak: number | null;
  /** The answer's text so far (after `#k:`, trailing white space removed), null before its marker is written out. Read from the text when asked for. */
  readonly answer: string | null;
  answerSpan: Span | null;
  isEoq: boolean;
}

export interface ArtScan {
  steps: ScannedStep[];
  ans: { text: string; span: Span; lineComplete: boolean } | null;
  /** Offset of the line break before text that starts another program (a separator, `Description:`, ...). */
  endAt: number | null;
  /** What the text ends in: a query still being written, an answer, `Ans:`, or nothing yet. */
  last: 'none' | 'query' | 'answer' | 'ans';
}

/** The scan of complete lines, carried from one chunk to the next. */
interface State {
  steps: ScannedStep[];
  ans: ArtScan['ans'];
  endAt: number | null;
  last: ArtScan['last'];
  /** Whether the next line is the first one (the rest of the prompt's `Q1:` line). */
  first: boolean;
}

const emptyState = (): State => ({ steps: [], ans: null, endAt: null, last: 'none', first: true });

/** The text the steps of one reading are in (each later text of the reading extends it: the answers stay the same). */
interface Source {
  text: string;
}

type StepFields = Omit<ScannedStep, 'answer'>;

/** A step whose `answer` is read from `src` when asked for (an enumerable property, as a plain step has). */
function newStep(fields: StepFields, src: Source): ScannedStep {
  const step = fields as ScannedStep;
  Object.defineProperty(step, 'answer', {
    enumerable: true,
    configurable: true,
    get: () => (step.answerSpan ? src.text.slice(step.answerSpan.start, step.answerSpan.end).replace(/\s+$/, '') : null),
  });
  return step;
}

function copyStep(s: ScannedStep, src: Source): ScannedStep {
  const { number, name, instruction, instructionSpan, querySpan, answerBreak, answerSpan, isEoq } = s;
  return newStep({ number, name, instruction, instructionSpan, querySpan, answerBreak, answerSpan, isEoq }, src);
}

/**
 * What the last reading read: its window, the text from `base` on (a line start as `\n` ends lines: the start of the
 * line the last reading left unfinished), and where the lines read for good end.
 */
export interface ScanWindow {
  text: string;
  base: number;
  /** Where the lines read for good end (the unfinished line's start), in the whole text. */
  done: number;
}

/**
 * Scans a program as it grows. `lead` is the text just before the scanned text on its first line: `Q1:` in the
 * runner (the prompt ends in the new program's `Q1:` marker), `''` when the text starts with whole lines.
 */
export class ArtScanner {
  private source = '';
  /** Where the first line not yet read for good starts (the unfinished last line). */
  private done = 0;
  /**
   * The text from `restBase` on: the unfinished last line, from the start of its line as `\n` ends lines (earlier
   * than `done` only after a lone `\r`, which ends a line for the classifier but not for an inline trigger).
   */
  private rest = '';
  private restBase = 0;
  private state = emptyState();
  private src: Source = { text: '' };
  /** Lines classified so far, for tests of the per-chunk cost. */
  linesRead = 0;
  /** Characters of the text read so far (each reading's window), for tests of the per-chunk cost. */
  charsRead = 0;
  /** Counts the readings that started over (a text that does not extend the last one): each starts a new generation. */
  generation = 0;
  /** Where the last `\n` of the text is (-1: none). */
  lastNewline = -1;
  /** What the last reading read. */
  window: ScanWindow = { text: '', base: 0, done: 0 };

  constructor(private readonly lead = 'Q1:') {}

  /** Reads `text`: incrementally when it extends the text read last (compared), else afresh. */
  scan(text: string): ArtScan {
    if (text.length < this.done || !text.startsWith(this.source.slice(0, this.done))) this.reset(text);
    return this.read(text, text.slice(this.restBase));
  }

  /**
   * Reads `text`, which is the text read last followed by `added` (the caller knows it; nothing is compared): only
   * the unfinished last line and `added` are read.
   */
  scanMore(text: string, added: string): ArtScan {
    if (text.length !== this.source.length + added.length) return this.scan(text);
    return this.read(text, this.rest + added);
  }

  private reset(text: string): void {
    this.done = 0;
    this.rest = '';
    this.restBase = 0;
    this.state = emptyState();
    this.src = { text };
    this.generation++;
    this.lastNewline = -1;
  }

  /** Reads the text from `restBase` on (`local`); the lines from `done` on are new. */
  private read(text: string, local: string): ArtScan {
    this.source = text;
    this.src.text = text;
    const base = this.restBase;
    this.charsRead += local.length;
    const nl = local.lastIndexOf('\n');
    if (nl >= 0) this.lastNewline = base + nl;
    const st = this.state;
    if (st.endAt === null) {
      const cursor = new LineCursor(local, this.done - base);
      while (st.endAt === null && cursor.next < local.length && cursor.advance()) {
        // The unfinished last line (a `\r` at the very end may yet be followed by `\n`): read below, on a copy.
        if (cursor.next > local.length || (cursor.next === local.length && local.charCodeAt(local.length - 1) === 13)) break;
        this.linesRead++;
        this.line(st, local, base, cursor, true);
        this.done = base + cursor.next;
      }
    }
    this.window = { text: local, base, done: this.done };
    // After the end of the program nothing more is read: the window stays where it was. Else the next reading
    // starts at the unfinished line (no `\n` after the last one is in it).
    if (st.endAt === null) {
      this.restBase = Math.max(base, Math.min(this.done, this.lastNewline + 1));
      this.rest = local.slice(this.restBase - base);
    } else this.rest = '';
    if (st.endAt !== null || this.done >= text.length) return this.result(st);
    // The unfinished last line changes the scan only for this text: apply it to a copy of the last step.
    const tail: State = { ...st, steps: st.steps.slice() };
    const n = tail.steps.length;
    if (n) tail.steps[n - 1] = copyStep(tail.steps[n - 1], this.src);
    if (tail.ans) tail.ans = { ...tail.ans };
    const cursor = new LineCursor(local, this.done - base);
    cursor.advance();
    this.linesRead++;
    this.line(tail, local, base, cursor, false);
    return this.result(tail);
  }

  private result(st: State): ArtScan {
    return { steps: st.steps, ans: st.ans, endAt: st.endAt, last: st.last };
  }

  /**
   * Reads one line of `text` (the window, which starts at `base` in the whole text) into `st`; offsets kept are the
   * whole text's. `complete`: the line has its line break.
   */
  private line(st: State, text: string, base: number, line: LineCursor, complete: boolean): void {
    const cur = st.steps[st.steps.length - 1];
    if (st.first) {
      st.first = false;
      if (this.lead) {
        if (line.end === line.start && !complete) return; // nothing written after the prompt's `Q1:` yet
        this.query(st, text, base, line.start, line.end, this.lead);
        return;
      }
    }
    const kind = line.kind;
    if (st.last === 'ans') {
      // `Ans:` is one line; anything after it that is not blank belongs to what comes next.
      if (kind !== LineKind.Blank || complete) st.endAt = base + line.start - 1;
      return;
    }
    if (startsProgram(kind)) {
      st.endAt = base + line.start - 1;
      return;
    }
    if (kind === LineKind.Query) {
      this.query(st, text, base, line.start, line.end, '');
      return;
    }
    if (kind === LineKind.Ans) {
      const vs = skipSpaces(text, line.headEnd, line.end);
      st.ans = { text: text.slice(vs, line.end).trim(), span: { start: base + line.start, end: base + line.end }, lineComplete: complete };
      st.last = 'ans';
      return;
    }
    if (st.last === 'query' && cur && (kind === LineKind.Answer || (!complete && mayBecomeAnswerHead(text, line.start)))) {
      // The answer marker has started: the query is complete even if `#2:` is still arriving.
      cur.answerBreak = base + line.start - 1;
      const vs = kind === LineKind.Answer ? skipSpaces(text, line.headEnd, line.end) : line.end;
      cur.answerSpan = { start: base + vs, end: base + line.end };
      st.last = 'answer';
      return;
    }
    if (st.last === 'query' && cur) {
      // An instruction that continues on the next line.
      if (kind !== LineKind.Blank) {
        const more = text.slice(line.start, line.end);
        cur.instruction = (cur.instruction ? `${cur.instruction}\n` : '') + more;
        cur.instructionSpan = { start: cur.instructionSpan.start, end: base + line.end };
        cur.querySpan = { start: cur.querySpan.start, end: base + line.end };
      }
      return;
    }
    if (st.last === 'answer' && cur && cur.answerSpan) {
      // A multi-line answer (code, a traceback): `#1:` alone on its line starts the value on the next one. An answer
      // ends where the line before this one ends (every line since its marker extended it), so an empty answer is
      // followed here by that line's break alone.
      const a = cur.answerSpan;
      if (a.start === a.end) cur.answerSpan = { start: base + line.start, end: base + line.end };
      else cur.answerSpan = { start: a.start, end: base + line.end };
    }
  }

  /**
   * A query line from `start` to `end` of `text` (the window at `base`); `lead` is the marker written before the
   * text (`Q1:` of the prompt), in which case the line holds only what follows the marker.
   */
  private query(st: State, text: string, base: number, start: number, end: number, lead: string): void {
    const line = lead + text.slice(start, end);
    const cursor = new LineCursor(line);
    cursor.advance();
    const head = cursor.kind === LineKind.Query ? readHead(line, 0, cursor.headEnd) : null;
    if (!head || head.kind !== 'query') return; // the classifier said Query, so the grammar reads it
    const shift = start - lead.length;
    const br = head.bracket;
    const name = br ? line.slice(br.name.start, br.name.end).trim() : null;
    const instrStart = skipSpaces(text, Math.max(start, (br ? br.span.end : head.marker.end) + shift), end);
    st.steps.push(
      newStep(
        {
          number: head.number.value,
          name,
          instruction: text.slice(instrStart, end),
          instructionSpan: { start: base + instrStart, end: base + end },
          querySpan: { start: base + start, end: base + end },
          answerBreak: null,
          answerSpan: null,
          isEoq: name !== null && !!br?.closed && isEoqName(name),
        },
        this.src,
      ),
    );
    st.last = 'query';
  }
}

/** Scans a whole text once (see ArtScanner). */
export function scanProgram(text: string, firstQuery: 0 | 1 = 1): ArtScan {
  return new ArtScanner(firstQuery ? `Q${firstQuery}:` : '').scan(text);
}

function skipSpaces(text: string, from: number, end: number): number {
  let i = from;
  while (i < end && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++;
  return i;
}
