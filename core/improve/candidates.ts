// Candidate demonstrations and the libraries made of them. A training run whose answer was right becomes a candidate:
// the program the model wrote, with its tools' outputs, read back from the run's trace and turned into a library
// program the way "Save as Demonstration" does (core/prompt/demonstration.ts); it is kept only when the language's
// checks find no error in it. A candidate set is the original library with some of its demonstrations left out and
// the chosen candidates added before its template, in the set's order, each after a comment line naming the training
// example it came from. The library's other text is kept as it was, so the proposed file diffs cleanly.
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { checkArt } from '../art/check';
import { parseArt } from '../art/parse';
import { applyEdits, type TextEdit } from '../common/diagnostics';
import { traceOfResult, type EvalResult } from '../evaluation/eval';
import { appendDemonstrationEdit, demonstrationText } from '../prompt/demonstration';
import { SEPARATOR } from '../prompt/prompt';
import { isDemonstration } from '../prompt/selection';
import { readTraceFile } from '../trace/trace';

export interface Candidate {
  /** The training example's id and 1-based line in its file. */
  id: string;
  line: number;
  /** The program as a library holds it (without the comment line). */
  program: string;
  /** The bootstrap round (0-based) whose run it is. */
  round: number;
}

/** The comment line that names where an added demonstration comes from. */
export const ORIGIN_PREFIX = '# art improve: from training example';

export function originComment(c: Pick<Candidate, 'id' | 'line'>, trainFile: string): string {
  return `${ORIGIN_PREFIX} ${JSON.stringify(c.id)} (${basename(trainFile)}:${c.line})`;
}

/** A short content hash (a library text, a key), the same on every machine. */
export function contentHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}

/**
 * The candidate a right training run gives, or why it gives none: the run's program from its trace (the `end`
 * record's text), as a demonstration, clean for the checks.
 */
export function candidateOf(
  r: EvalResult,
  resultsPath: string,
  example: { line: number },
  round: number,
): { candidate: Candidate } | { rejected: string } {
  const trace = traceOfResult(resultsPath, r);
  if (!trace) return { rejected: 'its run kept no trace' };
  let text: string | undefined;
  try {
    const end = readTraceFile(trace)
      .records.filter(x => x.t === 'end')
      .at(-1);
    text = end?.t === 'end' ? end.text : undefined;
  } catch (e) {
    return { rejected: `${trace}: ${(e as Error).message}` };
  }
  if (text === undefined) return { rejected: `${trace}: the trace has no end record` };
  let program: string;
  try {
    program = demonstrationText({ kind: 'art', text });
  } catch (e) {
    return { rejected: (e as Error).message };
  }
  const errors = checkArt(parseArt(program)).filter(d => d.severity === 'error');
  if (errors.length) return { rejected: `the program has ${errors.length} error(s): ${errors[0].message}` };
  return { candidate: { id: r.id, line: example.line, program, round } };
}

/** The library's demonstrations (not the template), by program index, as a candidate set may keep or leave them. */
export function existingDemonstrations(libraryText: string): number[] {
  return parseArt(libraryText).programs.flatMap((p, i) => (isDemonstration(p) ? [i] : []));
}

export interface CandidateSet {
  /** Program indices of the library's demonstrations left out. */
  dropped: number[];
  /** The candidates added, in this order. */
  added: Candidate[];
}

/** The library text of a candidate set: the original with `dropped` left out and `added` before its template. */
export function libraryText(original: string, set: CandidateSet, trainFile: string): string {
  const doc = parseArt(original);
  const edits: TextEdit[] = [];
  for (const i of set.dropped) {
    const p = doc.programs[i];
    if (!p) continue;
    // The program and the separator line after it (or before it, for the last).
    const after = doc.separators.find(s => s.start >= p.span.end && !doc.programs.some(q => q.span.start >= p.span.end && q.span.start < s.start));
    const before = [...doc.separators].reverse().find(s => s.end <= p.span.start);
    const end = after ? lineEnd(original, after.end) : p.span.end;
    const start = after || !before ? p.span.start : before.start;
    edits.push({ span: { start, end }, newText: '' });
  }
  let text = applyEdits(original, edits);
  if (!set.added.length) return text;
  const block = set.added.map(c => `${originComment(c, trainFile)}\n${c.program.replace(/\s+$/, '')}`).join(`\n${SEPARATOR}\n`);
  // A comment line must follow a separator: without one it would read as the end of the previous program's answer.
  const parsed = parseArt(text);
  const needsSeparator = !parsed.programs.some(p => p.template) && parsed.separators.length === 0 && parsed.programs.length > 0;
  text = needsSeparator ? `${text.replace(/\s+$/, '')}\n${SEPARATOR}\n${block}\n` : applyEdits(text, [appendDemonstrationEdit(text, block)]);
  return text;
}

function lineEnd(text: string, at: number): number {
  const nl = text.indexOf('\n', at);
  return nl < 0 ? text.length : nl + 1;
}

/** The header comment lines `art improve` puts before the proposed library (not part of what was measured). */
export const HEADER_PREFIX = '# art improve:';

/** The proposed file: the header comment, then the library text as measured. */
export function withHeader(text: string, header: string[]): string {
  return `${header.map(l => `${HEADER_PREFIX} ${l}`).join('\n')}\n${text}`;
}

/** The library as measured, from a proposed file: its leading header comment lines dropped (what Accept writes). */
export function withoutHeader(text: string): string {
  const lines = text.split('\n');
  let i = 0;
  while (i < lines.length && lines[i].startsWith(HEADER_PREFIX) && !lines[i].startsWith(ORIGIN_PREFIX)) i++;
  return lines.slice(i).join('\n');
}
