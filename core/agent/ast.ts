// The meaning of an `.agent` file: agents, their states and their behavior formula, every part with its span.
//
// Flags a state may carry (written `(:flags :env-input ...)`):
//   :env-input   the environment, not the model, supplies this state's text (ReACT's Observation). The runner
//                stops generation when the model reaches such a state and pauses for the tool's output.
//   :tool-name   (ART Studio) the state whose text names the tool to call (ReACT's Act: "[Action] Search").
//   :tool-input  (ART Studio) the state whose text is the tool's input (ReACT's Act-Inp: "[Action Input] Milhouse").
// The two tool flags tell the runner which states carry a tool call; without them it falls back to the states
// just before an :env-input state. Any other flag is reported as `unknown-flag`.
import type { Span } from '../common/text';
import type { SComment, SyntaxProblem } from './sexpr';

export const KNOWN_FLAGS = ['env-input', 'tool-name', 'tool-input'] as const;
export type KnownFlag = (typeof KNOWN_FLAGS)[number];

export interface Flag {
  /** Without the colon: `env-input` for `:env-input`. */
  name: string;
  span: Span;
}

export interface StateDef {
  name: string;
  nameSpan: Span;
  /** The prompt text that opens this state in generated text; '' when missing (a `missing-text` error). */
  text: string;
  /** The string literal, quotes included; null when the state has no `(:text ...)` with a string. */
  textSpan: Span | null;
  flags: Flag[];
  /** The whole `(NAME ...)` form (just the name when a state is written as a bare atom). */
  span: Span;
}

export type FormulaOp = 'next' | 'until' | 'or';

export interface StateRef {
  kind: 'state';
  name: string;
  span: Span;
}

export interface OpFormula {
  kind: FormulaOp;
  /** The operator atom (`next`). */
  opSpan: Span;
  args: Formula[];
  /** Arguments that are not formulas (reported as `syntax`); counted when checking arity. */
  invalidArgs: Span[];
  span: Span;
}

export type Formula = StateRef | OpFormula;

/** A `(:states ...)` or `(:behavior ...)` clause. */
export interface Clause {
  keywordSpan: Span;
  span: Span;
  /** The clause's `)` is missing. */
  closed: boolean;
  /** Nothing but the keyword: `(:behavior)`. */
  empty: boolean;
}

/** Something a checker reports as it stands (shape problems found while reading the tree). */
export interface ParseProblem extends SyntaxProblem {
  code: 'syntax' | 'unknown-keyword';
}

export interface AgentDef {
  /** '' when the define has no name. */
  name: string;
  /** The name atom; the `define` atom when there is no name. */
  nameSpan: Span;
  /** The whole `(define ...)` form. */
  span: Span;
  states: StateDef[];
  statesClause: Clause | null;
  behavior: Formula | null;
  behaviorClause: Clause | null;
}

export interface AgentFile {
  text: string;
  agents: AgentDef[];
  comments: SComment[];
  /** Syntax problems and misplaced keywords, in document order. */
  problems: ParseProblem[];
  /** Lists nest deeper than MAX_NESTING (sexpr.ts): no agent was read; `problems` holds the one diagnostic. */
  tooDeep: boolean;
}

export function hasFlag(state: StateDef, flag: KnownFlag | string): boolean {
  return state.flags.some(f => f.name === flag);
}

/** Every state reference in a formula, left to right. */
export function stateRefs(f: Formula | null, out: StateRef[] = []): StateRef[] {
  if (!f) return out;
  if (f.kind === 'state') out.push(f);
  else for (const a of f.args) stateRefs(a, out);
  return out;
}

/** The formula as an s-expression on one line, e.g. `(next Ques (until Tht Ans))`. */
export function formulaToString(f: Formula): string {
  return f.kind === 'state' ? f.name : `(${f.kind}${f.args.map(a => ` ${formulaToString(a)}`).join('')})`;
}
