// Where a stepping session stands (paused at a tool call, ended, or running) and its text: the answer of the session
// tools in both shells, art mcp's own sessions (sessions.ts) and the editor's debug sessions (client/lm/). Plain data.
import { z } from 'zod';
import type { RunResult } from '../engine/types';
import { END_REASONS } from '../trace/vocabulary';

/** Where a session stands: paused at a tool call (or step), or ended. */
export interface SessionStop {
  session: string;
  /** `paused`, or how the run ended (`finished`, `departed`, `stopped`, `error`, ...). */
  status: 'paused' | RunResult['reason'];
  /** Why it paused: `after-tool`, `tool-error`, `before-tool`, `step`, ... */
  reason?: string;
  description?: string;
  /** The step the pause is at (ART's k of `Qk`) and its label. */
  step?: number;
  label?: string;
  /** The tool paused at: its input, the previous step's answer it reads (the code `code execute` runs), its output. */
  tool?: string;
  input?: string;
  previousAnswer?: string;
  output?: string;
  /** The output set in place of the tool's (what the model then sees). */
  override?: string;
  /** At a pause: the tool's error. At the end: why the run did not finish (a replay's departure says what changed). */
  error?: string;
  /** The program so far: the task's header, then what the model and the tools wrote (at a pause, the paused tool's output too). */
  program: string;
  /** At the end: the answer (null when there is none). */
  answer?: string | null;
  /** The pauses the session can step back to. */
  canStepBack?: boolean;
  notes?: string[];
}

/** A paused tool call as a stop shows it (the engine's ToolCall, or the adapter's copy of it in `art/state`). */
export interface StopCall {
  tool: string;
  input: string;
  step: number;
  previousAnswer?: string;
  output?: string;
  override?: string;
  error?: string;
}

/** The paused call's fields on a stop: its tool, input, what it read and gave; its step when the pause names none. */
export function withCall(view: SessionStop, call: StopCall): SessionStop {
  view.tool = call.tool;
  view.input = call.input;
  if (call.previousAnswer !== undefined) view.previousAnswer = call.previousAnswer;
  if (call.output !== undefined) view.output = call.output;
  if (call.override !== undefined) view.override = call.override;
  if (call.error !== undefined) view.error = call.error;
  if (view.step === undefined) view.step = call.step;
  return view;
}

/** The text of a stop: where it paused (the tool, its output) or how it ended, then the program so far. */
export function describeStop(s: SessionStop): string {
  const head =
    s.status === 'paused'
      ? [
          `session ${s.session} paused: ${s.description ?? s.reason}${s.step !== undefined ? ` (step ${s.step})` : ''}`,
          ...(s.tool !== undefined ? [`tool: ${s.tool}`, `input: ${s.input ?? ''}`] : []),
          ...(s.error !== undefined ? [`error: ${s.error}`] : s.output !== undefined ? [`output: ${s.output}`] : []),
          ...(s.override !== undefined ? [`override: ${s.override}`] : []),
        ]
      : [
          `session ${s.session} ended: ${s.status}${s.answer != null ? `; answer: ${s.answer}` : ''}`,
          ...(s.error !== undefined ? [`why: ${s.error}`] : []),
        ];
  return `${head.join('\n')}\n\nprogram so far:\n${s.program}`;
}

/** Where a session stands, as the tools report it: a stop (paused or ended), or running (or idle) with no pause now. */
export type SessionView = SessionStop | { session: string; status: 'running' | 'idle'; program: string };

/** The text a model reads of a session's state. */
export function describeView(v: SessionView): string {
  if (v.status === 'running') return `debug session ${v.session} is running (not paused)\n\nprogram so far:\n${v.program}`;
  if (v.status === 'idle') return `debug session ${v.session} has no run yet`;
  return describeStop(v as SessionStop);
}

/** The structured answer of every session tool: where the session stands. */
export const STOP_SHAPE = {
  session: z.string(),
  status: z.enum(['paused', 'running', 'idle', ...END_REASONS]),
  reason: z.string().optional(),
  description: z.string().optional(),
  step: z.number().optional(),
  label: z.string().optional(),
  tool: z.string().optional(),
  input: z.string().optional(),
  previousAnswer: z.string().optional(),
  output: z.string().optional(),
  override: z.string().optional(),
  error: z.string().optional(),
  program: z.string(),
  answer: z.string().nullable().optional(),
  canStepBack: z.boolean().optional(),
  notes: z.array(z.string()).optional(),
};

/** The `session` argument of the session tools. */
export const sessionArg = {
  session: z
    .string()
    .optional()
    .describe('The session: the id debug_start returned (default: the session the person sees in the editor; art mcp: the latest one started).'),
};

/** A session tool's answer: the text of where it stands, and the same as structured content. */
export const stopAnswer = (view: SessionView) => ({
  text: [...('notes' in view && view.notes ? view.notes.map(n => `note: ${n}`) : []), describeView(view)].join('\n'),
  structured: view as unknown as Record<string, unknown>,
});
