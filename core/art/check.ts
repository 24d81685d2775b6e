// The `.art` checks: every diagnostic code of DESIGN.md, one function per code (as the `.agent` checker is), each
// with the smallest range that shows the problem and, where one is named, the fix as core text edits (the language
// server only exposes them).
import type { Diagnostic, Fix, Severity } from '../common/diagnostics';
import { sortDiagnostics } from '../common/diagnostics';
import { nearestName, type Span } from '../common/text';
import type { Answer, ArtDocument, Program, Step } from './ast';
import { answerBefore, normalizeName, openStep } from './ast';
import { ToolCatalog } from './knownTools';
import { renumberFix } from './renumber';

export interface CheckOptions {
  /** Tool names for `tool-name-typo`; the built-in ART tools when absent. */
  tools?: ToolCatalog;
}

const SEVERITY = {
  'missing-input': 'error',
  'step-out-of-order': 'error',
  'answer-mismatch': 'error',
  'answer-without-query': 'error',
  'missing-answer': 'error',
  'malformed-query': 'error',
  'missing-eoq': 'error',
  'missing-ans': 'error',
  'eoq-not-last': 'error',
  'unknown-reference': 'warning',
  'tool-name-typo': 'warning',
  'duplicate-program': 'warning',
  'empty-answer': 'warning',
} as const satisfies Record<string, Severity>;

type ArtCode = keyof typeof SEVERITY;

/** The diagnostic codes of `.art` files with their severities. */
export const ART_DIAGNOSTIC_CODES: Readonly<Record<string, Severity>> = SEVERITY;

const defaultCatalog = new ToolCatalog();

export function checkArt(doc: ArtDocument, opts: CheckOptions = {}): Diagnostic[] {
  const tools = opts.tools ?? defaultCatalog;
  const out: Diagnostic[] = [];
  for (const p of doc.programs) out.push(...checkProgram(doc.text, p, tools));
  out.push(...checkDuplicates(doc));
  return sortDiagnostics(out);
}

/** What every check of one program reads. */
interface ProgramContext {
  text: string;
  program: Program;
  tools: ToolCatalog;
  /** Steps and stray answers in document order (stray answers are rare: only then is a merged list built). */
  items: (Step | Answer)[];
  /** The first `Qk: [EOQ]`, where the program ends its queries. */
  eoq: Step | null;
  /** The template's last, bare `Qk:`, or the open step a task ends at (openStep): not checked as a demonstration step. */
  templateSlot: Step | null;
}

type ProgramCheck = (c: ProgramContext, out: Diagnostic[]) => void;

/** The checks of one program, one per code (`duplicate-program` looks at the whole file: checkDuplicates). */
const PROGRAM_CHECKS: ProgramCheck[] = [
  missingInput,
  answerWithoutQuery,
  eoqNotLast,
  stepOutOfOrder,
  malformedQuery,
  toolNameTypo,
  missingAnswer,
  answerMismatch,
  emptyAnswer,
  missingEoq,
  missingAns,
  unknownReference,
];

/** Checks that look at one program only (the incremental path caches these per program text). */
export function checkProgram(text: string, p: Program, tools: ToolCatalog): Diagnostic[] {
  const items: (Step | Answer)[] = p.strayAnswers.length ? [...p.steps, ...p.strayAnswers].sort((a, b) => a.marker.start - b.marker.start) : p.steps;
  const c: ProgramContext = {
    text,
    program: p,
    tools,
    items,
    eoq: p.steps.find(s => s.isEoq) ?? null,
    templateSlot: p.template ? p.steps[p.steps.length - 1] : openStep(p),
  };
  const out: Diagnostic[] = [];
  for (const check of PROGRAM_CHECKS) check(c, out);
  return out;
}

function diagnostic(code: ArtCode, span: Span, message: string, extra: Partial<Diagnostic> = {}): Diagnostic {
  return { code, severity: SEVERITY[code], message, span, ...extra };
}

const isStep = (item: Step | Answer): item is Step => 'isEoq' in item;

