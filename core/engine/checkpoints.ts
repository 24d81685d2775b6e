// Time travel: what a run was at each pause (a checkpoint), kept so that going back to it and resuming is the run as
// it went on from there (step back, reverse continue, restart frame), and the points a search keeps to come back to.
import { normalizeName } from '../art/ast';
import { foldWhitespace, quoteShort } from '../common/text';
import type { MonitorCorrection } from '../agent/monitor';
import type { Usage } from '../model/types';
import type { Boundary, DetectedCall } from '../protocols/runProtocol';
import type { TraceRecord } from '../trace/schema';
import { ProgressBudget } from './progress';
import { ReplyLog, type SavedReplies } from './replyLog';
import type { BranchReason, PauseReason, RunKind, ToolCall } from '../trace/vocabulary';
import type { BreakpointKind, Breakpoints, CheckpointView } from './types';
import type { StepView } from '../protocols/types';

/** What the run has come to: the text generated, the calls and the counts. Each checkpoint keeps a copy. */
export interface Progress {
  written: string;
  /** Boundaries already dealt with, by key (a boundary seen again after more text arrives is not acted on twice). */
  handled: Set<string>;
  calls: ToolCall[];
  usage: Usage;
  requests: number;
  constrainedRequests: number;
  corrections: number;
  /** The corrections made on the way to the text as it stands (as many as `corrections`). */
  correctionLog: MonitorCorrection[];
  /** The text the last cut dropped (a monitor correction reports it as removed). */
  lastDropped: string;
  /** Each request's reasoning and chat repairs (replyLog.ts). */
  replies: ReplyLog;
  /** Requests in a row that added nothing (progress.ts). Not saved: going back to a pause starts the count over. */
  stall: ProgressBudget;
}

export function newProgress(noProgressLimit?: number): Progress {
  return {
    written: '',
    handled: new Set(),
    calls: [],
    usage: { promptTokens: 0, completionTokens: 0 },
    requests: 0,
    constrainedRequests: 0,
    corrections: 0,
    correctionLog: [],
    lastDropped: '',
    replies: new ReplyLog(),
    stall: new ProgressBudget(noProgressLimit),
  };
}

type SavedProgress = Omit<Progress, 'handled' | 'replies' | 'stall'> & { handled: string[]; replies: SavedReplies };

function saveProgress(p: Progress): SavedProgress {
  return {
    written: p.written,
    handled: [...p.handled],
    calls: p.calls.map(c => ({ ...c })),
    usage: { ...p.usage },
    requests: p.requests,
    constrainedRequests: p.constrainedRequests,
    corrections: p.corrections,
    correctionLog: [...p.correctionLog],
    lastDropped: p.lastDropped,
    replies: p.replies.save(),
  };
}

/** Puts a checkpoint's progress back, in place (the run's objects stay the same). */
export function restoreProgress(p: Progress, saved: SavedProgress): void {
  p.written = saved.written;
  p.handled.clear();
  for (const k of saved.handled) p.handled.add(k);
  p.calls.length = 0;
  p.calls.push(...saved.calls.map(c => ({ ...c })));
  p.usage.promptTokens = saved.usage.promptTokens;
  p.usage.completionTokens = saved.usage.completionTokens;
  if (saved.usage.reasoningTokens === undefined) delete p.usage.reasoningTokens;
  else p.usage.reasoningTokens = saved.usage.reasoningTokens;
  p.requests = saved.requests;
  p.constrainedRequests = saved.constrainedRequests;
  p.corrections = saved.corrections;
  p.correctionLog.splice(0, p.correctionLog.length, ...saved.correctionLog);
  p.lastDropped = saved.lastDropped;
  p.replies.restore(saved.replies);
  p.stall.reset();
}

/** What the run does when it resumes from a pause: go on with the loop, past a step boundary, or on with a call. */
export type Continuation =
  { kind: 'loop' } | { kind: 'boundary'; action: Boundary } | { kind: 'call'; callId: number; dc: DetectedCall; phase: 'before' | 'after' };

/** Everything the run was at a pause: restoring it and resuming is the run as it went on from there. */
export interface Checkpoint extends SavedProgress {
  index: number;
  reason: PauseReason;
  phase?: 'before' | 'after';
  breakpoint?: BreakpointKind;
  step: number;
  label?: string;
  callId?: number;
  /** Records of the trace written before the run left this pause (the pause record included). */
  traceAt: number;
  resume: Continuation;
}

/** The run as it stands at a pause (the `index`-th), to come back to. */
export function capture(
  index: number,
  progress: Progress,
  steps: StepView[],
  pause: { reason: PauseReason; call: ToolCall | undefined; phase?: 'before' | 'after'; breakpoint?: BreakpointKind },
  resume: Continuation,
  traceAt: number,
): Checkpoint {
  const { reason } = pause;
  const step =
    resume.kind === 'call'
      ? resume.dc.step
      : resume.kind === 'boundary'
        ? resume.action.step
        : reason === 'entry'
          ? 0
          : (steps[steps.length - 1]?.number ?? 0);
  const label =
    resume.kind === 'call'
      ? (resume.dc.state ?? `Q${resume.dc.step}`)
      : resume.kind === 'boundary'
        ? resume.action.label
        : steps[steps.length - 1]?.label;
  return {
    index,
    reason,
    phase: pause.phase,
    breakpoint: pause.breakpoint,
    step,
    label,
    callId: pause.call?.id,
    ...saveProgress(progress),
    traceAt,
    resume,
  };
}

