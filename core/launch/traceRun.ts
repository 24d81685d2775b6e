// A run of a recorded trace (`.jsonl`): the recorded completions streamed again and the recorded tool outputs (with
// the recorded overrides in their place), through the protocol rebuilt from the trace. The first change made while
// it runs (an output set by hand, an edited input, a skipped tool) departs from the recording, as a program's replay
// does (core/replay/departure.ts): from there the configured endpoint writes the rest live and the tools run for
// real; going back before the change follows the recording again.
import { Runner } from '../engine/runner';
import type { ToolLookup } from '../protocols/types';
import { departOnEdit } from '../replay/departure';
import { protocolFromTrace, TraceReplayModel, traceReplayTools } from '../replay/traceReplay';
import type { TraceRecord } from '../trace/schema';
import { parseTrace, runTraceProblem } from '../trace/trace';
import { LaunchError } from './options';
import { endpointModel, hasLiveModel, runnerOptions, type Launch, type Made } from './session';

export function makeTraceRun(text: string, path: string, launch: Launch): Made {
  const parsed = parseTrace(text);
  const problem = runTraceProblem(path, parsed);
  if (problem) throw new LaunchError(problem);
  const { records } = parsed;
  // The run's model (an endpoint, or VS Code's) is where the run goes on once it departs from the recording.
  const live = hasLiveModel(launch) ? endpointModel(launch) : undefined;
  const model = new TraceReplayModel(records as TraceRecord[], { live });
  // The recorded tool outputs, with the recorded overrides in their place: the model sees what it saw then.
  const recorded = traceReplayTools(
    records.map(r =>
      r.t === 'tool' && r.call.override !== undefined ? { ...r, call: { ...r.call, output: r.call.override, error: undefined } } : r,
    ),
    // The run's current call (the runner below; a tool runs only once it runs).
    () => runner.snapshot().calls.at(-1)?.id,
  );
  // Departed: the tools run for real on what the run now holds.
  const tools: ToolLookup = { get: name => (model.departure.departed !== null ? launch.tools.get(name) : recorded.get(name)) };
  const runner = new Runner(protocolFromTrace(records, tools), { ...runnerOptions(launch, model), tools });
  departOnEdit(runner, model.departure, launch.config.log);
  const run = records.find(r => r.t === 'run');
  return { runner, unit: -1, title: `trace of ${run?.t === 'run' ? run.kind : 'a'} run`, ownProgram: false, model };
}
