// What a protocol reads of a run: the steps as the debugger shows them and how a tool is found by its name.
import type { Span } from '../common/text';
import type { Tool } from '../tools/types';

/** Finds a tool by the name written in the program (`[code execute]`, `[Action] Search`, `<<Calculator>>`). */
export interface ToolLookup {
  get(name: string): Tool | undefined;
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
