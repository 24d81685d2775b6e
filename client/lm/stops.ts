// What the editor's language model tools answer, as plain data and text (no `vscode` import, so it is tested
// without VS Code): an ART debug session's pause or end in the shape `art mcp`'s stepping tools answer with
// (core/cli/sessionStop.ts), read from the adapter's `art/state` response and its `art/end` event; the Test
// Explorer's outcomes; the diagnostics of a document.
import { describeStop, withCall, type SessionStop } from '../../core/cli/sessionStop';
import type { EndEvent, StateRequest } from '../debugAdapter/protocol';

/** Where a debug session stands, as the tools report it: a stop (paused or ended), or running with no pause yet. */
export type SessionView = SessionStop | { session: string; status: 'running' | 'idle'; program: string };

/** A session's state as a stop: its pause (tool, input, output, override, step) or, when not paused, running or idle. */
export function viewOfState(session: string, s: StateRequest.Response): SessionView {
  if (s.state !== 'paused') {
    // `finished` is only seen between the run's end and its art/end event: the end event's view is the one to give.
    const status = s.state === 'idle' ? 'idle' : 'running';
    return { session, status, program: s.text };
  }
  const view: SessionStop = {
    session,
    status: 'paused',
    reason: s.pause?.reason,
    description: s.pause?.description,
    program: s.textOnResume ?? s.text,
    canStepBack: s.canStepBack,
  };
  if (s.pause?.step !== undefined) view.step = s.pause.step;
  if (s.pause?.label !== undefined) view.label = s.pause.label;
  return s.call ? withCall(view, s.call) : view;
}

/** The end of a session's run (its `art/end` event) as a stop. */
export function viewOfEnd(session: string, e: EndEvent.Body): SessionStop {
  const view: SessionStop = { session, status: e.reason, answer: e.answer, program: e.text };
  if (e.error !== undefined) view.error = e.error;
  return view;
}

/** The text a model reads of a session's state. */
export function describeView(v: SessionView): string {
  if (v.status === 'running') return `debug session ${v.session} is running (not paused)\n\nprogram so far:\n${v.program}`;
  if (v.status === 'idle') return `debug session ${v.session} has no run yet`;
  return describeStop(v as SessionStop);
}

/** One diagnostic as the check tool lists it (1-based line and column, as editors show them). */
export interface DiagnosticLine {
  line: number;
  column: number;
  severity: 'error' | 'warning' | 'information' | 'hint';
  code?: string;
  message: string;
}

/** The check's text: a count by severity, then one line per diagnostic. */
export function describeDiagnostics(file: string, ds: readonly DiagnosticLine[]): string {
  if (!ds.length) return `${file}: no problems`;
  const count = (sev: DiagnosticLine['severity']) => ds.filter(d => d.severity === sev).length;
  const parts = (['error', 'warning', 'information', 'hint'] as const)
    .map(sev => [sev, count(sev)] as const)
    .filter(([, n]) => n > 0)
    .map(([sev, n]) => `${n} ${sev}${n === 1 ? '' : sev === 'information' ? '' : 's'}`);
  const lines = ds.map(d => `${file}:${d.line}:${d.column} ${d.severity}${d.code ? ` ${d.code}` : ''}: ${d.message}`);
  return `${file}: ${parts.join(', ')}\n${lines.join('\n')}`;
}

/** One program's outcome in the Test Explorer. */
export interface TestOutcomeLine {
  /** The Test Explorer's label: `index: title`, and the file. */
  label: string;
  file: string;
  passed: boolean;
  messages: string[];
}

/** The test run's text: how many passed, then each failure with its messages. */
export function describeTestOutcomes(outcomes: readonly TestOutcomeLine[]): string {
  if (!outcomes.length) return 'no programs were run: the workspace has no task library with demonstrations';
  const failed = outcomes.filter(o => !o.passed);
  const head = `${outcomes.length - failed.length} passed, ${failed.length} failed`;
  const details = failed.map(o => `FAILED ${o.file} ${o.label}${o.messages.length ? `\n  ${o.messages.join('\n').replace(/\n/g, '\n  ')}` : ''}`);
  return [head, ...details].join('\n');
}
