// The run trace: one JSON object per line (JSONL) for every prompt, completion chunk, cut, tool call (input,
// output, override, error, duration), monitor correction, pause, edit, retry and token count. A reader, and a
// replay that runs a recorded trace again without calling anything: a model that streams the recorded chunks and
// tools that return the recorded outputs, with the recorded edits (overrides, skips) applied at the same pauses.
// No keys are ever given to the runner, and the writer scrubs any secret it is told of as a second guard.
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { normalizeName } from '../art/ast';
import type { CompiledAgent } from '../agent/compile';
import type { CachedCompletion } from '../replay/cache';
import type { CompletionChunk, CompletionRequest, CompletionResult, ModelClient } from '../model/types';
import type { Tool, ToolResult } from '../tools/types';
import { AgentProtocol } from '../protocols/agentProtocol';
import { ArtProtocol } from '../protocols/artProtocol';
import { MultiToolProtocol } from '../protocols/multitoolProtocol';
import type { RunProtocol } from '../protocols/runProtocol';
import { Runner } from '../engine/runner';
import { traceRecordProblem } from './schema';
import type { RunResult, ToolCall, ToolLookup, TraceRecord, TraceSink } from '../engine/types';
import { readJsonLines } from '../common/jsonLines';

/** Appends records to a JSONL file as they happen (synchronously, so a crash loses nothing written before it). */
export class TraceWriter implements TraceSink {
  private fd: number | null;

  constructor(
    readonly path: string,
    private readonly secrets: string[] = [],
  ) {
    this.fd = openSync(path, 'w');
  }

