// A recorded trace run again without calling anything: a model that streams the recorded chunks and tools that
// return the recorded outputs, with the recorded edits (overrides, skips) applied at the same pauses; and the
// protocol of a recorded run, rebuilt from its `run` record.
import { normalizeName } from '../art/ast';
import type { CompiledAgent } from '../agent/compile';
import type { CompletionChunk, CompletionRequest, CompletionResult, ModelClient } from '../model/types';
import { streamResult } from '../model/types';
import type { Tool, ToolResult } from '../tools/types';
import { AgentProtocol } from '../protocols/agentProtocol';
import { ArtProtocol } from '../protocols/artProtocol';
import { MultiToolProtocol } from '../protocols/multitoolProtocol';
import type { RunProtocol } from '../protocols/runProtocol';
import { Runner } from '../engine/runner';
import type { RunResult } from '../engine/types';
import type { ToolCall } from '../trace/vocabulary';
import type { ToolLookup } from '../protocols/types';
import type { TraceRecord, TraceSink } from '../trace/schema';
import { Departure } from './liveAfterDeparture';
import { mainLine, recordedRequests, type RecordedRequest } from '../trace/trace';

/**
 * Streams the recorded completions, chunk by chunk as they arrived: the request recorded with the same prompt (the
 * next one in order first, so a run gone back by a step back is answered as it was then), else the next in order
 * (noted as a mismatch). Once the run departs from the recording (an output set by hand, an edited input, a skipped
 * tool: core/replay/departure.ts), every request goes to the live model, or fails with a DepartedError without one.
 */
export class TraceReplayModel implements ModelClient {
  readonly id: string;
  readonly honoursStop: boolean;
  readonly mismatches: string[] = [];
  private next = 0;
  private readonly requests: RecordedRequest[];
  /** Whether the run still follows the recording, and where requests go once it does not (departure.ts). */
  readonly departure: Departure;

  constructor(records: TraceRecord[], opts: { live?: ModelClient } = {}) {
    const run = records.find(r => r.t === 'run');
    this.id = `trace-replay:${run?.t === 'run' ? run.model : 'unknown'}`;
    this.honoursStop = run?.t === 'run' ? run.honoursStop : true;
    this.requests = recordedRequests(records);
    this.departure = new Departure(opts.live, 'a trace');
  }

  async *stream(req: CompletionRequest): AsyncGenerator<CompletionChunk, CompletionResult, void> {
    const live = this.departure.stream(req);
    if (live) return yield* live;
    const same = this.requests[this.next]?.prompt === req.prompt ? this.next : this.requests.findIndex(r => r.prompt === req.prompt);
    const at = same >= 0 ? same : this.next;
    const rec = this.requests[at];
    this.next = at + 1;
    if (!rec) throw new Error(`the trace has no request ${at + 1} to replay (it recorded ${this.requests.length})`);
    if (rec.prompt !== req.prompt) this.mismatches.push(`request ${rec.n}: the prompt differs from the recorded one`);
    let text = '';
    for (const c of rec.chunks) {
      if (req.signal?.aborted) throw Object.assign(new Error('cancelled'), { name: 'AbortError' });
      text += c;
      yield { text: c, recorded: true };
    }
    return { text, finishReason: rec.finishReason ?? 'stop' };
  }

  async complete(req: CompletionRequest): Promise<CompletionResult> {
    return streamResult(this.stream(req));
  }
}

/**
 * Tools that return the recorded outputs (or errors): the recorded call of the id `callId` gives (the run's current
 * call, so a run gone back gets the outputs it got then), else the calls in order.
 */
