// Is what the model wrote a continuation of the ART program? Read by the parser's own line classifier
// (core/art/lines.ts) on the streaming scanner's steps (artScan.ts), so the runner refuses what is plainly not a
// program before it joins it: prose where a step must start (after a tool's output), `Ans:` before any
// `Qk: [EOQ]`, and, where the prompt's demonstrations name a tool or sub-step in every query, a query without
// `[name]` (a refusal or a chat preamble written after `Q1:`). What ART itself accepts is accepted: step numbers out
// of order or repeated (the real ART library has both; `art check` says so, the runner goes on as the reference
// does), and queries without `[name]` where the demonstrations have such queries too. The answer the model writes to
// a step of its own may be anything (code, prose): it is not judged.
//
// An unfinished line is judged once it is complete, the reply has ended, or it is longer than any head, so the
// message can quote it whole; the runner shows text only once it is read, so a refused line is never shown.
//
// The check runs after every chunk. It reads the lines a chunk touched from the scanner's window (the text from
// the start of the unfinished line on) and keeps, for the request (RequestCheck), what the text growing cannot
// change (the blank lines after a tool's output, the queries found good), so a chunk costs its own lines, not the
// text; a line before the window (only when the check was not run on every chunk) is read from the whole text.
import type { Span } from '../common/text';
import { LineCursor, LineKind, startsProgram } from '../art/lines';

/** What the check needs of the streaming scanner's reading (artScan.ts's ArtScan). */
export interface ScannedProgram {
  steps: readonly { number: number; name: string | null; querySpan: Span; answerSpan: Span | null; isEoq: boolean }[];
  ans: { span: Span } | null;
}

export interface ContinuationProblem {
  /** Where the text that does not continue the program starts (in the generated text). */
  cut: number;
  message: string;
}

/** The generated text as the check reads it: the scanner's window where it reaches, else the whole text. */
export interface ProgramText {
  /** The whole generated text. */
  text: string;
  /** The text from `base` on (the scanner's window). */
  window: string;
  base: number;
  /** Where the last `\n` is (-1: none). */
  lastNewline: number;
}

/** What the check found of one request's text (from `from` on) that the text growing cannot change. */
export class RequestCheck {
  /** After a tool's output: where the first line not yet known to be blank starts; null once a step was read there. */
  blankUntil: number | null;
  /** Queries of the request (by where they start) read and found to continue the program. */
  readonly goodQueries = new Set<number>();

  constructor(
    readonly from: number,
    /** Where the line `from` is on starts. */
    readonly lineStart: number,
    /** `from` is right after a tool's output line, where the model must start the next step. */
    afterTool: boolean,
  ) {
    this.blankUntil = afterTool && from > 0 ? from : null;
  }
}

/** An unfinished line longer than this is judged as it stands (no head is this long). */
const JUDGE_AFTER = 160;
const QUERY_MARKER = /^Q\d+[ \t]*[:：][ \t]*/;

const quote = (s: string, max = 80) => {
  const t = s.trim();
  return JSON.stringify(t.length > max ? `${t.slice(0, max)}…` : t);
};

/** The text to read at `at` (the window when it reaches there) and where it starts in the generated text. */
function readAt(v: ProgramText, at: number): { text: string; offset: number } {
  return at >= v.base ? { text: v.window, offset: v.base } : { text: v.text, offset: 0 };
}

/**
 * The first place where the text written from `check.from` on does not continue the program, or null. `v` is the
 * generated text (it follows the prompt's `Q1:`); `scan` its reading. `final`: the reply has ended.
 */
export function artContinuationProblem(
  v: ProgramText,
  scan: ScannedProgram,
  check: RequestCheck,
  final: boolean,
  /** The prompt's demonstrations have queries without `[name]`: such a query is a step, not a refusal. */
  freeQueries = false,
): ContinuationProblem | null {
  const length = v.text.length;
  const judged = (start: number) => v.lastNewline >= start || final || length - start > JUDGE_AFTER;
  const lineAt = (start: number) => {
    const { text, offset } = readAt(v, start);
    const nl = text.indexOf('\n', start - offset);
    return text.slice(start - offset, nl < 0 ? text.length : nl).replace(/\r$/, '');
  };
  const problems: ContinuationProblem[] = [];

  // A step must start right after a tool's output.
  if (check.blankUntil !== null) {
    const { text, offset } = readAt(v, check.blankUntil);
    const cursor = new LineCursor(text, check.blankUntil - offset);
    while (cursor.next <= text.length && cursor.advance()) {
      const complete = cursor.end < text.length;
      if (cursor.kind === LineKind.Blank) {
        if (!complete) break;
        check.blankUntil = offset + cursor.next;
        continue;
      }
      const ok = cursor.kind === LineKind.Query || cursor.kind === LineKind.Ans || startsProgram(cursor.kind);
      if (!ok && judged(offset + cursor.start)) {
        const next = (scan.steps[scan.steps.length - 1]?.number ?? 0) + 1;
        problems.push({
          cut: offset + cursor.start,
          message: `the model's reply does not continue the program: ${quote(lineAt(offset + cursor.start))} where the next step (\`Q${next}: [tool or sub-step] instruction\`) or \`Ans:\` was expected`,
        });
      } else if (ok && complete) check.blankUntil = null; // a whole line of a step: read for good
      break;
    }
  }

  // Every query the reply writes: something after its marker, and a `[name]` unless the demonstrations have queries without.
  scan.steps.forEach((s, i) => {
    const start = s.querySpan.start;
    if (start < check.lineStart || check.goodQueries.has(start)) return; // before the request, or read already
    if (!judged(start)) return;
    const line = lineAt(start);
    const head = (i === 0 ? line : line.replace(QUERY_MARKER, '')).trimStart();
    const marker = `Q${s.number}:`;
    // A good query stays good as its line grows (its head only gets longer).
    if (head !== '' && (freeQueries || /^\[[^\]\n]+\]/.test(head))) {
      check.goodQueries.add(start);
      return;
    }
    problems.push({
      cut: start,
      message:
        head === ''
          ? `the model wrote \`${marker}\` and nothing after it, where \`${marker} [tool or sub-step] instruction\` was expected`
          : `the model's reply does not continue the program: ${quote(line)} where \`${marker} [tool or sub-step] instruction\` was expected`,
    });
  });

  // `Ans:` ends a program only after `Qk: [EOQ]`.
  if (scan.ans && scan.ans.span.start >= check.lineStart) {
    const last = scan.steps[scan.steps.length - 1];
    if (!last?.isEoq) {
      const next = (last?.number ?? 0) + 1;
      problems.push({
        cut: scan.ans.span.start,
        message: `the model wrote ${quote(lineAt(scan.ans.span.start))} before \`Q${next}: [EOQ]\`: a program ends with \`Q${next}: [EOQ]\`, then \`Ans:\``,
      });
    }
  }
  if (!problems.length) return null;
  return problems.reduce((a, b) => (b.cut < a.cut ? b : a));
}
