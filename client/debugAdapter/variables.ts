// What the debugger shows of a paused run: the variables of its scopes (the tool call, the program, the samples of a
// self-consistency run) and the DAP reason of the stop. Plain functions of the runner's state; the session sends them.
import { plural, tokenUsage } from '../../core/common/counts';
import { Scope } from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import type { PreparedRun } from '../../core/launch/session';
import { sampleStates, tally } from '../../core/sampling/samples';
import type { PauseInfo } from '../../core/engine/types';
import type { PauseReason } from '../../core/trace/vocabulary';

export const TOOL_SCOPE = 1;
const PROGRAM_SCOPE = 2;
/** Self-consistency: each sample's answer and the vote. */
const SAMPLES_SCOPE = 3;
/** Thread k's variable references are (k - 1) * SCOPE_STRIDE + scope. */
const SCOPE_STRIDE = 10;

/** The scopes of thread `thread` paused at `p`; `sampled`: a self-consistency run (its samples are a scope). */
export function scopesOf(thread: number, p: PauseInfo | undefined, sampled: boolean): DebugProtocol.Scope[] {
  const base = (thread - 1) * SCOPE_STRIDE;
  const scopes: DebugProtocol.Scope[] = [];
  // Not expensive: VS Code expands the first such scope at a stop (the tool call's, at a tool stop) by itself.
  if (p?.call) scopes.push({ ...new Scope('Tool call', base + TOOL_SCOPE, false), presentationHint: 'locals' });
  if (p) scopes.push(new Scope('Program', base + PROGRAM_SCOPE, false));
  if (p && sampled) scopes.push(new Scope('Samples', base + SAMPLES_SCOPE, false));
  return scopes;
}

/** The thread and the scope a variables reference names. */
export function scopeOfReference(ref: number): { thread: number; scope: number } {
  const thread = Math.floor((ref - 1) / SCOPE_STRIDE) + 1;
  return { thread, scope: ref - (thread - 1) * SCOPE_STRIDE };
}

/** The variables of a scope of `run`, paused at `p`. */
export function scopeVariables(scope: number, run: PreparedRun | undefined, p: PauseInfo | undefined, runs: PreparedRun[]): Variable[] {
  return scope === TOOL_SCOPE
    ? toolVariables(p)
    : scope === PROGRAM_SCOPE
      ? programVariables(run, p)
      : scope === SAMPLES_SCOPE
        ? samplesVariables(runs)
        : [];
}

/** A variable as the Variables view shows it. */
export interface Variable {
  name: string;
  value: string;
  readOnly: boolean;
}

/** The "Tool call" scope: the paused call (its input editable before the tool runs, its output always). */
export function toolVariables(p: PauseInfo | undefined): Variable[] {
  const c = p?.call;
  if (!p || !c) return [];
  const before = p.phase === 'before';
  const vars = [
    { name: 'tool', value: c.tool, readOnly: true },
    { name: 'input', value: c.input, readOnly: !before },
  ];
  if (c.previousAnswer !== undefined) vars.push({ name: 'previous answer', value: c.previousAnswer, readOnly: true });
  vars.push({ name: 'output', value: c.override ?? c.output ?? '', readOnly: false });
  if (c.error !== undefined) vars.push({ name: 'error', value: c.error, readOnly: true });
  vars.push({ name: 'duration', value: c.durationMs !== undefined ? `${c.durationMs} ms` : before ? '(not run yet)' : '', readOnly: true });
  if (c.override !== undefined && c.output !== undefined) vars.push({ name: 'tool output', value: c.output, readOnly: true });
  const reasoning = reasoningOf(p);
  if (reasoning) vars.push({ name: 'reasoning', value: reasoning, readOnly: true });
  // Decoding constraints (issue 12): whether the request that wrote this step was held to the step's syntax or spec.
  vars.push({ name: 'constrained', value: c.constrained ?? 'no (the decoding monitor checks the text)', readOnly: true });
  return vars;
}

/** The "Program" scope: the answers so far (ART) or the states (agents), the tokens and the monitor's corrections. */
export function programVariables(run: PreparedRun | undefined, p: PauseInfo | undefined): Variable[] {
  if (!p || !run) return [];
  const s = p.snapshot;
  const vars: Variable[] = [];
  // At a tool stop the reasoning is the tool call's (its scope); at other stops, the current step's.
  const reasoning = p.call ? undefined : reasoningOf(p);
  if (reasoning) vars.push({ name: 'reasoning', value: reasoning, readOnly: true });
  if (s.kind === 'art') {
    for (const st of s.steps) if (st.answer !== undefined) vars.push({ name: `#${st.label.slice(1)}`, value: st.answer, readOnly: true });
    const ans = run.runner.protocol.answer(s.text.slice(s.generatedFrom));
    if (ans !== null) vars.push({ name: 'Ans', value: ans, readOnly: true });
  } else {
    // States repeat (Thought, Action, ...): the second `Tht` is `Tht (2)`.
    const seen = new Map<string, number>();
    for (const st of s.steps) {
      const n = (seen.get(st.label) ?? 0) + 1;
      seen.set(st.label, n);
      vars.push({ name: n === 1 ? st.label : `${st.label} (${n})`, value: st.text, readOnly: true });
    }
    if (s.agentState) vars.push({ name: 'expected next', value: s.agentState.expected.join(' | '), readOnly: true });
  }
  vars.push({
    name: 'tokens',
    value: `${tokenUsage(s.usage)} in ${plural(s.requests, 'request')}`,
    readOnly: true,
  });
  if (s.kind === 'agent' || s.constrainedRequests > 0)
    vars.push({
      name: 'monitor corrections',
      value: `${s.corrections} (${s.constrainedRequests} of ${s.requests} requests constrained)`,
      readOnly: true,
    });
  return vars;
}

/** What a reasoning model thought while it wrote the paused step (never program text), if it said. */
function reasoningOf(p: PauseInfo): string | undefined {
  const text = p.step?.reasoning?.trim();
  return text || undefined;
}

/** Self-consistency: each sample's answer (so far, or how it ended) and the vote of those that finished. */
export function samplesVariables(runs: PreparedRun[]): Variable[] {
  const states = sampleStates(runs);
  const vars = states.map(st => ({
    name: `sample ${st.index}`,
    value:
      st.reason !== undefined
        ? st.reason === 'finished'
          ? (st.answer ?? '(no answer)')
          : `(${st.reason})${st.answer !== null ? ` ${st.answer}` : ''}`
        : `(${st.state})${st.answer !== null ? ` ${st.answer}` : ''}`,
    readOnly: true,
  }));
  const t = tally(states);
  vars.push({
    name: 'vote',
    value:
      t.answer === null
        ? `(no sample has finished yet: 0 of ${t.of})`
        : `${t.answer} (${t.agree} of ${t.answered} finished, ${t.of} samples${t.answered < t.of ? '; not final' : ''})`,
    readOnly: true,
  });
  return vars;
}

/** DAP stop reasons: `tool call` around tool calls, the breakpoint kind the runner reports, the usual ones otherwise. */
export function stopReason(p: PauseInfo): string {
  const reason: PauseReason = p.reason;
  switch (reason) {
    case 'before-tool':
    case 'after-tool':
    case 'tool-error':
      return 'tool call';
    case 'breakpoint':
      return p.breakpoint === 'tool' ? 'function breakpoint' : 'breakpoint';
    default:
      return reason;
  }
}
