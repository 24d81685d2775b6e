// Semantic tokens for what the TextMate grammar cannot know: whether a step name is a tool of the catalog
// (built-in or workspace) or a sub-step the model answers itself, and which atoms of a spec are states.
//
// Legend (documented in docs/other-editors.md):
//   function                  `.art` step name that is a tool; modifier `defaultLibrary` when the tool is built in
//   label                     `.art` step name the model answers (a sub-step, no tool runs)
//   enumMember                `.agent` state name; modifier `declaration` where `:states` defines it
import {
  type CancellationToken,
  SemanticTokensBuilder,
  type SemanticTokens,
  type SemanticTokensLegend,
  type SemanticTokensParams,
  type SemanticTokensRangeParams,
} from 'vscode-languageserver';
import type { Span } from '../core/common/text';
import type { AgentAnalysis } from './analysis';
import { stateRefs } from './agentCore';
import { isEoqName } from './artQuery';
import { toSpan, touches } from './convert';
import { isArt, slicerFor, target, type ServerContext } from './context';

export const TOKEN_TYPES = ['function', 'label', 'enumMember'] as const;
export const TOKEN_MODIFIERS = ['defaultLibrary', 'declaration'] as const;
export const SEMANTIC_LEGEND: SemanticTokensLegend = { tokenTypes: [...TOKEN_TYPES], tokenModifiers: [...TOKEN_MODIFIERS] };

const type = (t: (typeof TOKEN_TYPES)[number]) => TOKEN_TYPES.indexOf(t);
const modifier = (m: (typeof TOKEN_MODIFIERS)[number]) => 1 << TOKEN_MODIFIERS.indexOf(m);

interface Token {
  span: Span;
  type: number;
  modifiers: number;
}

function spansLines(text: string, s: Span): boolean {
  for (let i = s.start; i < s.end; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) return true;
  }
  return false;
}

export async function semanticTokens(
  ctx: ServerContext,
  params: SemanticTokensParams | SemanticTokensRangeParams,
  token?: CancellationToken,
): Promise<SemanticTokens> {
  const empty = { data: [] };
  const t = target(ctx, params.textDocument.uri);
  if (!t) return empty;
  const slicer = slicerFor(ctx, t, token);
  const { document } = t;
  const window: Span = 'range' in params ? toSpan(document, params.range) : { start: 0, end: Number.MAX_SAFE_INTEGER };
  const builder = new SemanticTokensBuilder();
  const text = document.getText();
  const add = (span: Span, type: number, modifiers: number) => {
    if (!touches(span, window) || spansLines(text, span)) return; // names never span lines; be safe
    const start = document.positionAt(span.start);
    builder.push(start.line, start.character, span.end - span.start, type, modifiers);
  };
  if (isArt(t)) {
    // Programs, and their steps, come in document order: each token goes to the builder as it is found (no list
    // of tokens first: a large library has hundreds of thousands).
    const tools = ctx.tools();
    for (const p of t.analysis.doc.programs) {
      if (p.span.end < window.start || p.span.start > window.end) continue;
      if (slicer.due()) await slicer.pause();
      for (const s of p.steps) {
        const name = s.nameSpan;
        if (!name || s.name === null || s.isEoq || isEoqName(s.name) || name.end <= name.start) continue;
        const tool = tools.get(s.name);
        if (tool) add(name, type('function'), tool.origin === 'user' ? 0 : modifier('defaultLibrary'));
        else add(name, type('label'), 0);
      }
    }
    return builder.build();
  }
  const tokens: Token[] = [];
  for (const a of (t.analysis as AgentAnalysis).file.agents) {
    const defined = new Set(a.states.map(s => s.name));
    for (const s of a.states) tokens.push({ span: s.nameSpan, type: type('enumMember'), modifiers: modifier('declaration') });
    for (const r of stateRefs(a.behavior)) if (defined.has(r.name)) tokens.push({ span: r.span, type: type('enumMember'), modifiers: 0 });
  }
  tokens.sort((a, b) => a.span.start - b.span.start);
  for (const tok of tokens) add(tok.span, tok.type, tok.modifiers);
  return builder.build();
}
