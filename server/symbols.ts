// Outline. `.art`: one symbol per program (its task name) with its steps as children (programs only in a very
// large library, see OUTLINE_MAX_STEPS). `.agent`: one symbol per
// agent with its states and its behavior as children.
import { SymbolKind, type CancellationToken, type DocumentSymbol, type DocumentSymbolParams, type SymbolInformation } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { programTitle, type ArtDocument } from '../core/art';
import type { Span } from '../core/common/text';
import type { AgentAnalysis } from './analysis';
import { formulaToString, type AgentFile } from './agentCore';
import { firstLine, isEoqName } from './artQuery';
import { toRange } from './convert';
import { isArt, slicerFor, target, type ServerContext, type Target } from './context';
import type { WorkSlicer } from './guard';
import { plural } from '../core/common/counts';

export async function documentSymbols(
  ctx: ServerContext,
  params: DocumentSymbolParams,
  token?: CancellationToken,
): Promise<DocumentSymbol[] | SymbolInformation[] | null> {
  const t = target(ctx, params.textDocument.uri);
  if (!t) return null;
  const symbols = isArt(t)
    ? await artSymbols(ctx, t.document, t.analysis.doc, slicerFor(ctx, t, token))
    : agentSymbols(t.document, (t.analysis as AgentAnalysis).file);
  return ctx.client.hierarchicalSymbols ? symbols : flatten(t, symbols);
}

function symbol(
  document: TextDocument,
  name: string,
  kind: SymbolKind,
  span: Span,
  selection: Span,
  detail?: string,
  children?: DocumentSymbol[],
): DocumentSymbol {
  // The selection range must lie inside the range.
  const sel = selection.start >= span.start && selection.end <= span.end ? selection : { start: span.start, end: span.start };
  return { name: name || ' ', detail, kind, range: toRange(document, span), selectionRange: toRange(document, sel), children };
}

/**
 * Above this many steps in a library the outline lists its programs without their steps: a whole outline of a large
 * library took seconds to build and send (docs/performance.md), and nobody reads it step by step.
 */
export const OUTLINE_MAX_STEPS = 20_000;

async function artSymbols(ctx: ServerContext, document: TextDocument, doc: ArtDocument, slicer: WorkSlicer): Promise<DocumentSymbol[]> {
  const tools = ctx.tools();
  let total = 0;
  for (const p of doc.programs) total += p.steps.length;
  const withSteps = total <= OUTLINE_MAX_STEPS;
  const out: DocumentSymbol[] = [];
  for (let i = 0; i < doc.programs.length; i++) {
    if (slicer.due()) await slicer.pause();
    const p = doc.programs[i];
    const steps = !withSteps
      ? undefined
      : p.steps.map(s => {
          const end = s.answer ? Math.max(s.span.end, s.answer.span.end) : s.span.end;
          const eoq = s.isEoq || isEoqName(s.name);
          const isTool = s.name !== null && !eoq && tools.has(s.name);
          return symbol(
            document,
            `Q${s.number}: [${s.name ?? ''}]`,
            eoq ? SymbolKind.Constant : isTool ? SymbolKind.Function : SymbolKind.Event,
            { start: s.span.start, end },
            s.bracketSpan ?? s.marker,
            eoq ? 'end of queries' : `${isTool ? 'tool' : 'model'}${s.instruction ? ` · ${firstLine(s.instruction, 50)}` : ''}`,
          );
        });
    const header = p.description ?? p.input;
    const selection = p.description?.taskNameSpan ?? header?.marker ?? p.span;
    const detail = p.template ? 'prompt template' : plural(p.steps.length, 'step');
    out.push(symbol(document, programTitle(p, i), SymbolKind.Module, p.span, selection, detail, steps));
  }
  return out;
}

function agentSymbols(document: TextDocument, file: AgentFile): DocumentSymbol[] {
  return file.agents.map(a => {
    const children: DocumentSymbol[] = a.states.map(s =>
      symbol(
        document,
        s.name,
        SymbolKind.EnumMember,
        s.span,
        s.nameSpan,
        [s.text && JSON.stringify(s.text), ...s.flags.map(f => `:${f.name}`)].filter(Boolean).join(' '),
      ),
    );
    if (a.behaviorClause) {
      children.push(
        symbol(
          document,
          'behavior',
          SymbolKind.Property,
          a.behaviorClause.span,
          a.behaviorClause.keywordSpan,
          a.behavior ? firstLine(formulaToString(a.behavior), 80) : undefined,
        ),
      );
    }
    return symbol(document, a.name || '(unnamed agent)', SymbolKind.Class, a.span, a.nameSpan, `${a.states.length} states`, children);
  });
}

/** For clients without hierarchical outlines: every symbol with its container's name. */
function flatten(t: Target, symbols: DocumentSymbol[]): SymbolInformation[] {
  const out: SymbolInformation[] = [];
  const walk = (list: DocumentSymbol[], container?: string) => {
    for (const s of list) {
      out.push({ name: s.name, kind: s.kind, location: { uri: t.document.uri, range: s.range }, containerName: container });
      if (s.children) walk(s.children, s.name);
    }
  };
  walk(symbols);
  return out;
}
