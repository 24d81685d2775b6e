// Departure from a recording: a replay follows what was recorded until the run changes (an edit, or a tool that now
// gives another output), then goes on live with the endpoint (or stops), and rejoins the recording when the run goes
// back before the change.
import type { Runner } from '../engine/runner';
import type { ToolCall } from '../trace/vocabulary';
import { foldWhitespace, quoteShort } from '../common/text';
import type { Departing } from './liveAfterDeparture';

/**
 * A replay follows its recording only while the run is what was recorded: the first change (an output set by hand,
 * an edited input, a skipped tool, or a tool that now gives another output than the recording has, because the code
 * or the tool changed) ends that, and the log and the trace say where the run went on live, or why it cannot go on.
 * Going back before that change (step back, reverse continue, restart frame) undoes it: the run follows the recording
 * again. Going back to a pause after it keeps the run live, and so does going back to the pause an edit was made at,
 * which keeps the edit (core/engine/checkpoints.ts keepEdits); a tool that gave another output departs again when it
 * runs again. `recorded` gives the recorded output of a call, when the recording has one to compare with.
 */
export function departOnEdit(
  runner: Runner,
  model: Departing,
  log: ((line: string) => void) | undefined,
  recorded?: (call: ToolCall) => string | undefined,
): void {
  /** Going back to this checkpoint or an earlier one undoes the departing change. */
  let undoneAt = -1;
  const depart = (why: string, call: ToolCall, edit: boolean) => {
    model.depart(why);
    // An edit belongs to the pause it was made at: undone only before it. A tool's output, by the pause before it ran.
    undoneAt = (runner.checkpointList().at(-1)?.index ?? 0) - (edit ? 1 : 0);
    const live = model.live;
    runner.writeTrace({ t: 'live', at: Date.now(), callId: call.id, why, model: live?.id ?? '' });
    log?.(
      live
        ? `The run departs from its recording here (${why}): from the next request on, ${live.id} writes the rest live.`
        : `The run departs from its recording here (${why}): replay mode has no model to go on with, so the run stops at the next request (set a model to go on live: an endpoint, or in VS Code one of its models).`,
    );
  };
  runner.on('edit', ({ what, call }) => {
    if (model.departed !== null) return;
    const at = runner.protocol.kind === 'art' ? `#${call.step}` : `[${call.tool}]`;
    depart(
      what === 'output'
        ? `${at}'s output was set by hand`
        : what === 'input'
          ? `the input of [${call.tool}] was edited`
          : `[${call.tool}] was skipped`,
      call,
      true,
    );
  });
  if (recorded)
    runner.on('toolDone', ({ call }) => {
      // An output set by hand is an edit (above); a failed tool's output is the model's to write, here the recording's.
      if (model.departed !== null || call.inline || call.override !== undefined || call.skipped || call.error !== undefined) return;
      const was = recorded(call);
      if (was === undefined || call.output === undefined || foldWhitespace(was) === foldWhitespace(call.output)) return;
      const shown = (t: string) => quoteShort(foldWhitespace(t), 60);
      depart(`#${call.step} [${call.tool}] now gives ${shown(call.output)} where the recording has ${shown(was)}`, call, false);
    });
  runner.on('rewound', ({ checkpoint }) => {
    const why = model.departed;
    if (why === null || checkpoint > undoneAt) return;
    model.rejoin();
    runner.writeTrace({ t: 'rejoin', at: Date.now(), why: `back before the change (${why})` });
    log?.(`Back before the change that left the recording (${why}): the run follows its recording again (no model requests).`);
  });
}
