// The `.art` checks: every diagnostic code of DESIGN.md, each with the smallest range that shows the problem and,
// where one is named, the fix as core text edits (the language server only exposes them).
import type { Diagnostic, Fix } from '../common/diagnostics';
import { sortDiagnostics } from '../common/diagnostics';
import { editDistance, type Span } from '../common/text';
import type { Answer, ArtDocument, Program, Step } from './ast';
import { normalizeName } from './ast';
import { ToolCatalog } from './knownTools';
import { renumberFix } from './renumber';

export interface CheckOptions {
  /** Tool names for `tool-name-typo`; the built-in ART tools when absent. */
  tools?: ToolCatalog;
}

const defaultCatalog = new ToolCatalog();

export function checkArt(doc: ArtDocument, opts: CheckOptions = {}): Diagnostic[] {
  const tools = opts.tools ?? defaultCatalog;
  const out: Diagnostic[] = [];
  for (const p of doc.programs) out.push(...checkProgram(doc.text, p, tools));
  out.push(...checkDuplicates(doc));
  return sortDiagnostics(out);
}

/** Checks that look at one program only (the incremental path caches these per program text). */
export function checkProgram(text: string, p: Program, tools: ToolCatalog): Diagnostic[] {
  const out: Diagnostic[] = [];
  const lineEnd = (offset: number) => {
    let e = offset;
    while (e < text.length && text.charCodeAt(e) !== 10 && text.charCodeAt(e) !== 13) e++;
    return e;
  };
  const templateSlot = p.template ? p.steps[p.steps.length - 1] : null;

  if (!p.input && !p.template) {
    const first = { start: p.span.start, end: lineEnd(p.span.start) };
    out.push({ code: 'missing-input', severity: 'error', message: 'This program has no `Input:` line.', span: first });
  }

  // Order of query numbers: each query should be one more than the step before it (a stray `#k:` counts as step k,
  // so one missing `Qk:` yields one diagnostic, not one per later step).
  // Steps and stray answers in document order (stray answers are rare: only then is a merged list built).
  const items: (Step | Answer)[] = p.strayAnswers.length
    ? [...p.steps, ...p.strayAnswers].sort((a, b) => a.marker.start - b.marker.start)
    : p.steps;
  let expected = 1;
  let eoq: Step | null = null;
  let outOfOrderReported = false;
  for (const item of items) {
    if (!('isEoq' in item)) {
      const a = item;
      if (eoq) out.push(afterEoq(a.marker, `\`#${a.number}:\``, eoq));
      else
        out.push({
          code: 'answer-without-query',
          severity: 'error',
          message: `\`#${a.number}:\` answers no query: there is no \`Q${a.number}:\` before it.`,
          span: a.marker,
        });
      expected = Math.max(expected, a.number + 1);
      continue;
    }
    const s = item;
    if (eoq) out.push(afterEoq(s.marker, `\`Q${s.number}:\``, eoq));
    if (s.number !== expected && !outOfOrderReported) {
      outOfOrderReported = true;
      out.push({
        code: 'step-out-of-order',
        severity: 'error',
        message: `Step Q${s.number} is out of order: expected Q${expected}.`,
        span: s.numberSpan,
        fixes: [renumberFix(p)],
      });
    }
    expected = s.number + 1;
    if (s.isEoq && !eoq) eoq = s;
  }

  for (const s of p.steps) {
    if (s === templateSlot) continue;
    checkQuery(s, out, tools, lineEnd);
    const a = s.answer;
    if (a) {
      if (a.missingColon) {
        out.push({
          code: 'missing-answer',
          severity: 'error',
          message: `\`#${a.number}\` has no colon, so Q${s.number} has no answer: write \`#${a.number}:\`.`,
          span: a.marker,
          fixes: [{ title: `Add the colon: \`#${a.number}:\``, edits: [{ span: { start: a.numberSpan.end, end: a.numberSpan.end }, newText: ':' }], preferred: true }],
        });
      } else if (a.number !== s.number) {
        out.push({
          code: 'answer-mismatch',
          severity: 'error',
          message: `\`#${a.number}:\` follows Q${s.number}: the answer should be \`#${s.number}:\`.`,
          span: a.numberSpan,
          fixes: [{ title: `Change to #${s.number}`, edits: [{ span: a.numberSpan, newText: String(s.number) }], preferred: true }],
        });
      }
      if (!a.missingColon && a.text === '') {
        out.push({ code: 'empty-answer', severity: 'warning', message: `\`#${a.number}:\` has no text.`, span: a.marker });
      }
    } else if (!s.isEoq && s.nameSpan !== null) {
      const at = s.span.end;
      out.push({
        code: 'missing-answer',
        severity: 'error',
        message: `Q${s.number} has no answer \`#${s.number}:\`.`,
        span: s.marker,
        fixes: [{ title: `Add \`#${s.number}:\``, edits: [{ span: { start: at, end: at }, newText: `\n#${s.number}: ` }], preferred: true }],
      });
    }
  }

  // [EOQ] and Ans:
  const lastStep = p.steps[p.steps.length - 1];
  if (p.ans) {
    if (!eoq || eoq.marker.start > p.ans.marker.start) {
      const n = nextNumber(p, p.ans.marker.start);
      out.push({
        code: 'missing-eoq',
        severity: 'error',
        message: '`Ans:` comes before any `Qk: [EOQ]`.',
        span: p.ans.marker,
        fixes: [{ title: `Add \`Q${n}: [EOQ]\``, edits: [{ span: { start: p.ans.marker.start, end: p.ans.marker.start }, newText: `Q${n}: [EOQ]\n` }], preferred: true }],
      });
    }
  } else if (eoq) {
    const at = eoq.span.end;
    out.push({
      code: 'missing-ans',
      severity: 'error',
      message: '`[EOQ]` is not followed by `Ans:`.',
      span: eoq.bracketSpan ?? eoq.marker,
      fixes: [{ title: 'Add `Ans:`', edits: [{ span: { start: at, end: at }, newText: '\nAns: ' }], preferred: true }],
    });
  } else if (!p.template && lastStep) {
    // The program simply stops: neither `[EOQ]` nor `Ans:` (the reference library has such programs).
    const end = p.span.end;
    const n = lastStep.number + 1;
    out.push({
      code: 'missing-eoq',
      severity: 'error',
      message: 'The program ends without `Qk: [EOQ]` and `Ans:`.',
      span: lastStep.answer ? lastStep.answer.marker : lastStep.marker,
      fixes: [{ title: `Add \`Q${n}: [EOQ]\` and \`Ans:\``, edits: [{ span: { start: end, end }, newText: `\nQ${n}: [EOQ]\nAns: ` }], preferred: true }],
    });
  }

  // References to answers that do not exist yet.
  for (const r of p.references) {
    if (!answerBefore(p, r.number, r.span.start)) {
      out.push({
        code: 'unknown-reference',
        severity: 'warning',
        message: `\`#${r.number}\` refers to no earlier answer in this program.`,
        span: r.span,
      });
    }
  }
  return out;
}

