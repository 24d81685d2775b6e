// What a run is, what it shows, and what it reports: the vocabulary shared by the Runner, its protocols, the trace
// and the shells (debug adapter, CLI) that drive it.
import type { Usage } from '../model/types';
import type { MonitorCorrection } from '../agent/monitor';
import type { ReplyRepair } from '../model/chatReply';
import type { StepView } from '../protocols/types';
import type { BranchReason, EndReason, PauseReason, RunKind, ToolCall } from '../trace/vocabulary';

/** A departed replay with no live model was asked for what comes after the departure (core/replay throws it). */
export class DepartedError extends Error {}

export type RunState = 'idle' | 'running' | 'paused' | 'finished';

export interface Snapshot {
  kind: RunKind;
  state: RunState;
  /** The program as it stands: the new task's header (ART), the question (agents) or nothing, then the generated text. */
  text: string;
  /** Offset in `text` where the model's part starts. */
  generatedFrom: number;
  steps: StepView[];
  /** The call being paused at or last made. */
  call?: ToolCall;
  calls: ToolCall[];
  /** Agents: the monitor's current state and the states that may come next. */
  agentState?: { current: string | null; expected: string[] };
  usage: Usage;
  requests: number;
  /** Requests sent with a decoding constraint (and not rejected). */
  constrainedRequests: number;
  /** Times the agent monitor corrected off-spec text. */
  corrections: number;
  /** Agents: the monitor's corrections still in the text (a step back drops those after it). */
  monitorCorrections?: MonitorCorrection[];
  /** A reasoning model's reasoning, by request (never program text, never in a later prompt). */
  reasoning?: RequestReasoning[];
}

/** The reasoning of one request (see replyLog.ts): `at` is where its text starts in the generated text. */
export interface RequestReasoning {
  request: number;
  at: number;
  text: string;
}

/** Which breakpoint a pause at a breakpoint hit. */
export type BreakpointKind = 'step' | 'state' | 'tool';

/** Where a paused run stands, as the runner knows it: shells (the debug adapter, the CLI) only translate it. */
export interface PauseInfo {
  reason: PauseReason;
  /** At a tool call: before the tool runs (input editable, tool skippable) or after it ran (or failed). */
  phase?: 'before' | 'after';
  /** At a breakpoint: the kind that hit (a `Qk:` line, an agent state, a tool name). */
  breakpoint?: BreakpointKind;
  /** The call paused at, with any override or edit made during this pause. */
  call?: ToolCall;
  /** The step paused at: the call's step, else the last step so far. */
  step?: StepView;
  snapshot: Snapshot;
  description: string;
}

export interface RunResult {
  reason: EndReason;
  /** ART `Ans:`, the agent's final state text, or the last line for triggers; null when there is none. */
  answer: string | null;
  snapshot: Snapshot;
  error?: string;
}

export interface Breakpoints {
  /** ART step numbers (pause when `Qk:` is complete, before its answer or tool). */
  steps?: number[];
  /** Agent state names (pause when the state is entered). */
  states?: string[];
  /** Tool names (pause before the tool runs), compared like step names. */
  tools?: string[];
}

/** A pause the run can go back to (step back, reverse continue, restart frame). */
export interface CheckpointView {
  /** 0 is the start of the run (before the first request), whether or not it paused there. */
  index: number;
  reason: PauseReason;
  phase?: 'before' | 'after';
  /** The step paused at (0: the start). */
  step: number;
  label?: string;
  callId?: number;
  /** Length of the program text at the pause. */
  textLength: number;
}

/** What a Runner reports, as it happens (its EventEmitter's events). */
export interface RunnerEvents {
  /** A request is about to be sent. */
  request: [{ n: number; stop: string[]; promptLength: number; at: number }];
  /** Model text arrived (`text` is the program so far, as in Snapshot.text). */
  /** The program text as it stands; `grown`: it is the last `text` event's text followed by `delta`. */
  text: [{ delta: string; text: string; grown: boolean }];
  /** Generated text past a stop point was dropped (a call, a step pause, the end of the program). */
  cut: [{ dropped: string; at: number }];
  /** The agent monitor corrected off-spec text. */
  correction: [{ offset: number; found: string | null; expected: string[]; removed: string; inserted: string }];
  /** A step became complete (ART query, agent state, trigger). */
  step: [{ step: StepView | undefined; label: string; number: number }];
  toolStart: [{ call: ToolCall; at: number }];
  toolEnd: [{ call: ToolCall; at: number }];
  /** A call is over and its output (or the fallback marker) was appended. */
  toolDone: [{ call: ToolCall }];
  paused: [PauseInfo];
  resumed: [{ step: boolean }];
  /**
   * The run went back to a pause (step back, reverse continue, restart frame, goTo): `checkpoint` is its index; `kept`
   * says the edits made at that pause, which it keeps (checkpoints.ts keptEdits), in a sentence.
   */
  rewound: [{ checkpoint: number; step: number; why: BranchReason; kept?: string }];
  /** The user changed the paused call: its input, its output, or skipped the tool. */
  edit: [{ what: 'input' | 'output' | 'skip'; call: ToolCall }];
  retry: [{ attempt: number; delayMs: number; reason: string }];
  /** A chat reply was changed before it joined the program (a restatement dropped, a wrapper unwrapped, ...). */
  repair: [{ n: number; repair: ReplyRepair }];
  /** A reasoning model's reasoning streamed (never program text). */
  reasoning: [{ n: number; delta: string }];
  usage: [{ request: Usage | undefined; total: Usage }];
  end: [RunResult];
}
