// What a run is, what it shows, and what it reports: the vocabulary shared by the Runner, its protocols, the trace
// and the shells (debug adapter, CLI) that drive it.
import type { Span } from '../common/text';
import type { Tool } from '../tools/types';
import type { Usage } from '../model/types';
import type { MonitorCorrection } from '../agent/monitor';
import type { ReplyRepair } from '../model/chatReply';

/** Finds a tool by the name written in the program (`[code execute]`, `[Action] Search`, `<<Calculator>>`). */
export interface ToolLookup {
  get(name: string): Tool | undefined;
}

/** One tool call as the debugger shows it. */
export interface ToolCall {
  /** 1-based, in call order. */
  id: number;
  tool: string;
  /** The input the tool gets (ART: the step's instruction; agents: the tool-input state's text; triggers: the line). */
  input: string;
  /** ART: the previous step's answer (the code `[code execute]` runs, the list `[lookup]` reads). */
  previousAnswer?: string;
  /** ART step number, agent state, or trigger index the call belongs to. */
  step: number;
  state?: string;
  /** What the tool returned (before any override). */
  output?: string;
  error?: string;
  timedOut?: boolean;
  durationMs?: number;
  /** The output the user set instead of the tool's (what the model then sees). */
  override?: string;
  /** The user edited the input before the tool ran. */
  inputEdited?: boolean;
  /** The tool was skipped, or failed: the model wrote the output itself (MultiTool-CoT's fallback). */
  fallback?: boolean;
  skipped?: boolean;
  /** The text appended to the program for this call ('' when the model writes it). */
  appended?: string;
  details?: Record<string, unknown>;
  /** The request that wrote this call was sent with a decoding constraint: the server and form (`vllm regex`). */
  constrained?: string;
  /** ART with inlineTriggers: the call is an inline `<<Tool>>` trigger inside the answer of step `step`. */
  inline?: boolean;
}

/** A step of the run: an ART query and its answer, an agent state and its text, or an inline trigger. */
export interface StepView {
  /** 1-based position in the run. */
  index: number;
  /** The step's number as calls and breakpoints name it: ART's k of `Qk`; agents and triggers: `index`. */
  number: number;
  /** `Q3`, the agent state's name, or `<<Calculator>>`. */
  label: string;
  /** ART step name (`generate python code`), the tool of a trigger, or null. */
  name: string | null;
  /** The query's instruction, the state's text, the trigger line's text. */
  text: string;
  /** ART: the `#k:` answer so far. */
  answer?: string;
  /** The name is a tool the runner calls. */
  tool: boolean;
  /** Where the step sits in `Snapshot.text`. */
  span: Span;
  callId?: number;
  /** What a reasoning model thought while it wrote this step (never program text). */
  reasoning?: string;
}

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

/** The reasoning of one request (see replies.ts): `at` is where its text starts in the generated text. */
export interface RequestReasoning {
  request: number;
  at: number;
  text: string;
}

export type RunKind = 'art' | 'agent' | 'multitool';

export type PauseReason =
  | 'entry'
  | 'step'
  | 'breakpoint'
  | 'pause'
  | 'before-tool'
  | 'after-tool'
  /** After a tool failed or timed out: the error is shown; continuing lets the model write the output. */
  | 'tool-error';

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

/**
 * Why a run ended: `finished`; `stopped` (`runner.stop()`); `incomplete` (the model stopped before the program or
 * agent was complete); `limit` (maxRequests or maxCalls reached); `departed` (a replay left its recording, an override
 * or an edit, and there is no model to go on with); `no-progress` (`noProgressLimit` requests in a row added nothing:
 * empty replies, the same text or monitor correction again); `malformed` (the model's reply does not continue the
 * program: a refusal, prose, a step that does not parse; not written into it); `error`.
 */
export const END_REASONS = ['finished', 'stopped', 'incomplete', 'limit', 'departed', 'no-progress', 'malformed', 'error'] as const;
export type EndReason = (typeof END_REASONS)[number];

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

export type BranchReason = 'step-back' | 'reverse-continue' | 'restart-frame' | 'alternative' | 'search';

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

/** A continuation of the next step (`runner.alternatives(k)`). */
export interface Alternative {
  text: string;
  /** Average negative log-likelihood of its tokens; null when the endpoint returned no logprobs (ranked by vote). */
  nll: number | null;
  /** How many of the k samples wrote this text. */
  votes: number;
  /** Tokens the NLL averages over (when there are logprobs). */
  tokens?: number;
  /**
   * What the run does after streaming it: pause (at a tool call or the next step), end (the program's answer or the
   * agent's end), ask the model for more (an answer cut inside, a monitor correction), or end incomplete.
   */
  then?: 'pause' | 'end' | 'more' | 'incomplete';
}

/** The servers a decoding constraint can be sent to, in the form each reads (core/protocols/constraints.ts). */
export const CONSTRAIN_SERVERS = ['vllm', 'vllm-legacy', 'sglang', 'llama.cpp'] as const;
export type ConstrainServer = (typeof CONSTRAIN_SERVERS)[number];

/** What was sent with one request (traced on the `request` record, shown with the tool call). */
export interface SentConstraint {
  server: ConstrainServer;
  form: 'regex' | 'grammar';
  /** The regex, or the grammar (GBNF for llama.cpp and vLLM, the same text as EBNF for SGLang). */
  text: string;
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
  /** The run went back to a pause (step back, reverse continue, restart frame, goTo): `checkpoint` is its index. */
  rewound: [{ checkpoint: number; step: number; why: BranchReason }];
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
