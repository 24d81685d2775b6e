// The shape of the trace records a replay reads, checked when a trace is read: a trace written by hand, cut short or
// from another version fails with the line and the field at fault, not deep inside the replay. Fields the replay
// does not read are not checked, and unknown fields pass (a newer writer may add some).
import { z } from 'zod';
import type { SelectStrategy } from '../prompt/selection';
import type { PromptDemonstration, SelectionWhy } from './vocabulary';
import type { Usage } from '../model/types';
import type { ReplyRepairKind } from '../model/chatReply';
import type { Alternative, BranchReason, EndReason, PauseReason, RunKind, SentConstraint, ToolCall } from './vocabulary';

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
  repair: z.looseObject({ n, kind: z.string(), summary: z.string() }),
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
      /** Served from a recorded run (core/replay/cachedModel.ts): no tokens spent. */
      cached?: boolean;
      /** What a reasoning model thought before or beside this text (never program text). */
      reasoning?: string;
    }
  /** A chat reply of request n was changed before it joined the program (see core/model/chatReply.ts). */
  | { t: 'repair'; at: number; n: number; kind: ReplyRepairKind; summary: string; removed: string }
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
