// The request cache of a run: the records it is answered from first (the `from` trace, limited by `until`, or a
// restart's previous run) and the model that answers identical requests from them (core/replay/cachedModel.ts).
import { readTextFile } from '../common/textFile';
import type { ModelClient } from '../model/types';
import { cacheEntries, CachedModel } from '../replay/cachedModel';
import type { TraceRecord } from '../trace/schema';
import { parseTrace, runTraceProblem } from '../trace/trace';
import { LaunchError, type RunOptions } from './options';
import { hasLiveModel, type Launch, type RunConfig } from './session';

export /** The records a run is answered from first: the `from` trace (limited by `until`), else a restart's previous run. */
function cacheRecords(config: RunConfig, o: RunOptions, at: (p: string) => string): TraceRecord[] | undefined {
  if (o.until !== undefined && !o.from) throw new LaunchError('until needs from: the trace (.jsonl) to take the steps before it from');
  if (!o.from) return config.cache;
  const file = at(o.from);
  let text: string;
  try {
    text = readTextFile(file);
  } catch (e) {
    throw new LaunchError(`${file}: cannot read the trace to re-run from: ${(e as Error).message}`);
  }
  const parsed = parseTrace(text);
  const problem = runTraceProblem(file, parsed);
  if (problem) throw new LaunchError(problem);
  return parsed.records;
}

export /** The model, answered first from the recorded completions when there are any. */
function withCache(launch: Launch, make: () => ModelClient): ModelClient {
  // Re-running from a trace needs no endpoint until a request is not in it.
  if (!launch.cached) return make();
  const model = hasLiveModel(launch) || launch.options.mode === 'replay' ? make() : undefined;
  const entries = cacheEntries(launch.cached, launch.options.from ? launch.options.until : undefined);
  const run = launch.cached.find(r => r.t === 'run');
  return new CachedModel(model, entries, { honoursStop: run?.t === 'run' ? run.honoursStop : undefined });
}
