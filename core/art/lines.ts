// A cursor over the lines of a document that classifies each line by its head: the fast path in front of
// head.peggy. It never copies a line: sticky regular expressions run on the document text at the line's offset.
import { editDistance } from '../common/text';

export const enum LineKind {
  Blank,
  Text,
  Separator,
  Description,
  Input,
  Query,
  Answer,
  Ans,
}

/** `Description` and near misspellings of it (the ART reference library has `Descripton`, `Desciption`, `Descriptio`). */
export function isDescriptionWord(word: string): boolean {
  if (word.length < 8 || word.length > 13) return false;
  const w = word.toLowerCase();
  return w === 'description' || (w.startsWith('desc') && editDistance(w, 'description', 2) <= 2);
}

const QUERY = /Q\d+[ \t]*[:：][ \t]*/y;
const ANSWER = /#\d+[ \t]*[:：]/y;
const BARE_ANSWER = /#\d+[ \t]*(?=\r|\n|$)/y;
const ANS = /Ans[ \t]*[:：]/y;
const INPUT = /Input[ \t]*[:：]/y;
const DESCRIPTION = /(Desc[A-Za-z]*)[ \t]*[:：][ \t]*/iy;
const SEPARATOR = /[ \t]*(?:-{3,}|[—―]{2,}|─{3,})[ \t]*(?=\r|\n|$)/y;
const BLANK = /[ \t]*(?=\r|\n|$)/y;

/**
 * `text.indexOf(search, from)` that stops at `to`: plain indexOf would scan to the end of a large document every
 * time it finds nothing, which is quadratic over many programs. (A slice of a flat string is O(1) in V8.)
 */
export function indexWithin(text: string, search: string, from: number, to: number): number {
  const i = text.slice(from, to).indexOf(search);
  return i < 0 ? -1 : from + i;
}

function at(re: RegExp, text: string, pos: number): boolean {
  re.lastIndex = pos;
  return re.test(text);
}

export class LineCursor {
  /** The current line: [start, end) without its line break; `next` is where the following line starts. */
  start = 0;
  end = 0;
  next: number;
  kind: LineKind = LineKind.Blank;
  /** For a head line: where the head ends (the part head.peggy parses); the value starts there. */
  headEnd = 0;
  private nextCr: number;

  constructor(
    readonly text: string,
    from = 0,
    private readonly limit = text.length,
  ) {
    this.next = from;
    this.nextCr = indexWithin(text, '\r', from, limit);
  }

  /** Moves to the next line; false once past the limit. */
  advance(): boolean {
    const text = this.text;
    const pos = this.next;
    if (pos > this.limit) return false;
    let nl = text.indexOf('\n', pos);
    if (nl < 0 || nl > this.limit) nl = this.limit;
    let end = nl;
    let next = nl + 1;
    // A lone \r also ends a line; track the next \r once rather than searching on every line.
    if (this.nextCr >= 0 && this.nextCr < pos) this.nextCr = indexWithin(text, '\r', pos, this.limit);
    if (this.nextCr >= 0 && this.nextCr < nl) {
      end = this.nextCr;
      next = text.charCodeAt(end + 1) === 10 ? end + 2 : end + 1;
    }
    this.start = pos;
    this.end = end;
    this.next = next;
    this.classify();
    return true;
  }

  private classify(): void {
    const text = this.text;
    const pos = this.start;
    if (pos === this.end) {
      this.kind = LineKind.Blank;
      return;
    }
    this.kind = LineKind.Text;
    switch (text.charCodeAt(pos)) {
      case 81: // Q
        if (at(QUERY, text, pos)) {
          this.kind = LineKind.Query;
          const after = QUERY.lastIndex;
          if (text.charCodeAt(after) === 91) {
            const close = indexWithin(text, ']', after, this.end);
            this.headEnd = close >= 0 ? close + 1 : this.end;
          } else this.headEnd = after;
        }
        return;
      case 35: // #
        if (at(ANSWER, text, pos)) {
          this.kind = LineKind.Answer;
          this.headEnd = ANSWER.lastIndex;
        } else if (at(BARE_ANSWER, text, pos)) {
          this.kind = LineKind.Answer;
          this.headEnd = this.end;
        }
        return;
      case 65: // A
        if (at(ANS, text, pos)) {
          this.kind = LineKind.Ans;
          this.headEnd = ANS.lastIndex;
        }
        return;
      case 73: // I
        if (at(INPUT, text, pos)) {
          this.kind = LineKind.Input;
          this.headEnd = INPUT.lastIndex;
        }
        return;
      case 68: // D
      case 100: {
        DESCRIPTION.lastIndex = pos;
        const m = DESCRIPTION.exec(text);
        if (m && isDescriptionWord(m[1])) {
          this.kind = LineKind.Description;
          const after = DESCRIPTION.lastIndex;
          const close = text.charCodeAt(after) === 40 ? indexWithin(text, ')', after, this.end) : -1;
          this.headEnd = close >= 0 ? close + 1 : after;
        }
        return;
      }
      case 45: // - — ― ─, and lines that start with white space or are empty
      case 0x2014:
      case 0x2015:
      case 0x2500:
      case 32:
      case 9:
        if (at(SEPARATOR, text, pos)) this.kind = LineKind.Separator;
        else if (at(BLANK, text, pos)) this.kind = LineKind.Blank;
    }
  }
}

export function isHead(kind: LineKind): boolean {
  return kind >= LineKind.Description;
}

/** A line that starts another program (a separator, `Description:`, `Input:`) rather than continuing this one. */
export function startsProgram(kind: LineKind): boolean {
  return kind === LineKind.Separator || kind === LineKind.Description || kind === LineKind.Input;
}

const ANSWER_PREFIX = /#\d*[ \t]*$/y;

/**
 * Whether the unfinished last line at `start` (it runs to the end of `text`) may still become an answer head
 * (`#`, `#2`, `#2 ` before its colon arrives). The streaming scanner ends a query there, as the endpoint's stop
 * sequence `\n#` does, so no token is generated past a tool call.
 */
export function mayBecomeAnswerHead(text: string, start: number): boolean {
  return at(ANSWER_PREFIX, text, start);
}

/**
 * Where the runner asks the endpoint to stop (the OpenAI API takes at most four stop sequences): an answer head
 * (the runner writes `#k:` itself) and the starts of another program, so the model does not write the next
 * demonstration after `Ans:`. Each is a line break followed by the start of a head this classifier recognises;
 * the starts of other programs it does not list (`---`, `——`, misspelled descriptions) are caught by the
 * streaming scanner, which cuts the stream there. With inline triggers on, a request inside an answer the model
 * writes ends at a trigger's `>>` too, in place of `\nInput:` (ART_TRIGGER_STOPS in core/protocols/artProtocol.ts).
 */
export const STREAM_STOPS: readonly string[] = ['\n#', '\n----', '\nDescription:', '\nInput:'];

/**
 * The next separator line at or after the line that starts at `from` (a line start): its span, or null. The split
 * points that let a large first parse go program by program.
 */
export function nextSeparator(text: string, from: number): { start: number; end: number } | null {
  let pos = from;
  while (pos <= text.length) {
    const c = text.charCodeAt(pos);
    if ((c === 45 || c === 0x2014 || c === 0x2015 || c === 0x2500 || c === 32 || c === 9) && at(SEPARATOR, text, pos)) {
      return { start: pos, end: SEPARATOR.lastIndex };
    }
    const nl = text.indexOf('\n', pos);
    if (nl < 0) return null;
    pos = nl + 1;
  }
  return null;
}
