// The run's words that the trace records: tool calls, why a run paused, ended or branched, the alternatives of a
// step, the decoding constraint a request was sent with, and the demonstrations of the prompt with why each was chosen.
// The lowest room that uses them: the engine, its protocols, the prompt report and the shells import them from here.

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

/**
 * Why a run ended: `finished`; `stopped` (`runner.stop()`); `incomplete` (the model stopped before the program or
 * agent was complete); `limit` (maxRequests or maxCalls reached); `departed` (a replay left its recording, an override
 * or an edit, and there is no model to go on with); `no-progress` (`noProgressLimit` requests in a row added nothing:
 * empty replies, the same text or monitor correction again); `malformed` (the model's reply does not continue the
 * program: a refusal, prose, a step that does not parse; not written into it); `error`.
 */
export const END_REASONS = ['finished', 'stopped', 'incomplete', 'limit', 'departed', 'no-progress', 'malformed', 'error'] as const;
export type EndReason = (typeof END_REASONS)[number];

export type BranchReason = 'step-back' | 'reverse-continue' | 'restart-frame' | 'alternative' | 'search';

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

/** Why a demonstration is in the prompt: the strategy that chose it and what decided it. */
export type SelectionWhy =
  /** Every program of the library being run (ART's task clusters are files). */
  | { strategy: 'same-file' }
  /**
   * Lexical similarity to the new task (BM25 over task name, description and input): `score` and the document's terms
   * the task shares; `rank` 1 is the best. `rank` null: no shared term ranked it, it fills the prompt up to k in file order.
   */
  | { strategy: 'similar'; score: number; terms: string[]; rank: number | null }
  /**
   * The model judged its task similar: `pYes` the probability of "Yes" (from `logprob`, the log-probability of the
   * first answer token, where the endpoint returned one; else 1 or 0 from the answer alone) and the `answer` it gave.
   */
  | { strategy: 'llm'; pYes: number; answer: string; logprob: number | null }
  /** Its file (`file`, a path) answered the most labelled examples of the task: `correct` of `tried`. */
  | { strategy: 'best-cluster'; file: string; correct: number; tried: number };

/** A demonstration as the trace and the report keep it. */
export interface PromptDemonstration {
  /** The library file it comes from (absolute path), when known. */
  file?: string;
  /** The program's index in that file (0-based). */
  index: number;
  /** The program's title (its task name, or the first words of its input). */
  title: string;
  /** The 1-based line where the program starts in its file. */
  line: number;
  why?: SelectionWhy;
}
