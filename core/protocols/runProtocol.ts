// What differs between the three kinds of run (ART programs, agent specs, MultiTool-CoT triggers): where a step or
// a tool call is complete in the text the model writes, which stop sequences end a request there, and what text
// the runner appends to resume. The Runner drives any RunProtocol the same way.
import type { Constraint } from '../agent/constrain';
import type { Span } from '../common/text';
import type { PromptDemonstration } from '../trace/vocabulary';
import type { RunKind } from '../trace/vocabulary';
import type { StepView } from './types';

/** A tool call found in the generated text. */
export interface DetectedCall {
  /** The tool's name as written. */
  tool: string;
  input: string;
  /** Where the input sits in the generated text (what `setToolInput` replaces). */
  inputSpan: Span;
  previousAnswer?: string;
  answers?: ReadonlyMap<number, string>;
  step: number;
  state?: string;
  /** An inline `<<Tool>>` trigger inside an answer the model writes in an ART program (the option inlineTriggers). */
  inline?: boolean;
}

/** A step is complete: an ART query before its answer, an agent state entered, a `<<Tool>>` trigger closed. */
export interface Boundary {
  type: 'boundary';
  /** Stable across re-scans of the same text, so the runner handles each boundary once. */
  key: string;
  /** Where generation stops if the runner stops here (offset in the generated text). */
  cut: number;
  step: number;
  label: string;
  state?: string;
  /** An inline trigger inside an ART answer: not an ART step of its own, so a step breakpoint does not hold here. */
  inline?: boolean;
  /** Set when the step is a tool call: the runner must stop here. */
  call?: DetectedCall;
}

/** The agent monitor found off-spec text: cut there and append the valid continuation prefix. */
export interface Correction {
  type: 'correction';
  key: string;
  cut: number;
  insert: string;
  found: string | null;
  expected: string[];
}

/** The program or agent run is complete; text past `cut` belongs to something else. */
export interface End {
  type: 'end';
  key: string;
  cut: number;
}

export type Detection = Boundary | Correction | End;

export type StreamEndAction =
  | Detection
  /** Send another request after appending `append` (e.g. `\n#` after a stop inside an answer, or nothing after `length`). */
  | { type: 'continue'; append: string }
  | { type: 'incomplete'; message: string }
  /** The model's text from `cut` on does not continue the program: it is dropped and the run ends (`malformed`). */
  | { type: 'malformed'; cut: number; message: string };

export interface RunProtocol {
  readonly kind: RunKind;
  /** Everything before the generated text. */
  readonly prompt: string;
  /** The end of the prompt that belongs to the run's own program (ART: `Description:`/`Input:`/`Q1:`). */
  readonly header: string;
  /**
   * Stop sequences for the next request, which continues `written` (sent only to endpoints that honour them).
   * Called right before each request: a protocol may keep which stops the latest request had (see atStreamEnd).
   */
  stops(written: string): string[];
  /**
   * Detections in the generated text so far, in text order (called after every chunk). `added`: the runner's calls
   * after a chunk, within one request: `written` is the text of the previous detect() call followed by `added`, and
   * the protocol reads only `added` and what it kept (reading the whole text at every chunk costs the square of its
   * length; V8 copies a string grown by appending to read it). Without it, any text.
   */
  detect(written: string, added?: string): Detection[];
  /** The stream ended without a detection having stopped it. `stopsSent`: the endpoint was given stop sequences. */
  atStreamEnd(written: string, finishReason: string | undefined, stopsSent: boolean): StreamEndAction;
  /** Text to append after stopping at a boundary that is not a call, so the model goes on with the step. */
  resumeAfter(written: string, b: Boundary): string;
  /** Text to append after a call: its output, or (output null) what lets the model write the output itself. */
  appendOutput(written: string, call: DetectedCall, output: string | null): string;
  steps(written: string): StepView[];
  answer(written: string): string | null;
  /** ART: the demonstrations in the prompt and why each was chosen (the trace's `run` record keeps them). */
  readonly demonstrations?: PromptDemonstration[];
  /** What, besides prompt and header, rebuilds this protocol from a trace (see trace.ts). JSON only. */
  readonly traceConfig: Record<string, unknown>;
  /** Agents only: the monitor's current state and the states that may follow. */
  agentState?(written: string): { current: string | null; expected: string[] };
  /**
   * Whether the text the latest request wrote (from `from` on) continues the program, read by the language's own
   * step syntax: the first place it does not (where to cut, and one line that quotes it and says what was
   * expected), or null. `final`: the stream has ended (an unfinished last line is judged too). Called after every
   * chunk, right after detect() with the same text: what that read is what it reads.
   */
  checkContinuation?(written: string, from: number, final: boolean): { cut: number; message: string } | null;
  /** What the model may write in the next request (see constraints.ts), or null where the protocol has none to give. */
  constraint?(written: string): Constraint | null;
}

/** The generated text with a call's input replaced (the input sits at `inputSpan`). */
export function replaceInput(written: string, call: DetectedCall, input: string): string {
  return written.slice(0, call.inputSpan.start) + input + written.slice(call.inputSpan.end);
}