function afterEoq(span: Span, what: string, eoq: Step): Diagnostic {
  return {
    code: 'eoq-not-last',
    severity: 'error',
    message: `${what} comes after \`Q${eoq.number}: [EOQ]\`; [EOQ] must end the queries.`,
    span,
    related: [{ span: eoq.marker, message: 'the program ends its queries here' }],
  };
}

function checkQuery(s: Step, out: Diagnostic[], tools: ToolCatalog, lineEnd: (o: number) => number): void {
  if (s.nameSpan === null || s.unclosedBracket || (s.name ?? '').trim() === '') {
    const why = s.nameSpan === null ? 'has no `[name]`' : s.unclosedBracket ? 'has an unclosed `[`' : 'has an empty name `[]`';
    out.push({
      code: 'malformed-query',
      severity: 'error',
      message: `Q${s.number} ${why}: write \`Q${s.number}: [tool or sub-step] instruction\`.`,
      span: { start: s.marker.start, end: s.bracketSpan ? s.bracketSpan.end : lineEnd(s.marker.start) },
    });
    return;
  }
  if (s.isEoq) return;
  const best = nearestTool(tools, s.name!);
  if (best) {
    const fix: Fix = { title: `Use the tool \`${best}\``, edits: [{ span: s.nameSpan, newText: best }], preferred: true };
    out.push({
      code: 'tool-name-typo',
      severity: 'warning',
      message: `\`[${s.name!.trim()}]\` is not a tool; did you mean \`[${best}]\`? As written, the model answers this step itself.`,
      span: s.nameSpan,
      fixes: [fix],
    });
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
    let bestDistance = 3;
    for (const t of tools.all()) {
      const d = editDistance(name, normalizeName(t.name), 2);
      if (d > 0 && d < bestDistance) {
        best = t.name;
        bestDistance = d;
      }
    }
  }
  cache.byName.set(written, best);
  return best;
}

function answerBefore(p: Program, k: number, offset: number): boolean {
  for (const s of p.steps) if (s.answer && s.answer.number === k && s.answer.marker.start < offset) return true;
  for (const a of p.strayAnswers) if (a.number === k && a.marker.start < offset) return true;
  return false;
}

function nextNumber(p: Program, before: number): number {
  let n = 0;
  for (const s of p.steps) if (s.marker.start < before) n = Math.max(n, s.number);
  return n + 1;
}

/** Two programs with the same task name and the same input teach the model nothing new. */
export function checkDuplicates(doc: ArtDocument): Diagnostic[] {
  // task name -> input text -> first program (nested maps: no concatenated keys to build and hash).
  const seen = new Map<string, Map<string, Program>>();
  const out: Diagnostic[] = [];
  for (const p of doc.programs) {
    if (p.template || !p.input) continue;
    const task = p.description?.taskName ?? '';
    let byInput = seen.get(task);
    if (!byInput) seen.set(task, (byInput = new Map()));
    const first = byInput.get(p.input.text);
    if (!first) {
      byInput.set(p.input.text, p);
      continue;
    }
    out.push({
      code: 'duplicate-program',
      severity: 'warning',
      message: task ? `Another program of "${task}" has the same input.` : 'Another program has the same input.',
      span: p.description?.taskNameSpan ?? p.input.marker,
      related: [{ span: first.input!.marker, message: 'the first program with this input' }],
    });
  }
  return out;
}