/** The steps checked as demonstration steps (all but the template's slot). */
const demonstrationSteps = (c: ProgramContext) => (c.templateSlot ? c.program.steps.filter(s => s !== c.templateSlot) : c.program.steps);

function lineEnd(text: string, offset: number): number {
  let e = offset;
  while (e < text.length && text.charCodeAt(e) !== 10 && text.charCodeAt(e) !== 13) e++;
  return e;
}

function missingInput(c: ProgramContext, out: Diagnostic[]): void {
  const p = c.program;
  if (p.input || p.template) return;
  out.push(diagnostic('missing-input', { start: p.span.start, end: lineEnd(c.text, p.span.start) }, 'This program has no `Input:` line.'));
}

/** `#k:` with no query before it (after `[EOQ]` it is `eoq-not-last` instead). */
function answerWithoutQuery(c: ProgramContext, out: Diagnostic[]): void {
  for (const a of c.program.strayAnswers) {
    if (c.eoq && c.eoq.marker.start < a.marker.start) continue;
    out.push(diagnostic('answer-without-query', a.marker, `\`#${a.number}:\` answers no query: there is no \`Q${a.number}:\` before it.`));
  }
}

/** Every query and stray answer after the first `[EOQ]`. */
function eoqNotLast(c: ProgramContext, out: Diagnostic[]): void {
  const eoq = c.eoq;
  if (!eoq) return;
  for (const item of c.items) {
    if (item.marker.start <= eoq.marker.start) continue;
    const what = isStep(item) ? `\`Q${item.number}:\`` : `\`#${item.number}:\``;
    out.push(
      diagnostic('eoq-not-last', item.marker, `${what} comes after \`Q${eoq.number}: [EOQ]\`; [EOQ] must end the queries.`, {
        related: [{ span: eoq.marker, message: 'the program ends its queries here' }],
      }),
    );
  }
}

/**
 * Each query should be one more than the step before it (a stray `#k:` counts as step k, so one missing `Qk:` yields
 * one diagnostic, not one per later step); only the first break is reported, with the fix that renumbers it all.
 */
function stepOutOfOrder(c: ProgramContext, out: Diagnostic[]): void {
  let expected = 1;
  for (const item of c.items) {
    if (!isStep(item)) {
      expected = Math.max(expected, item.number + 1);
      continue;
    }
    if (item.number !== expected) {
      out.push(
        diagnostic('step-out-of-order', item.numberSpan, `Step Q${item.number} is out of order: expected Q${expected}.`, {
          fixes: [renumberFix(c.program)],
        }),
      );
      return;
    }
    expected = item.number + 1;
  }
}

function isMalformed(s: Step): boolean {
  return s.nameSpan === null || s.unclosedBracket || (s.name ?? '').trim() === '';
}

/** On the `[...]` when it is unclosed or empty; on the whole line when the query has no `[name]` at all. */
function malformedQuery(c: ProgramContext, out: Diagnostic[]): void {
  for (const s of demonstrationSteps(c)) {
    if (!isMalformed(s)) continue;
    const why = s.nameSpan === null ? 'has no `[name]`' : s.unclosedBracket ? 'has an unclosed `[`' : 'has an empty name `[]`';
    out.push(
      diagnostic(
        'malformed-query',
        s.bracketSpan ?? { start: s.marker.start, end: lineEnd(c.text, s.marker.start) },
        `Q${s.number} ${why}: write \`Q${s.number}: [tool or sub-step] instruction\`.`,
      ),
    );
  }
}

function toolNameTypo(c: ProgramContext, out: Diagnostic[]): void {
  for (const s of demonstrationSteps(c)) {
    if (isMalformed(s) || s.isEoq) continue;
    const best = nearestTool(c.tools, s.name!);
    if (!best) continue;
    const fix: Fix = { title: `Use the tool \`${best}\``, edits: [{ span: s.nameSpan!, newText: best }], preferred: true };
    out.push(
      diagnostic(
        'tool-name-typo',
        s.nameSpan!,
        `\`[${s.name!.trim()}]\` is not a tool; did you mean \`[${best}]\`? As written, the model answers this step itself.`,
        { fixes: [fix] },
      ),
    );
  }
}

