// Folding: programs, multi-line inputs, queries and answers in `.art`; every multi-line form (agents, clauses,
// states, formulas) and comment blocks in `.agent`.
import { FoldingRangeKind, type CancellationToken, type FoldingRange, type FoldingRangeParams } from 'vscode-languageserver';
import type { Span } from '../core/common/text';
import type { AgentAnalysis } from './analysis';
import type { Formula } from './agentCore';
import { isArt, slicerFor, target, type ServerContext } from './context';

export async function foldingRanges(ctx: ServerContext, params: FoldingRangeParams, token?: CancellationToken): Promise<FoldingRange[] | null> {
  const t = target(ctx, params.textDocument.uri);
  if (!t) return null;
  const slicer = slicerFor(ctx, t, token);
  const { document } = t;
  const out: FoldingRange[] = [];
  // Start lines already folded: one range per start line (clients keep only one). Programs do not share lines, so
  // a library's are forgotten program by program (a set of every start line of a large library was most of the time).
  const seen = new Set<number>();
  const limit = ctx.client.foldingRangeLimit ?? Infinity;
  const fold = (s: Span, kind?: FoldingRangeKind) => {
    const start = document.positionAt(s.start).line;
    const endAt = document.positionAt(s.end);
    let end = endAt.line;
    // A span that ends with its line break ends on the previous line.
    if (end > start && endAt.character === 0) end--;
    if (end <= start || seen.has(start)) return;
    seen.add(start);
    out.push(kind ? { startLine: start, endLine: end, kind } : { startLine: start, endLine: end });
  };
  if (isArt(t)) {
    const doc = t.analysis.doc;
    if (doc.preamble) fold(doc.preamble.span, FoldingRangeKind.Comment);
    for (const p of doc.programs) {
      // Ranges come in line order here: past the client's limit the rest would be dropped by the client anyway.
      if (out.length >= limit) break;
      if (slicer.due()) await slicer.pause();
      seen.clear();
      fold(p.span, FoldingRangeKind.Region);
      if (p.description) fold(p.description.span);
      if (p.input) fold(p.input.span);
      for (const s of p.steps) {
        fold(s.span);
        if (s.answer) fold(s.answer.span);
      }
      for (const a of p.strayAnswers) fold(a.span);
      if (p.ans) fold(p.ans.span);
    }
  } else {
    const file = (t.analysis as AgentAnalysis).file;
    // Runs of comment lines.
    let run: Span | null = null;
    for (const c of file.comments) {
      if (run && document.positionAt(c.span.start).line === document.positionAt(run.end).line + 1) run.end = c.span.end;
      else {
        if (run) fold(run, FoldingRangeKind.Comment);
        run = { ...c.span };
      }
    }
    if (run) fold(run, FoldingRangeKind.Comment);
    const formula = (f: Formula | null) => {
      if (!f || f.kind === 'state') return;
      fold(f.span);
      f.args.forEach(formula);
    };
    for (const a of file.agents) {
      fold(a.span, FoldingRangeKind.Region);
      if (a.statesClause) fold(a.statesClause.span);
      for (const s of a.states) fold(s.span);
      if (a.behaviorClause) fold(a.behaviorClause.span);
      formula(a.behavior);
    }
  }
  out.sort((a, b) => a.startLine - b.startLine);
  return out.length > limit ? out.slice(0, limit) : out;
}
