// A paused run: what it holds while it waits for the user (set together when it pauses, dropped together when it
// resumes), the breakpoints that make it pause, and the text a debugger shows with the stop.
import { normalizeName } from '../art/ast';
import type { Boundary } from '../protocols/runProtocol';
import type { Continuation } from './checkpoints';
import type { Alternative, PauseReason, RunKind, ToolCall } from '../trace/vocabulary';
import type { BreakpointKind, Breakpoints, PauseInfo } from './types';

/** How the user resumes a pause. */
export type Resume = 'continue' | 'step' | 'rewind';

/** A pause at a tool call: the call, before or after its tool, and how its input is edited (before only). */
export interface Pending {
  call: ToolCall;
  phase: 'before' | 'after';
  written: () => string;
  setInput?: (text: string) => void;
}

/** Where a paused run stands. The Runner holds one while paused, none while it runs. */
export interface Hold {
  /** Resumes the run (settles the promise the loop waits on). */
  resume: (how: Resume) => void;
  /** The pause as `Runner.paused` shows it, but its call (`call`, live, so edits made during the pause show). */
  info: Omit<PauseInfo, 'call'>;
  call: ToolCall | undefined;
  /** At a tool call: what may be changed there. */
  pending: Pending | null;
  /** How the run goes on from here (kept in the pause's checkpoint too). */
  continuation: Continuation;
  /** The alternatives offered at this pause (`alternatives(k)`), to choose from. */
  offered: Alternative[] | null;
}

/** Breakpoints as the run compares them: tool names normalised. */
export function normalizeBreakpoints(b: Breakpoints): Required<Breakpoints> {
  return { steps: [...(b.steps ?? [])], states: [...(b.states ?? [])], tools: (b.tools ?? []).map(normalizeName) };
}

/** The breakpoint that holds at a boundary: its agent state's, or its ART step's. */
export function breakpointAt(b: Boundary, breakpoints: Required<Breakpoints>, kind: RunKind): BreakpointKind | undefined {
  // An inline trigger sits inside a step's answer: the step's breakpoint held when its query was complete.
  if (b.inline) return undefined;
  if (b.state !== undefined) return breakpoints.states.includes(b.state) ? 'state' : undefined;
  return kind === 'art' && breakpoints.steps.includes(b.step) ? 'step' : undefined;
}

/** The breakpoint that holds at a call of `tool` at a boundary: the tool's, else the boundary's. */
export function toolBreakpointAt(tool: string, b: Boundary, breakpoints: Required<Breakpoints>, kind: RunKind): BreakpointKind | undefined {
  return breakpoints.tools.includes(normalizeName(tool)) ? 'tool' : breakpointAt(b, breakpoints, kind);
}

/** The text a debugger shows with a stop (DAP `stopped` description). */
export function describePause(reason: PauseReason, call?: ToolCall): string {
  const tool = call ? `[${call.tool}]` : '';
  switch (reason) {
    case 'entry':
      return 'Paused before the first request';
    case 'before-tool':
      return `Paused before tool ${tool}`;
    case 'after-tool':
      return `Tool call ${tool} returned`;
    case 'tool-error':
      return `Tool ${tool} failed: ${call?.error ?? ''} (continue: the model writes the output)`;
    case 'breakpoint':
      return call ? `Breakpoint at tool ${tool}` : 'Breakpoint';
    case 'step':
      return call ? `Step: tool ${tool}` : 'Step';
    case 'pause':
      return 'Paused';
  }
}
