// What a run is, what it shows, and what it reports: the vocabulary shared by the Runner, its protocols, the trace
// and the shells (debug adapter, CLI) that drive it.
import type { Span } from '../common/text';
import type { Tool } from '../tools/types';
import type { ModelClient, Usage } from '../model/types';
import type { Constrainer, SentConstraint } from '../protocols/constraints';
import type { MonitorCorrection } from '../agent/monitor';
import type { PromptDemonstration } from '../prompt/promptReport';

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

export type EndReason =
  | 'finished'
  /** `runner.stop()` */
  | 'stopped'
  /** The model stopped before the program or agent was complete. */
  | 'incomplete'
  /** maxRequests or maxCalls reached. */
  | 'limit'
  /** A replay left its recording (an override, an edit) and there is no model to go on with. */
  | 'departed'
  | 'error';

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

export interface RunnerOptions {
  model: ModelClient;
  /** One sample of a self-consistency run (1-based index, of how many): the trace's `run` record says so. */
  sample?: { index: number; of: number };
  tools: ToolLookup;
  /** Model for LLM-backed tools (default: `model`). */
  toolModel?: ModelClient;
  temperature?: number;
  /** Max tokens per request. Default 512. */
  maxTokens?: number;
  /** Safety cap on requests in one run. Default 64. */
  maxRequests?: number;
  /** Safety cap on tool calls in one run. Default 32. */
  maxCalls?: number;
  /** Pause before each tool runs (its input editable). Default false. */
  pauseBeforeTool?: boolean;
  /** Pause after each tool ran (its output overridable). Default true; errors pause even when false if `pauseOnToolError`. */
  pauseAfterTool?: boolean;
  /** Pause when a tool fails or times out, even with pauseAfterTool off. Default true. */
  pauseOnToolError?: boolean;
  stopOnEntry?: boolean;
  breakpoints?: Breakpoints;
  /** Passed to tools as ToolContext.timeoutMs; the runner stops waiting shortly after it (up to a second). */
  toolTimeoutMs?: number;
  /** Timeouts for single tools by name (`{ "code execute": 10000 }`), over `toolTimeoutMs`. */
  toolTimeouts?: Record<string, number>;
  workspaceRoot?: string;
  /** Trace sink (see trace.ts). */
  trace?: TraceSink;
  /** Progress lines (retries, fallbacks) for an output channel; never secrets. */
  log?: (line: string) => void;
  /** Sends decoding constraints with each request (see constraints.ts); none without. */
  constrainer?: Constrainer;
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

/** Where trace records go (TraceWriter writes JSONL; tests collect them in memory). */
export interface TraceSink {
  write(record: TraceRecord): void;
}

export type TraceRecord =
  | {
      t: 'run';
      at: number;
      kind: RunKind;
      model: string;
      honoursStop: boolean;
      prompt: string;
      header: string;
      config: Record<string, unknown>;
      options: Record<string, unknown>;
      /** ART: the demonstrations in the prompt, in order, and why each was chosen. */
      demonstrations?: PromptDemonstration[];
      /** A sample of a self-consistency run: which (1-based) of how many. */
      sample?: { index: number; of: number };
    }
  | {
      t: 'request';
      at: number;
      n: number;
      prompt: string;
      stop: string[];
      maxTokens?: number;
      temperature?: number;
      constraint?: SentConstraint;
      /** The completion is an alternative the user chose (`chooseAlternative`), not sent to the model again. */
      alternative?: number;
    }
  /** The server rejected request n's constraint (HTTP 400): it was sent again without. */
  | { t: 'unconstrained'; at: number; n: number; reason: string }
  | { t: 'chunk'; at: number; n: number; text: string }
  | {
      t: 'completion';
      at: number;
      n: number;
      text: string;
      finishReason?: string;
      usage?: Usage;
      cut?: number;
      dropped?: string;
      aborted?: boolean;
      /** The user paused the run in the middle of this completion (it is not a whole answer). */
      paused?: boolean;
      /** Served from a recorded run (core/replay/cache.ts): no tokens spent. */
      cached?: boolean;
    }
  /** A request an LLM-backed tool made (its own prompt), and the answer. */
  | {
      t: 'toolRequest';
      at: number;
      callId?: number;
      prompt: string;
      stop: string[];
      maxTokens?: number;
      temperature?: number;
      text: string;
      finishReason?: string;
      usage?: Usage;
      cached?: boolean;
    }
  /** `alternatives(k)`: the continuations of the next step the model was asked for, best first. */
  | { t: 'alternatives'; at: number; fromCheckpoint: number; step: number; prompt: string; k: number; alternatives: Alternative[]; usage: Usage }
  /**
   * The run left a future it had (step back, reverse continue, restart frame: the records `from` to `to` - 1 of this
   * trace are that future, the program `text` and `calls` what it had come to; they are not the run's main line), or a
   * continuation it did not take (`alternative`, with its `text`). `fromCheckpoint` is the pause the run went back to, `step` its step.
   */
  | {
      t: 'branch';
      at: number;
      why: BranchReason;
      fromCheckpoint: number;
      step: number;
      from?: number;
      to?: number;
      /** An alternative: its text; a rewind: the program text as it was when the run left it. */
      text?: string;
      nll?: number | null;
      /** A rewind: the calls made or changed since the checkpoint, as they were when the run left them. */
      calls?: ToolCall[];
      /** A search's explored node: its own trace (relative: to this trace's folder), its answer and score. */
      trace?: string;
      answer?: string | null;
      label?: string;
    }
  | { t: 'tool'; at: number; call: ToolCall }
  | { t: 'correction'; at: number; offset: number; found: string | null; expected: string[]; removed: string; inserted: string }
  | { t: 'pause'; at: number; reason: PauseReason; callId?: number; step?: number }
  | { t: 'edit'; at: number; what: 'input' | 'output' | 'skip'; callId: number; text?: string }
  /** From here on the model is the live one: the replay departed from its recording. */
  | { t: 'live'; at: number; callId: number; why: string; model: string }
  /** The run went back to before the change that made it live: the recording answers again. */
  | { t: 'rejoin'; at: number; why: string }
  | { t: 'retry'; at: number; attempt: number; delayMs: number; reason: string }
  | { t: 'end'; at: number; reason: EndReason; answer: string | null; text: string; usage: Usage; requests: number; error?: string }
  /**
   * Self-consistency: the vote once every sample ended (written after `end` into each sample's trace): the most
   * frequent normalised answer of the finished samples, how many gave it, and each sample's answer and trace.
   */
  | {
      t: 'vote';
      at: number;
      answer: string | null;
      agree: number;
      of: number;
      samples: { index: number; answer: string | null; reason: EndReason; trace?: string }[];
    };