export function traceReplayTools(records: TraceRecord[], callId?: () => number | undefined): ToolLookup {
  records = mainLine(records);
  const calls = records.flatMap(r => (r.t === 'tool' ? [r.call] : [])).sort((a, b) => a.id - b.id);
  const names = new Set(calls.map(c => normalizeName(c.tool)));
  let next = 0;
  const tool = (name: string): Tool => ({
    info: { name, description: 'Replays the output recorded in a trace.', input: 'Ignored.', origin: 'user' },
    async run(): Promise<ToolResult> {
      const id = callId?.();
      const byId = id === undefined ? -1 : calls.findIndex(c => c.id === id && (c.output !== undefined || c.error !== undefined));
      if (byId >= 0) next = byId;
      // Skip the calls that never ran (skipped, or overridden before running).
      while (next < calls.length && calls[next].output === undefined && calls[next].error === undefined) next++;
      const c = calls[next++];
      if (!c) return { ok: false, error: `the trace has no more recorded calls of ${name}` };
      if (c.error !== undefined) return { ok: false, error: c.error, timedOut: c.timedOut };
      return { ok: true, output: c.output ?? '' };
    },
  });
  return { get: name => (names.has(normalizeName(name)) ? tool(name) : undefined) };
}

/** Rebuilds the run's protocol from its `run` record. */
export function protocolFromTrace(records: TraceRecord[], tools: ToolLookup): RunProtocol {
  const run = records.find(r => r.t === 'run');
  if (!run || run.t !== 'run') throw new Error('the trace has no "run" record');
  switch (run.kind) {
    case 'art':
      return new ArtProtocol(run.prompt, run.header, tools, {
        inlineTriggers: (run.config as { inlineTriggers?: boolean } | undefined)?.inlineTriggers,
        demonstrations: run.demonstrations,
      });
    case 'agent': {
      const c = run.config as { agent: CompiledAgent; question: string; preamble?: string };
      return new AgentProtocol({ agent: c.agent, question: c.question, preamble: c.preamble }, tools);
    }
    case 'multitool': {
      const c = run.config as { endMarkers?: string[]; answerMarker?: string };
      return new MultiToolProtocol({ prompt: run.prompt, endMarkers: c.endMarkers, answerMarker: c.answerMarker }, tools);
    }
  }
}

export interface TraceReplay {
  result: RunResult;
  /** Where the replay did not follow the recording (prompts that differ). Empty for a faithful replay. */
  mismatches: string[];
}

/**
 * Runs a recorded trace again without calling anything; the recorded edits (input edits, skips, overrides) are
 * applied at the same calls. `tools` re-executes real tools instead of the recorded outputs.
 */
export async function replayTrace(
  records: TraceRecord[],
  opts: { tools?: ToolLookup; trace?: TraceSink; onRunner?: (r: Runner) => void } = {},
): Promise<TraceReplay> {
  records = mainLine(records);
  const model = new TraceReplayModel(records);
  const tools = opts.tools ?? traceReplayTools(records);
  const recordedCalls = new Map<number, ToolCall>(records.flatMap(r => (r.t === 'tool' ? [[r.call.id, r.call] as [number, ToolCall]] : [])));
  const edits = records.flatMap(r => (r.t === 'edit' ? [r] : []));
  const runner = new Runner(protocolFromTrace(records, tools), {
    model,
    tools,
    pauseBeforeTool: true,
    pauseAfterTool: true,
    maxRequests: recordedRequests(records).length + 8,
    trace: opts.trace,
  });
  runner.on('paused', ({ reason, call }) => {
    if (call) {
      const recorded = recordedCalls.get(call.id);
      const ranBefore = recorded && (recorded.output !== undefined || recorded.error !== undefined);
      for (const e of edits.filter(x => x.callId === call.id)) {
        if (reason === 'before-tool') {
          if (e.what === 'input') runner.setToolInput(e.text ?? '');
          else if (e.what === 'skip') runner.skipTool();
          else if (e.what === 'output' && !ranBefore) runner.setToolOutput(e.text ?? '');
        } else if (reason === 'after-tool' || reason === 'tool-error') {
          if (e.what === 'output' && ranBefore) runner.setToolOutput(e.text ?? '');
        }
      }
    }
    runner.continue();
  });
  opts.onRunner?.(runner);
  const result = await runner.run();
  return { result, mismatches: model.mismatches };
}
