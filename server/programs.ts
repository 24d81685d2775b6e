// `art/programs`: the runnable units of an open document (the programs of a task library, the agents of a spec)
// from the analysis already made. The client's CodeLenses, dynamic debug configurations and F5 all read this one
// list, so what is offered and what runs cannot disagree.
import { programTitle, type Program } from '../core/art';
import { toRange } from './convert';
import type { CancellationToken } from 'vscode-languageserver';
import { isArt, slicerFor, target, type ServerContext } from './context';
import type { ProgramInfo, ProgramsParams, ProgramsResult } from './protocol';

/** Why a program cannot be run, or undefined when it can. */
export function whyNotRunnable(p: Program): string | undefined {
  if (p.template) return 'this is the `%s` prompt template, where a new task is filled in, not a program: run one of the programs above it';
  if (!p.input) return 'this program has no `Input:` line, so there is nothing to run it on: add one';
  return undefined;
}

export async function programs(ctx: ServerContext, params: ProgramsParams, token?: CancellationToken): Promise<ProgramsResult | null> {
  const t = target(ctx, params.textDocument.uri);
  if (!t) return null;
  const slicer = slicerFor(ctx, t, token);
  const { document } = t;
  const units: ProgramInfo[] = [];
  if (isArt(t)) {
    const all = t.analysis.doc.programs;
    for (let index = 0; index < all.length; index++) {
      await slicer.tick();
      const p = all[index];
      const header = p.description?.marker ?? p.input?.marker ?? { start: p.span.start, end: p.span.start };
      const unit: ProgramInfo = {
        index,
        kind: 'program',
        title: programTitle(p, index),
        range: toRange(document, p.span),
        headerRange: toRange(document, header),
      };
      const why = whyNotRunnable(p);
      if (why) unit.notRunnable = why;
      units.push(unit);
    }
  } else if (t.analysis.kind === 'agent') {
    t.analysis.file.agents.forEach((a, index) => {
      units.push({
        index,
        kind: 'agent',
        title: a.name || `agent ${index}`,
        range: toRange(document, a.span),
        headerRange: toRange(document, a.nameSpan),
      });
    });
  }
  return { uri: document.uri, version: document.version, programs: units };
}
