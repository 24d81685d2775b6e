// Hover. `.art`: a step name says whether it is a tool (and what the tool does) or a sub-step the model answers;
// `#k` shows the answer it refers to; `#k:` shows its query. `.agent`: a state shows its prompt text and flags;
// operators and clause keywords say what they mean.
import { MarkupKind, type Hover, type HoverParams } from 'vscode-languageserver';
import type { Program } from '../core/art';
import type { AgentAnalysis, ArtAnalysis } from './analysis';
import { stateRefs } from './agentCore';
import { answerBefore, answerMarkerAt, codeBlock, firstLine, isEoqName, programAt, referenceAt, stepNameAt, stepOfAnswer } from './artQuery';
import { stateMarkdown, toolOrigin } from './describe';
import { contains, toRange } from './convert';
import { agentStateAt } from './navigation';
import { isArt, target, type ServerContext } from './context';
import type { Span } from '../core/common/text';
import { plural } from '../core/common/counts';

export function hover(ctx: ServerContext, params: HoverParams): Hover | null {
  const t = target(ctx, params.textDocument.uri);
  if (!t) return null;
  const offset = t.document.offsetAt(params.position);
  const found = isArt(t) ? artHover(ctx, t.analysis, offset) : agentHover(t.analysis as AgentAnalysis, offset);
  if (!found) return null;
  const value = ctx.client.markdownHover ? found.markdown : found.markdown.replace(/\*\*|`{3,}\w*/g, '');
  return { contents: { kind: ctx.client.markdownHover ? MarkupKind.Markdown : MarkupKind.PlainText, value }, range: toRange(t.document, found.span) };
}

interface Found {
  markdown: string;
  span: Span;
}

function queryLine(p: Program, k: number): string | null {
  const s = p.steps.find(st => st.number === k);
  return s ? `Q${s.number}: [${s.name ?? ''}]${s.instruction ? ` ${firstLine(s.instruction, 80)}` : ''}` : null;
}

function artHover(ctx: ServerContext, analysis: ArtAnalysis, offset: number): Found | null {
  const at = programAt(analysis.doc, offset);
  if (!at) return null;
  const { program } = at;

  const step = stepNameAt(program, offset);
  if (step && step.name !== null && step.bracketSpan) {
    const span = step.nameSpan ?? step.bracketSpan;
    if (step.isEoq || isEoqName(step.name)) return { span, markdown: "**[EOQ]**: end of queries. The program's final answer follows on `Ans:`." };
    const tool = ctx.tools().get(step.name);
    if (tool) {
      const origin = toolOrigin(tool);
      return {
        span,
        markdown: `**${tool.name}**: ${origin}. The runner pauses here and runs the tool; its output becomes \`#${step.number}:\`.\n\n${tool.description}\n\n*Input:* ${tool.input}`,
      };
    }
    return {
      span,
      markdown: `**${step.name.trim()}**: a sub-step answered by the model. No tool runs: the model writes \`#${step.number}:\` itself.`,
    };
  }

  const ref = referenceAt(program, offset);
  if (ref) {
    const answer = answerBefore(program, ref.number, ref.span.start);
    if (!answer) return { span: ref.span, markdown: `**#${ref.number}**: no answer ${ref.number} comes earlier in this program.` };
    const q = stepOfAnswer(program, answer) ? queryLine(program, answer.number) : null;
    return {
      span: ref.span,
      markdown: `**#${ref.number}**${q ? `: the answer to \`${q}\`` : ''}\n\n${answer.text ? codeBlock(answer.text) : '*(empty answer)*'}`,
    };
  }

  const marker = answerMarkerAt(program, offset);
  if (marker) {
    const q = stepOfAnswer(program, marker) ? queryLine(program, marker.number) : null;
    return {
      span: marker.marker,
      markdown: q ? `**#${marker.number}**: the answer to \`${q}\`` : `**#${marker.number}**: an answer with no query before it.`,
    };
  }
  return null;
}

const AGENT_WORDS: Record<string, string> = {
  next: '**next**: `(next a b c)` is a, then b, then c. The top-level behavior is a `next`; its first state is the initial state.',
  until: '**until**: `(until a b)` is a zero or more times, then b.',
  or: '**or**: `(or a b ...)` is either a or b.',
};

function agentHover(analysis: AgentAnalysis, offset: number): Found | null {
  const file = analysis.file;
  const agent = file.agents.find(a => contains(a.span, offset));
  if (!agent) return null;
  const state = agentStateAt([agent], offset);
  if (state) {
    const def = agent.states.find(s => s.name === state.name);
    return { span: state.span, markdown: def ? stateMarkdown(def) : `**${state.name}**: not a state of \`${agent.name}\` (add it to \`:states\`).` };
  }
  // Operators of the behavior formula.
  const walk = (f: typeof agent.behavior): Found | null => {
    if (!f || f.kind === 'state') return null;
    if (contains(f.opSpan, offset)) return { span: f.opSpan, markdown: AGENT_WORDS[f.kind] };
    for (const a of f.args) {
      const hit = walk(a);
      if (hit) return hit;
    }
    return null;
  };
  const op = walk(agent.behavior);
  if (op) return op;
  if (contains(agent.nameSpan, offset) && agent.name) {
    const init = agent.behavior && agent.behavior.kind === 'next' ? stateRefs(agent.behavior)[0]?.name : undefined;
    return {
      span: agent.nameSpan,
      markdown: `**${agent.name}**: an agent with ${plural(agent.states.length, 'state')}${init ? `, starting in \`${init}\`` : ''}.`,
    };
  }
  return null;
}