/** A query (not `[EOQ]`, not malformed) with no `#k:`, or whose `#k` lacks its colon. */
function missingAnswer(c: ProgramContext, out: Diagnostic[]): void {
  for (const s of demonstrationSteps(c)) {
    const a = s.answer;
    if (a?.missingColon) {
      out.push(
        diagnostic('missing-answer', a.marker, `\`#${a.number}\` has no colon, so Q${s.number} has no answer: write \`#${a.number}:\`.`, {
          fixes: [
            {
              title: `Add the colon: \`#${a.number}:\``,
              edits: [{ span: { start: a.numberSpan.end, end: a.numberSpan.end }, newText: ':' }],
              preferred: true,
            },
          ],
        }),
      );
    } else if (!a && !s.isEoq && s.nameSpan !== null) {
      const at = s.span.end;
      out.push(
        diagnostic('missing-answer', s.marker, `Q${s.number} has no answer \`#${s.number}:\`.`, {
          fixes: [{ title: `Add \`#${s.number}:\``, edits: [{ span: { start: at, end: at }, newText: `\n#${s.number}: ` }], preferred: true }],
        }),
      );
    }
  }
}

function answerMismatch(c: ProgramContext, out: Diagnostic[]): void {
  for (const s of demonstrationSteps(c)) {
    const a = s.answer;
    if (!a || a.missingColon || a.number === s.number) continue;
    out.push(
      diagnostic('answer-mismatch', a.numberSpan, `\`#${a.number}:\` follows Q${s.number}: the answer should be \`#${s.number}:\`.`, {
        fixes: [{ title: `Change to #${s.number}`, edits: [{ span: a.numberSpan, newText: String(s.number) }], preferred: true }],
      }),
    );
  }
}

function emptyAnswer(c: ProgramContext, out: Diagnostic[]): void {
  for (const s of demonstrationSteps(c)) {
    const a = s.answer;
    if (a && !a.missingColon && a.text === '') out.push(diagnostic('empty-answer', a.marker, `\`#${a.number}:\` has no text.`));
  }
}

/** `Ans:` with no `[EOQ]` before it, or a program that simply stops (the reference library has such programs). */
function missingEoq(c: ProgramContext, out: Diagnostic[]): void {
  const p = c.program;
  const eoq = c.eoq;
  if (p.ans) {
    if (eoq && eoq.marker.start < p.ans.marker.start) return;
    const n = nextNumber(p, p.ans.marker.start);
    const at = p.ans.marker.start;
    out.push(
      diagnostic('missing-eoq', p.ans.marker, '`Ans:` comes before any `Qk: [EOQ]`.', {
        fixes: [{ title: `Add \`Q${n}: [EOQ]\``, edits: [{ span: { start: at, end: at }, newText: `Q${n}: [EOQ]\n` }], preferred: true }],
      }),
    );
    return;
  }
  const lastStep = p.steps[p.steps.length - 1];
  // A program that ends at an open `Qk:` (the model writes from there) is a task, not a recording that stops.
  if (eoq || p.template || !lastStep || c.templateSlot) return;
  const end = p.span.end;
  const n = lastStep.number + 1;
  out.push(
    diagnostic('missing-eoq', lastStep.answer ? lastStep.answer.marker : lastStep.marker, 'The program ends without `Qk: [EOQ]` and `Ans:`.', {
      fixes: [
        { title: `Add \`Q${n}: [EOQ]\` and \`Ans:\``, edits: [{ span: { start: end, end }, newText: `\nQ${n}: [EOQ]\nAns: ` }], preferred: true },
      ],
    }),
  );
}

function missingAns(c: ProgramContext, out: Diagnostic[]): void {
  const eoq = c.eoq;
  if (c.program.ans || !eoq) return;
  const at = eoq.span.end;
  out.push(
    diagnostic('missing-ans', eoq.bracketSpan ?? eoq.marker, '`[EOQ]` is not followed by `Ans:`.', {
      fixes: [{ title: 'Add `Ans:`', edits: [{ span: { start: at, end: at }, newText: '\nAns: ' }], preferred: true }],
    }),
  );
}

