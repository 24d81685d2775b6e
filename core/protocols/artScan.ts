// Reads a program while the model is still writing it: which queries are complete, where each answer starts,
// and whether the program has ended. Lines are classified by the parser's own line classifier and heads read by
// its head grammar (core/art/lines.ts, head.peggy), so the runner and the editor agree on every boundary; what is
// the scanner's own is the unfinished last line (`#`, `#2`, `Q`), on which it must decide before the line is done.
//
// The scanner is incremental: complete lines are read once, and each new chunk costs the lines it completes plus
// the unfinished last line, not a pass over the whole text (a long generation would otherwise cost the square of
// its length). Any other change to the text (the runner cuts it, or the user edits a tool's input) starts over.
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
  /** The answer's text so far (after `#k:`), null before its marker is written out. */
  answer: string | null;
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

/**
 * Scans a program as it grows. `lead` is the text just before the scanned text on its first line: `Q1:` in the
 * runner (the prompt ends in the new program's `Q1:` marker), `''` when the text starts with whole lines.
 */
export class ArtScanner {
  private source = '';
  /** Where the first line not yet read for good starts (the unfinished last line). */
  private done = 0;
  private state = emptyState();
  /** Lines classified so far, for tests of the per-chunk cost. */
  linesRead = 0;

  constructor(private readonly lead = 'Q1:') {}

  scan(text: string): ArtScan {
    if (text.length < this.done || !text.startsWith(this.source.slice(0, this.done))) {
      this.done = 0;
      this.state = emptyState();
    }
    this.source = text;
    const st = this.state;
    if (st.endAt === null) {
      const cursor = new LineCursor(text, this.done);
      while (st.endAt === null && cursor.next < text.length && cursor.advance()) {
        // The unfinished last line (a `\r` at the very end may yet be followed by `\n`): read below, on a copy.
        if (cursor.next > text.length || (cursor.next === text.length && text.charCodeAt(text.length - 1) === 13)) break;
        this.linesRead++;
        this.line(st, text, cursor, true);
        this.done = cursor.next;
      }
    }
    if (st.endAt !== null || this.done >= text.length) return this.result(st, text);
    // The unfinished last line changes the scan only for this text: apply it to a copy of the last step.
    const tail: State = { ...st, steps: st.steps.slice() };
    const n = tail.steps.length;
    if (n) tail.steps[n - 1] = { ...tail.steps[n - 1] };
    if (tail.ans) tail.ans = { ...tail.ans };
    const cursor = new LineCursor(text, this.done);
    cursor.advance();
    this.linesRead++;
    this.line(tail, text, cursor, false);
    return this.result(tail, text);
  }

  private result(st: State, text: string): ArtScan {
    const steps = st.steps;
    for (const s of steps) if (s.answerSpan) s.answer = text.slice(s.answerSpan.start, s.answerSpan.end).replace(/\s+$/, '');
    return { steps, ans: st.ans, endAt: st.endAt, last: st.last };
  }

  /** Reads one line into `st`. `complete`: the line has its line break. */
  private line(st: State, text: string, line: LineCursor, complete: boolean): void {
    const cur = st.steps[st.steps.length - 1];
    if (st.first) {
      st.first = false;
      if (this.lead) {
        if (line.end === line.start && !complete) return; // nothing written after the prompt's `Q1:` yet
        this.query(st, text, line.start, line.end, this.lead);
        return;
      }
    }
    const kind = line.kind;
    if (st.last === 'ans') {
      // `Ans:` is one line; anything after it that is not blank belongs to what comes next.
      if (kind !== LineKind.Blank || complete) st.endAt = line.start - 1;
      return;
    }
    if (startsProgram(kind)) {
      st.endAt = line.start - 1;
      return;
    }
    if (kind === LineKind.Query) {
      this.query(st, text, line.start, line.end, '');
      return;
    }
    if (kind === LineKind.Ans) {
      const vs = skipSpaces(text, line.headEnd, line.end);
      st.ans = { text: text.slice(vs, line.end).trim(), span: { start: line.start, end: line.end }, lineComplete: complete };
      st.last = 'ans';
      return;
    }
    if (st.last === 'query' && cur && (kind === LineKind.Answer || (!complete && mayBecomeAnswerHead(text, line.start)))) {
      // The answer marker has started: the query is complete even if `#2:` is still arriving.
      cur.answerBreak = line.start - 1;
      const vs = kind === LineKind.Answer ? skipSpaces(text, line.headEnd, line.end) : line.end;
      cur.answer = '';
      cur.answerSpan = { start: vs, end: line.end };
      st.last = 'answer';
      return;
    }
    if (st.last === 'query' && cur) {
      // An instruction that continues on the next line.
      if (kind !== LineKind.Blank) {
        const more = text.slice(line.start, line.end);
        cur.instruction = (cur.instruction ? `${cur.instruction}\n` : '') + more;
        cur.instructionSpan = { start: cur.instructionSpan.start, end: line.end };
        cur.querySpan = { start: cur.querySpan.start, end: line.end };
      }
      return;
    }
    if (st.last === 'answer' && cur && cur.answerSpan) {
      // A multi-line answer (code, a traceback): `#1:` alone on its line starts the value on the next one.
      const a = cur.answerSpan;
      if (a.start === a.end && text.slice(a.start, line.start).trim() === '') cur.answerSpan = { start: line.start, end: line.end };
      else cur.answerSpan = { start: a.start, end: line.end };
    }
  }

  /**
   * A query line from `start` to `end`; `lead` is the marker written before the text (`Q1:` of the prompt), in
   * which case the line holds only what follows the marker.
   */
  private query(st: State, text: string, start: number, end: number, lead: string): void {
    const line = lead + text.slice(start, end);
    const cursor = new LineCursor(line);
    cursor.advance();
    const head = cursor.kind === LineKind.Query ? readHead(line, 0, cursor.headEnd) : null;
    if (!head || head.kind !== 'query') return; // the classifier said Query, so the grammar reads it
    const shift = start - lead.length;
    const br = head.bracket;
    const name = br ? line.slice(br.name.start, br.name.end).trim() : null;
    const instrStart = skipSpaces(text, Math.max(start, (br ? br.span.end : head.marker.end) + shift), end);
    st.steps.push({
      number: head.number.value,
      name,
      instruction: text.slice(instrStart, end),
      instructionSpan: { start: instrStart, end },
      querySpan: { start, end },
      answerBreak: null,
      answer: null,
      answerSpan: null,
      isEoq: name !== null && !!br?.closed && isEoqName(name),
    });
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
