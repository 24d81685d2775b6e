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

/** An unfinished line longer than this is judged as it stands (no head is this long). */
const JUDGE_AFTER = 160;
const QUERY_MARKER = /^Q\d+[ \t]*[:：][ \t]*/;

const quote = (s: string, max = 80) => {
  const t = s.trim();
  return JSON.stringify(t.length > max ? `${t.slice(0, max)}…` : t);
};

/**
 * The first place where the text written from `from` on does not continue the program, or null. `written` is the
 * generated text (it follows the prompt's `Q1:`); `scan` its reading; `afterTool`: `from` is right after a tool's
 * output line, where the model must start the next step. `final`: the reply has ended.
 */
export function artContinuationProblem(
  written: string,
  scan: ScannedProgram,
  from: number,
  afterTool: boolean,
  final: boolean,
  /** The prompt's demonstrations have queries without `[name]`: such a query is a step, not a refusal. */
  freeQueries = false,
): ContinuationProblem | null {
  const lineStart = written.lastIndexOf('\n', from - 1) + 1;
  const judged = (start: number) => {
    const nl = written.indexOf('\n', start);
    return nl >= 0 || final || written.length - start > JUDGE_AFTER;
  };
  const lineAt = (start: number) => {
    const nl = written.indexOf('\n', start);
    return written.slice(start, nl < 0 ? written.length : nl).replace(/\r$/, '');
  };
  const problems: ContinuationProblem[] = [];

  // A step must start right after a tool's output.
  if (afterTool && from > 0) {
    const cursor = new LineCursor(written, from);
    while (cursor.next <= written.length && cursor.advance()) {
      if (cursor.kind === LineKind.Blank) {
        if (cursor.end >= written.length) break;
        continue;
      }
      const ok = cursor.kind === LineKind.Query || cursor.kind === LineKind.Ans || startsProgram(cursor.kind);
      if (!ok && judged(cursor.start)) {
        const next = (scan.steps[scan.steps.length - 1]?.number ?? 0) + 1;
        problems.push({
          cut: cursor.start,
          message: `the model's reply does not continue the program: ${quote(lineAt(cursor.start))} where the next step (\`Q${next}: [tool or sub-step] instruction\`) or \`Ans:\` was expected`,
        });
      }
      break;
    }
  }

  // Every query the reply writes: something after its marker, and a `[name]` unless the demonstrations have queries without.
  scan.steps.forEach((s, i) => {
    const start = s.querySpan.start;
    if (start < lineStart) return; // read with the request that wrote it
    if (!judged(start)) return;
    const line = lineAt(start);
    const head = (i === 0 ? line : line.replace(QUERY_MARKER, '')).trimStart();
    const marker = `Q${s.number}:`;
    if (head !== '' && (freeQueries || /^\[[^\]\n]+\]/.test(head))) return;
    problems.push({
      cut: start,
      message:
        head === ''
          ? `the model wrote \`${marker}\` and nothing after it, where \`${marker} [tool or sub-step] instruction\` was expected`
          : `the model's reply does not continue the program: ${quote(line)} where \`${marker} [tool or sub-step] instruction\` was expected`,
    });
  });

  // `Ans:` ends a program only after `Qk: [EOQ]`.
  if (scan.ans && scan.ans.span.start >= lineStart) {
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
