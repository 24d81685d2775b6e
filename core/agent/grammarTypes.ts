// What agent.peggy returns (its `returnTypes` point here): the s-expression leaves and the raw tree, with comments
// and error nodes still in it (sexpr.ts reads it into an SExprFile). Spans are document offsets.
import type { Span } from '../common/text';

export interface SAtom {
  kind: 'atom';
  name: string;
  span: Span;
}

/** `:text` is the keyword named `text`. */
export interface SKeyword {
  kind: 'keyword';
  name: string;
  span: Span;
}

export interface SString {
  kind: 'string';
  /** The value with escapes resolved. */
  value: string;
  /** False when the closing quote is missing (the string then ends at the end of its line). */
  terminated: boolean;
  /** Quotes included. */
  span: Span;
}

/** What the grammar returns: the tree with comments and error nodes still in it. */
export type RawItem =
  | SAtom
  | SKeyword
  | (SString & { problems: { message: string; span: Span }[] })
  | { kind: 'list'; items: RawItem[]; closed: boolean; span: Span }
  | { kind: 'comment'; text: string; span: Span }
  | { kind: 'error'; message: string; span: Span };