  write(record: TraceRecord): void {
    if (this.fd === null) return;
    let line = JSON.stringify(record);
    for (const s of this.secrets) if (s && s.length >= 4) line = line.split(s).join('***');
    writeSync(this.fd, `${line}\n`);
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

/** Keeps the records in memory (tests, the debug adapter's trace view). */
export class MemoryTrace implements TraceSink {
  readonly records: TraceRecord[] = [];
  write(record: TraceRecord): void {
    this.records.push(structuredClone(record));
  }
  toJSONL(): string {
    return this.records.map(r => `${JSON.stringify(r)}\n`).join('');
  }
}

export interface ParsedTrace {
  records: TraceRecord[];
  /** Lines that are not trace records (1-based line numbers). */
  errors: { line: number; message: string }[];
}

export function parseTrace(text: string): ParsedTrace {
  const { values, errors } = readJsonLines<TraceRecord>(text, traceRecordProblem);
  return { records: values, errors };
}

export function readTraceFile(path: string): ParsedTrace {
  return parseTrace(readFileSync(path, 'utf8'));
}

/** One request of a recorded run, as the trace has it. */
export interface RecordedRequest {
  n: number;
  prompt: string;
  stop: string[];
  chunks: string[];
  finishReason?: string;
}

/**
 * The run as it finally went: the records without the futures it left (each `branch` record names the records it
 * left, `from` to `to` - 1) and without the branch records. A trace with no branch is its own main line.
 */
export function mainLine(records: TraceRecord[]): TraceRecord[] {
  const left = new Set<number>();
  records.forEach((r, i) => {
    if (r.t !== 'branch') return;
    left.add(i);
    if (r.from !== undefined && r.to !== undefined) for (let j = r.from; j < r.to; j++) left.add(j);
  });
  return left.size ? records.filter((_, i) => !left.has(i)) : records;
}

/** The requests of the run's main line (see mainLine), in order. */
export function recordedRequests(records: TraceRecord[]): RecordedRequest[] {
  const byN = new Map<number, RecordedRequest>();
  for (const r of mainLine(records)) {
    if (r.t === 'request') byN.set(r.n, { n: r.n, prompt: r.prompt, stop: r.stop, chunks: [] });
    else if (r.t === 'chunk') byN.get(r.n)?.chunks.push(r.text);
    else if (r.t === 'completion' && r.finishReason !== undefined) {
      const q = byN.get(r.n);
      if (q) q.finishReason = r.finishReason;
    }
  }
  return [...byN.values()].sort((a, b) => a.n - b.n);
}

/** Streams the recorded completions in order, chunk by chunk as they arrived; notes prompts that differ. */
export class TraceReplayModel implements ModelClient {
  readonly id: string;
  readonly honoursStop: boolean;
  readonly mismatches: string[] = [];
  private next = 0;
  private readonly requests: RecordedRequest[];

  constructor(records: TraceRecord[]) {
    const run = records.find(r => r.t === 'run');
    this.id = `trace-replay:${run?.t === 'run' ? run.model : 'unknown'}`;
    this.honoursStop = run?.t === 'run' ? run.honoursStop : true;
    this.requests = recordedRequests(records);
  }

  async *stream(req: CompletionRequest): AsyncGenerator<CompletionChunk, CompletionResult, void> {
    const rec = this.requests[this.next++];
    if (!rec) throw new Error(`the trace has no request ${this.next} to replay (it recorded ${this.requests.length})`);
    if (rec.prompt !== req.prompt) this.mismatches.push(`request ${rec.n}: the prompt differs from the recorded one`);
    let text = '';
    for (const c of rec.chunks) {
      if (req.signal?.aborted) throw Object.assign(new Error('cancelled'), { name: 'AbortError' });
      text += c;
      yield { text: c };
    }
    return { text, finishReason: rec.finishReason ?? 'stop' };
  }

  async complete(req: CompletionRequest): Promise<CompletionResult> {
    const it = this.stream(req);
    for (;;) {
      const r = await it.next();
      if (r.done) return r.value;
    }
  }
}

/**
 * The completions a re-run can take from a trace (core/replay/cache.ts): every request of the run and of its LLM-backed
 * tools, in every branch, but a completion the user paused in the middle of. With `until` (a step number), only the
 * main line's requests made before step `until` was complete (ART: requests whose program so far ends at an
 * earlier step; agents: at an earlier state), and the tools' requests among them.
 */
export function cacheEntries(records: TraceRecord[], until?: number): CachedCompletion[] {
  const out: CachedCompletion[] = [];
  const open = new Map<number, CachedCompletion>();
  const whole = new Set<CachedCompletion>();
  let protocol: RunProtocol | undefined;
  let source = records;
  if (until !== undefined) {
    source = mainLine(records);
    protocol = protocolFromTrace(source, { get: () => undefined });
  }
  for (const r of source) {
    if (r.t === 'request') {
      if (protocol) {
        const steps = protocol.steps(r.prompt.slice(protocol.prompt.length));
        if ((steps[steps.length - 1]?.number ?? 0) >= until!) break;
      }
      const e: CachedCompletion = { prompt: r.prompt, stop: r.stop, maxTokens: r.maxTokens, temperature: r.temperature, chunks: [] };
      open.set(r.n, e);
      out.push(e);
    } else if (r.t === 'chunk') open.get(r.n)?.chunks.push(r.text);
    else if (r.t === 'completion') {
      const e = open.get(r.n);
      if (e && !r.paused) {
        e.finishReason = r.finishReason;
        whole.add(e);
      }
      open.delete(r.n);
    } else if (r.t === 'toolRequest') {
      const e: CachedCompletion = {
        prompt: r.prompt,
        stop: r.stop,
        maxTokens: r.maxTokens,
        temperature: r.temperature,
        chunks: [r.text],
        finishReason: r.finishReason,
      };
      out.push(e);
      whole.add(e);
    }
  }
  // A request with no completion (the run stopped in it) or cut by a pause is not a whole answer.
  return out.filter(e => whole.has(e));
}

/** Tools that return the recorded outputs (or errors) in call order. */
export function traceReplayTools(records: TraceRecord[]): ToolLookup {
  records = mainLine(records);
  const calls = records.flatMap(r => (r.t === 'tool' ? [r.call] : [])).sort((a, b) => a.id - b.id);
  const names = new Set(calls.map(c => normalizeName(c.tool)));
  let next = 0;
  const tool = (name: string): Tool => ({
    info: { name, description: 'Replays the output recorded in a trace.', input: 'Ignored.', origin: 'user' },
    async run(): Promise<ToolResult> {
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
    case 'multitool':
      return new MultiToolProtocol({ prompt: run.prompt, endMarkers: (run.config as { endMarkers?: string[] }).endMarkers }, tools);
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
