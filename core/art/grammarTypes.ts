// What head.peggy returns (its `returnTypes` point here). Spans are document offsets.
import type { Span } from '../common/text';

export interface RawNumber {
  value: number;
  span: Span;
}

export type RawHead =
  | { kind: 'description'; marker: Span; taskName: { span: Span; name: Span } | null }
  | { kind: 'input'; marker: Span }
  | { kind: 'ans'; marker: Span }
  | { kind: 'query'; marker: Span; number: RawNumber; bracket: { span: Span; name: Span; closed: boolean } | null }
  | { kind: 'answer'; marker: Span; number: RawNumber; missingColon: boolean };
