// `art/programs`: each program's title, range and steps, for the client's CodeLenses ("Run", "Debug") and the
// runner, which start from a program's position in the file.
import { programTitle } from '../core/art';
import { isEoqName } from './artQuery';
import { toRange } from './convert';
import { isArt, target, type ServerContext } from './context';
import type { ProgramsParams, ProgramsResult } from './protocol';

export function programs(ctx: ServerContext, params: ProgramsParams): ProgramsResult | null {
  const t = target(ctx, params.textDocument.uri);
  if (!t || !isArt(t)) return null;
  const { document, analysis } = t;
  const tools = ctx.tools();
  // Error starts in order, swept once alongside the programs (a large library has thousands of both).
  const errorsAt = analysis.diagnostics.filter((d) => d.severity === 'error').map((d) => d.span.start).sort((a, b) => a - b);
  let e = 0;
  const errorsIn = (start: number, end: number) => {
    while (e < errorsAt.length && errorsAt[e] < start) e++;
    let n = 0;
    while (e + n < errorsAt.length && errorsAt[e + n] <= end) n++;
    return n;
  };
  return {
    uri: document.uri,
    version: document.version,
    programs: analysis.doc.programs.map((p, index) => {
      const header = p.description?.marker ?? p.input?.marker ?? { start: p.span.start, end: p.span.start };
      return {
        index,
        title: programTitle(p, index),
        range: toRange(document, p.span),
        headerRange: toRange(document, header),
        template: p.template,
        errors: errorsIn(p.span.start, p.span.end),
        steps: p.steps.map((s) => {
          const eoq = s.isEoq || isEoqName(s.name);
          return {
            number: s.number,
            name: s.name,
            isTool: s.name !== null && !eoq && tools.has(s.name),
            isEoq: eoq,
            range: toRange(document, { start: s.span.start, end: Math.max(s.span.end, s.answer?.span.end ?? 0) }),
            nameRange: s.bracketSpan ? toRange(document, s.bracketSpan) : null,
          };
        }),
      };
    }),
  };
}
