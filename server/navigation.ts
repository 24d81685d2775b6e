// Go to definition and find references. `.art`: `#k` to its answer (the `#k:` line), and from an answer (or its
// `Qk:`) to every `#k` that means it. `.agent`: a state name to its definition in `:states`, and to its uses.
import type { Definition, DefinitionParams, Location, LocationLink, ReferenceParams } from 'vscode-languageserver';
import type { Answer, Program } from '../core/art';
import type { Span } from '../core/common/text';
import type { AgentAnalysis } from './analysis';
import { stateRefs, type AgentDef } from './agentCore';
import { answerBefore, answerMarkerAt, programAt, referenceAt, referencesTo, stepMarkerAt } from './artQuery';
import { contains, toRange } from './convert';
import { isArt, target, type ServerContext } from './context';

export function definition(ctx: ServerContext, params: DefinitionParams): Definition | LocationLink[] | null {
  const t = target(ctx, params.textDocument.uri);
  if (!t) return null;
  const { document } = t;
  const offset = document.offsetAt(params.position);
  const link = (origin: Span, full: Span, selection: Span): Definition | LocationLink[] =>
    ctx.client.definitionLinks
      ? [
          {
            originSelectionRange: toRange(document, origin),
            targetUri: document.uri,
            targetRange: toRange(document, full),
            targetSelectionRange: toRange(document, selection),
          },
        ]
      : { uri: document.uri, range: toRange(document, selection) };

  if (isArt(t)) {
    const at = programAt(t.analysis.doc, offset);
    if (!at) return null;
    const ref = referenceAt(at.program, offset);
    if (!ref) return null;
    const answer = answerBefore(at.program, ref.number, ref.span.start);
    return answer ? link(ref.span, answer.span, answer.marker) : null;
  }
  const found = agentStateAt((t.analysis as AgentAnalysis).file.agents, offset);
  if (!found) return null;
  const def = found.agent.states.find(s => s.name === found.name);
  return def ? link(found.span, def.span, def.nameSpan) : null;
}

export function references(ctx: ServerContext, params: ReferenceParams): Location[] | null {
  const t = target(ctx, params.textDocument.uri);
  if (!t) return null;
  const { document } = t;
  const offset = document.offsetAt(params.position);
  const loc = (s: Span): Location => ({ uri: document.uri, range: toRange(document, s) });
  const withDecl = params.context?.includeDeclaration ?? true;

  if (isArt(t)) {
    const at = programAt(t.analysis.doc, offset);
    if (!at) return null;
    const answer = answerUnder(at.program, offset);
    if (!answer) return null;
    const spans = referencesTo(at.program, answer).map(r => r.span);
    if (withDecl) spans.unshift(answer.marker);
    return spans.map(loc);
  }
  const found = agentStateAt((t.analysis as AgentAnalysis).file.agents, offset);
  if (!found) return null;
  const spans: Span[] = [];
  const def = found.agent.states.find(s => s.name === found.name);
  if (def && withDecl) spans.push(def.nameSpan);
  for (const r of stateRefs(found.agent.behavior)) if (r.name === found.name) spans.push(r.span);
  return spans.map(loc);
}

/** The answer meant at `offset`: a `#k` mention, a `#k:` marker, or a `Qk:` marker (its answer). */
function answerUnder(program: Program, offset: number): Answer | null {
  const ref = referenceAt(program, offset);
  if (ref) return answerBefore(program, ref.number, ref.span.start);
  const marker = answerMarkerAt(program, offset);
  if (marker) return marker;
  return stepMarkerAt(program, offset)?.answer ?? null;
}

/** A state name under `offset`: in `:states` or in the behavior. */
export function agentStateAt(agents: AgentDef[], offset: number): { agent: AgentDef; name: string; span: Span } | null {
  const agent = agents.find(a => contains(a.span, offset));
  if (!agent) return null;
  for (const s of agent.states) if (contains(s.nameSpan, offset)) return { agent, name: s.name, span: s.nameSpan };
  for (const r of stateRefs(agent.behavior)) if (contains(r.span, offset)) return { agent, name: r.name, span: r.span };
  return null;
}