/** `#k` mentioned where no answer k comes earlier in the same program. */
function unknownReference(c: ProgramContext, out: Diagnostic[]): void {
  for (const r of c.program.references) {
    if (!answerBefore(c.program, r.number, r.span.start))
      out.push(diagnostic('unknown-reference', r.span, `\`#${r.number}\` refers to no earlier answer in this program.`));
  }
}

// Step names repeat across a library; the nearest tool of each name is computed once per catalog version.
const nearestCache = new WeakMap<ToolCatalog, { version: number; byName: Map<string, string | null> }>();

/** The tool whose name is within edit distance 2 of `written` but not equal to it (null when none, or a tool). */
function nearestTool(tools: ToolCatalog, written: string): string | null {
  let cache = nearestCache.get(tools);
  if (!cache || cache.version !== tools.version) nearestCache.set(tools, (cache = { version: tools.version, byName: new Map() }));
  let best = cache.byName.get(written);
  if (best !== undefined) return best;
  best = null;
  const name = normalizeName(written);
  if (name.length >= 4 && !tools.has(name)) {
    const near = nearestName(
      name,
      tools.all().map(t => t.name),
      { fold: normalizeName },
    );
    if (near && near.distance > 0) best = near.name;
  }
  cache.byName.set(written, best);
  return best;
}

function nextNumber(p: Program, before: number): number {
  let n = 0;
  for (const s of p.steps) if (s.marker.start < before) n = Math.max(n, s.number);
  return n + 1;
}

/** Two programs with the same task name and the same input teach the model nothing new. */
/**
 * A number for a program's task name and input, the same for equal ones (FNV-1a over the characters, read in place:
 * no slice to make and hash), or -1 when the duplicate check passes the program by (a template, no input).
 */
export function duplicateKey(text: string, p: Program): number {
  if (p.template || !p.input) return -1;
  let h = 0x811c9dc5;
  const task = p.description?.taskName ?? '';
  for (let i = 0; i < task.length; i++) h = Math.imul(h ^ task.charCodeAt(i), 16777619);
  h = Math.imul(h ^ 0x10000, 16777619); // between the two: not a character
  const { start, end } = p.input.textSpan;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h & 0x3fffffff; // 30 bits: a small integer for V8 (a map keyed by larger numbers boxes each one)
}

/**
 * `duplicate-program`: a program with the task name and input of an earlier one. `keys`, aligned with the programs,
 * are their duplicateKey (the incremental parser keeps them, computed once per program, and `counts`, how many
 * programs have each key: a program whose key no other has is passed by); programs with equal keys are compared by
 * their text.
 */
export function checkDuplicates(doc: ArtDocument, keys?: readonly number[], counts?: ReadonlyMap<number, number>): Diagnostic[] {
  const first = new Map<number, Program>();
  // Programs whose key an earlier, different program had (rare): compared by task name and input text.
  const byText = new Map<string, Program>();
  const out: Diagnostic[] = [];
  const report = (p: Program, earlier: Program) => {
    const task = p.description?.taskName ?? '';
    out.push(
      diagnostic(
        'duplicate-program',
        p.description?.taskNameSpan ?? p.input!.marker,
        task ? `Another program of "${task}" has the same input.` : 'Another program has the same input.',
        { related: [{ span: earlier.input!.marker, message: 'the first program with this input' }] },
      ),
    );
  };
  doc.programs.forEach((p, i) => {
    const key = keys ? keys[i] : duplicateKey(doc.text, p);
    if (key < 0 || (counts && counts.get(key) === 1)) return;
    const earlier = first.get(key);
    if (!earlier) {
      first.set(key, p);
      return;
    }
    const task = p.description?.taskName ?? '';
    const input = p.input!.text;
    if ((earlier.description?.taskName ?? '') === task && earlier.input!.text === input) return report(p, earlier);
    const textKey = `${task}\u0000${input}`;
    const seen = byText.get(textKey);
    if (seen) report(p, seen);
    else byText.set(textKey, p);
  });
  return out;
}
