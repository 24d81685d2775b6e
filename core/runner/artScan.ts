// Reads a program while the model is still writing it: which queries are complete, where each answer starts,
// and whether the program has ended. A line scanner rather than the full parser because it must decide on a
// half-written last line (`#`, `#2`, `Q`) and must be cheap enough to run on every streamed chunk.
import type { Span } from '../common/text';

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

const QUERY = /^Q(\d+)\s*[:：]/;
const ANSWER = /^#(\d+)\s*[:：]?/;
const ANS = /^Ans\s*[:：]/;
const PROGRAM_START = /^(?:-{3,}|—{2,}|Description\s*[:：]|Descripton\s*[:：]|Input\s*[:：])/;

/**
 * Scans `text`, which starts right after the prompt's final `Q1:` marker when `firstQuery` is 1 (the runner's
 * case), or with a whole `Qk:` line when `firstQuery` is 0.
 */
export function scanProgram(text: string, firstQuery = 1): ArtScan {
  const steps: ScannedStep[] = [];
  let ans: ArtScan['ans'] = null;
  let endAt: number | null = null;
  let last: ArtScan['last'] = 'none';
  let lineStart = 0;
  let first = true;
  while (lineStart <= text.length) {
    const nl = text.indexOf('\n', lineStart);
    const lineEnd = nl < 0 ? text.length : nl;
    const complete = nl >= 0;
    let line = text.slice(lineStart, lineEnd);
    if (line.endsWith('\r')) line = line.slice(0, -1);
    const cur = steps[steps.length - 1];
    if (first && firstQuery > 0) {
      if (text === '') break; // nothing written after the prompt's `Q1:` yet
      startQuery(steps, firstQuery, text, lineStart, lineStart, lineEnd);
      last = 'query';
    } else if (last === 'ans') {
      // `Ans:` is one line; anything after it that is not blank belongs to what comes next.
      if (line.trim() !== '' || complete) {
        endAt = lineStart - 1;
        break;
      }
    } else if (PROGRAM_START.test(line)) {
      endAt = lineStart - 1;
      break;
    } else if (QUERY.test(line)) {
      const m = QUERY.exec(line)!;
      startQuery(steps, Number(m[1]), text, lineStart, lineStart + m[0].length, lineEnd);
      last = 'query';
    } else if (ANS.test(line)) {
      const m = ANS.exec(line)!;
      const vs = skipSpaces(text, lineStart + m[0].length, lineEnd);
      ans = { text: text.slice(vs, lineEnd).trim(), span: { start: lineStart, end: lineEnd }, lineComplete: complete };
      last = 'ans';
    } else if (last === 'query' && cur && line.startsWith('#')) {
      // The answer marker has started: the query is complete even if `#2:` is still arriving.
      cur.answerBreak = lineStart - 1;
      const m = ANSWER.exec(line);
      const vs = m ? skipSpaces(text, lineStart + m[0].length, lineEnd) : lineEnd;
      cur.answer = '';
      cur.answerSpan = { start: vs, end: lineEnd };
      last = 'answer';
    } else if (last === 'query' && cur) {
      // An instruction that continues on the next line.
      if (line.trim() !== '') {
        cur.instruction = (cur.instruction ? `${cur.instruction}\n` : '') + line;
        cur.instructionSpan = { start: cur.instructionSpan.start, end: lineEnd };
        cur.querySpan = { start: cur.querySpan.start, end: lineEnd };
      }
    } else if (last === 'answer' && cur && cur.answerSpan) {
      // A multi-line answer (code, a traceback): `#1:` alone on its line starts the value on the next one.
      if (cur.answerSpan.start === cur.answerSpan.end && text.slice(cur.answerSpan.start, lineStart).trim() === '') cur.answerSpan = { start: lineStart, end: lineEnd };
      else cur.answerSpan = { start: cur.answerSpan.start, end: lineEnd };
    }
    first = false;
    if (!complete) break;
    lineStart = nl + 1;
  }
  for (const s of steps) if (s.answerSpan) s.answer = text.slice(s.answerSpan.start, s.answerSpan.end).replace(/\s+$/, '');
  return { steps, ans, endAt, last };
}

function startQuery(steps: ScannedStep[], number: number, text: string, markerStart: number, afterMarker: number, lineEnd: number): void {
  const line = text.slice(afterMarker, lineEnd).replace(/\r$/, '');
  const m = /^\s*\[([^\]\n]*)\]?/.exec(line);
  let name: string | null = null;
  let instrStart = afterMarker;
  if (m && line.trimStart().startsWith('[')) {
    name = m[1].trim();
    instrStart = afterMarker + m[0].length;
  }
  instrStart = skipSpaces(text, instrStart, lineEnd);
  const instruction = text.slice(instrStart, lineEnd).replace(/\r$/, '');
  steps.push({
    number,
    name,
    instruction,
    instructionSpan: { start: instrStart, end: lineEnd },
    querySpan: { start: markerStart, end: lineEnd },
    answerBreak: null,
    answer: null,
    answerSpan: null,
    isEoq: name !== null && name.trim().toUpperCase() === 'EOQ',
  });
}

function skipSpaces(text: string, from: number, end: number): number {
  let i = from;
  while (i < end && (text[i] === ' ' || text[i] === '\t')) i++;
  return i;
}
