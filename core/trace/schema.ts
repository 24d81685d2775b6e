// The shape of the trace records a replay reads, checked when a trace is read: a trace written by hand, cut short or
// from another version fails with the line and the field at fault, not deep inside the replay. Fields the replay
// does not read are not checked, and unknown fields pass (a newer writer may add some).
import { z } from 'zod';
import type { SelectStrategy } from '../prompt/selection';
import type { PromptDemonstration, SelectionWhy } from '../prompt/promptReport';

const n = z.number().int().nonnegative();
const usage = z.looseObject({ promptTokens: z.number(), completionTokens: z.number() });

const call = z.looseObject({
  id: n,
  tool: z.string(),
  input: z.string(),
  step: z.number(),
  output: z.string().optional(),
  error: z.string().optional(),
  override: z.string().optional(),
});

const agentConfig = z.looseObject({
  agent: z.looseObject({
    name: z.string(),
    states: z.array(z.looseObject({ name: z.string(), text: z.string() })),
    positions: z.array(z.looseObject({ state: n })),
    initial: z.array(n),
    follow: z.array(z.array(n)),
    final: z.array(z.boolean()),
  }),
  question: z.string(),
  preamble: z.string().optional(),
});

/** Why a demonstration was chosen (promptReport.ts's SelectionWhy; the annotation keeps the two the same). */
const why: z.ZodType<SelectionWhy> = z.discriminatedUnion('strategy', [
  z.looseObject({ strategy: z.literal('same-file') }),
  z.looseObject({ strategy: z.literal('similar'), score: z.number(), terms: z.array(z.string()), rank: n.nullable() }),
  z.looseObject({ strategy: z.literal('llm'), pYes: z.number(), answer: z.string(), logprob: z.number().nullable() }),
  z.looseObject({ strategy: z.literal('best-cluster'), file: z.string(), correct: n, tried: n }),
]);
// Every strategy has its reason, and every reason is a strategy's (a type error otherwise).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const EVERY_STRATEGY_HAS_ITS_WHY: Same<SelectionWhy['strategy'], SelectStrategy> = true;

const demonstration: z.ZodType<PromptDemonstration> = z.looseObject({
  file: z.string().optional(),
  index: n,
  title: z.string(),
  line: z.number().int().positive(),
  why: why.optional(),
});

const run = z.looseObject({
  t: z.literal('run'),
  kind: z.enum(['art', 'agent', 'multitool']),
  prompt: z.string(),
  header: z.string(),
  config: z.looseObject({}).optional(),
  demonstrations: z.array(demonstration).optional(),
  sample: z.looseObject({ index: z.number().int().positive(), of: z.number().int().positive() }).optional(),
});

const RECORDS = {
  run,
  request: z.looseObject({ n, prompt: z.string(), stop: z.array(z.string()) }),
  chunk: z.looseObject({ n, text: z.string() }),
  completion: z.looseObject({ n, text: z.string().optional(), finishReason: z.string().optional(), usage: usage.optional() }),
  tool: z.looseObject({ call }),
  correction: z.looseObject({}),
  pause: z.looseObject({}),
  edit: z.looseObject({ what: z.enum(['input', 'output', 'skip']), callId: n, text: z.string().optional() }),
  retry: z.looseObject({}),
  live: z.looseObject({ why: z.string() }),
  rejoin: z.looseObject({ why: z.string() }),
  unconstrained: z.looseObject({}),
  toolRequest: z.looseObject({ prompt: z.string(), stop: z.array(z.string()), text: z.string() }),
  alternatives: z.looseObject({ alternatives: z.array(z.looseObject({ text: z.string() })) }),
  branch: z.looseObject({
    why: z.enum(['step-back', 'reverse-continue', 'restart-frame', 'alternative', 'search']),
    fromCheckpoint: n,
    step: z.number(),
    from: n.optional(),
    to: n.optional(),
    text: z.string().optional(),
  }),
  end: z.looseObject({}),
  vote: z.looseObject({
    answer: z.string().nullable(),
    agree: n,
    of: z.number().int().positive(),
    samples: z.array(
      z.looseObject({ index: z.number().int().positive(), answer: z.string().nullable(), reason: z.string(), trace: z.string().optional() }),
    ),
  }),
} as const;

export type TraceRecordKind = keyof typeof RECORDS;

/** The problem with a parsed JSON line as a trace record, in one line, or null when it is one. */
export function traceRecordProblem(value: unknown): string | null {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return 'not a trace record (not a JSON object)';
  const t = (value as { t?: unknown }).t;
  if (typeof t !== 'string' || !(t in RECORDS)) return `not a trace record (no known "t"${typeof t === 'string' ? `: "${t}"` : ''})`;
  let schema: z.ZodType = RECORDS[t as TraceRecordKind];
  if (t === 'run' && (value as { kind?: unknown }).kind === 'agent') schema = run.extend({ config: agentConfig });
  const r = schema.safeParse(value);
  return r.success ? null : `a "${t}" record ${describeIssue(r.error.issues[0])}`;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const at = issue.path.length ? `"${issue.path.join('.')}"` : 'the record';
  return `with a bad ${at}: ${issue.message.replace(/^Invalid input: /, '')}`;
}
