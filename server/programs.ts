// `art/programs`: the runnable units of an open document (the programs of a task library, the agents of a spec)
// from the analysis already made. The client's CodeLenses, dynamic debug configurations and F5 all read this one
// list, so what is offered and what runs cannot disagree. The answer is compact (see ProgramsResult): titles and
// numbers, nothing allocated per program but its title.
import { programTitle, type Program } from '../core/art';
import type { Span } from '../core/common/text';
import type { CancellationToken } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { isArt, slicerFor, target, type ServerContext } from './context';
import type { ProgramsParams, ProgramsResult } from './protocol';

/** Why a program cannot be run, or undefined when it can. */
export function whyNotRunnable(p: Program): string | undefined {
  if (p.template) return 'this is the `%s` prompt template, where a new task is filled in, not a program: run one of the programs above it';
  if (!p.input) return 'this program has no `Input:` line, so there is nothing to run it on: add one';
  return undefined;
}

/** Appends a unit's five numbers: its range, then its header line. */
function pushPositions(out: number[], document: TextDocument, span: Span, headerStart: number): void {
  const start = document.positionAt(span.start);
  const end = document.positionAt(span.end);
  out.push(start.line, start.character, end.line, end.character, document.positionAt(headerStart).line);
}

export async function programs(ctx: ServerContext, params: ProgramsParams, token?: CancellationToken): Promise<ProgramsResult | null> {
  const t = target(ctx, params.textDocument.uri);
  if (!t) return null;
  const slicer = slicerFor(ctx, t, token);
  const { document } = t;
  const titles: string[] = [];
  const positions: number[] = [];
  const notRunnable: Record<string, string> = {};
  if (isArt(t)) {
    const all = t.analysis.doc.programs;
    for (let index = 0; index < all.length; index++) {
      if (slicer.due()) await slicer.pause();
      const p = all[index];
      titles.push(programTitle(p, index));
      pushPositions(positions, document, p.span, (p.description?.marker ?? p.input?.marker ?? p.span).start);
      const why = whyNotRunnable(p);
      if (why) notRunnable[index] = why;
    }
  } else if (t.analysis.kind === 'agent') {
    t.analysis.file.agents.forEach((a, index) => {
      titles.push(a.name || `agent ${index}`);
      pushPositions(positions, document, a.span, a.nameSpan.start);
    });
  }
  return { uri: document.uri, version: document.version, kind: isArt(t) ? 'program' : 'agent', titles, positions, notRunnable };
}
