// A run of a recorded trace (`.jsonl`): the recorded completions streamed again and the recorded tool outputs (with
// the recorded overrides in their place), through the protocol rebuilt from the trace.
import { Runner } from '../engine/runner';
import { protocolFromTrace, TraceReplayModel, traceReplayTools } from '../replay/traceReplay';
import type { TraceRecord } from '../trace/schema';
import { parseTrace, runTraceProblem } from '../trace/trace';
import { LaunchError } from './options';
import { runnerOptions, type Base, type Made } from './session';

export function makeTraceRun(text: string, path: string, b: Base): Made {
  const parsed = parseTrace(text);
  const problem = runTraceProblem(path, parsed);
  if (problem) throw new LaunchError(problem);
  const { records } = parsed;
  const model = new TraceReplayModel(records as TraceRecord[]);
  // The recorded tool outputs, with the recorded overrides in their place: the model sees what it saw then.
  const tools = traceReplayTools(
    records.map(r =>
      r.t === 'tool' && r.call.override !== undefined ? { ...r, call: { ...r.call, output: r.call.override, error: undefined } } : r,
    ),
  );
  const runner = new Runner(protocolFromTrace(records, tools), { ...runnerOptions(b, model), tools });
  const run = records.find(r => r.t === 'run');
  return { runner, unit: -1, title: `trace of ${run?.t === 'run' ? run.kind : 'a'} run`, ownProgram: false, model };
}
