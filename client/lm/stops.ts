// An ART debug session's pause or end as the editor's session tools answer it (no `vscode` import, so it is tested
// without VS Code): the shape art mcp's sessions answer with (core/agentTools/sessionStop.ts), read from the adapter's
// `art/state` response and its `art/end` event.
import { withCall, type SessionStop, type SessionView } from '../../core/agentTools/sessionStop';
import type { EndEvent, StateRequest } from '../debugAdapter/protocol';

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