/**
 * An edit made at a pause (an input, an output set by hand, a skipped tool) belongs to that pause: its checkpoint
 * takes the text and the calls as the edit left them, so going back to this pause finds the run as the user left it
 * and goes on as it did (step back, then continue, is the run stepped back from). Going back before the pause undoes it.
 */
export function keepEdits(cp: Checkpoint, progress: Progress): void {
  cp.written = progress.written;
  cp.calls = progress.calls.map(c => ({ ...c }));
}

/** What going back to a pause keeps of the edits made there, in a sentence (the debugger says it), or undefined. */
export function keptEdits(call: ToolCall | undefined): string | undefined {
  if (!call) return undefined;
  const q = (t: string) => quoteShort(foldWhitespace(t), 60);
  const kept = [
    call.inputEdited ? `the input edited at this stop is kept (${q(call.input)})` : '',
    call.skipped ? 'the tool skipped at this stop stays skipped (the model writes its output)' : '',
    call.override !== undefined
      ? `the output set at this stop is kept (${q(call.override)}${call.output !== undefined ? `; the tool gave ${q(call.output)}` : ''})`
      : '',
  ].filter(Boolean);
  if (!kept.length) return undefined;
  return `Back at ${call.state ?? `Q${call.step}`} [${call.tool}]: ${kept.join(', ')}; the run goes on from it. Change it here, or step back once more to go back before it.`;
}

/** What `checkpointList()` shows of a checkpoint. */
export function checkpointView(c: Checkpoint, headerLength: number): CheckpointView {
  return {
    index: c.index,
    reason: c.reason,
    phase: c.phase,
    step: c.step,
    label: c.label,
    callId: c.callId,
    textLength: headerLength + c.written.length,
  };
}

/** Thrown out of a pause to go back to a checkpoint (step back, reverse continue, restart frame, goTo). */
export class Rewind extends Error {
  constructor(
    readonly to: Checkpoint,
    readonly why: BranchReason,
    /** The pauses before `to` on its own line (`goTo` a point left earlier); default: the run's own, up to `to`. */
    readonly line?: Checkpoint[],
  ) {
    super('rewind');
  }
}

/** The `branch` record of a rewind: the future left (trace records `from` to `to` - 1), its text and the calls it made or changed. */
export function branchLeft(back: Rewind, calls: ToolCall[], text: string, traceCount: number): TraceRecord {
  const cp = back.to;
  const changed = calls.filter(c => {
    const was = cp.calls.find(x => x.id === c.id);
    return !was || JSON.stringify(was) !== JSON.stringify(c);
  });
  return {
    t: 'branch',
    at: Date.now(),
    why: back.why,
    fromCheckpoint: cp.index,
    step: cp.step,
    from: cp.traceAt,
    to: traceCount,
    text,
    calls: changed.map(c => ({ ...c })),
  };
}

/** The checkpoint reverse continue goes back to: the previous pause at a breakpoint (one that holds now, or that stopped the run then), else the start. */
export function reverseContinueTarget(checkpoints: Checkpoint[], breakpoints: Required<Breakpoints>, kind: RunKind): number {
  for (let i = checkpoints.length - 2; i > 0; i--) if (isBreakpointCheckpoint(checkpoints[i], breakpoints, kind)) return i;
  return 0;
}

function isBreakpointCheckpoint(c: Checkpoint, breakpoints: Required<Breakpoints>, kind: RunKind): boolean {
  if (c.reason === 'breakpoint') return true;
  const call = c.callId !== undefined ? c.calls.find(x => x.id === c.callId) : undefined;
  if (call && breakpoints.tools.includes(normalizeName(call.tool))) return true;
  if (call?.inline) return false;
  if (kind === 'agent') return c.label !== undefined && breakpoints.states.includes(c.label);
  return kind === 'art' && breakpoints.steps.includes(c.step);
}

const POINT = Symbol('checkpoints');
/** A pause saved by `savePoint()`, to `goTo` later. Opaque. */
export interface RunPoint {
  readonly [POINT]: unknown;
}

/** A point for the pauses so far (the current one last). */
export function pointOf(checkpoints: Checkpoint[]): RunPoint {
  return { [POINT]: [...checkpoints] } as RunPoint;
}

/** The pauses a point was saved with, or undefined when it is not a point. */
export function checkpointsOf(point: RunPoint): Checkpoint[] | undefined {
  return (point as unknown as Record<typeof POINT, Checkpoint[] | undefined>)[POINT];
}
