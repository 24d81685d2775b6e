// The step-through runner: streams the model's continuation, stops generation the moment a tool call is complete
// (stop sequences where the endpoint honours them, else by aborting the stream and dropping the text past the
// call), runs the tool, appends its output and resumes. It pauses like a debugger (before/after tools, at steps,
// at breakpoints) and reports everything through events. It knows nothing of DAP or VS Code; see README.md.
import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import { normalizeName } from '../art/ast';
import type { CompletionChunk, CompletionRequest, CompletionResult, ModelClient, Usage } from '../model/types';
import { DepartedError } from '../replay/programReplay';
import type { MonitorCorrection } from '../agent/monitor';
import { formatMs } from '../tools/common';
import type { ToolResult } from '../tools/types';
import type { Boundary, DetectedCall, Detection, RunProtocol, StreamEndAction } from '../protocols/runProtocol';
import { replaceInput } from '../protocols/runProtocol';
import { streamConstrained } from '../protocols/constraints';
import type {
  Alternative,
  BranchReason,
  BreakpointKind,
  CheckpointView,
  Breakpoints,
  EndReason,
  PauseInfo,
  PauseReason,
  RunResult,
  RunState,
  Snapshot,
  StepView,
  ToolCall,
} from './types';
import type { TraceRecord } from '../trace/schema';
import type { RunnerOptions } from './runnerOptions';

export interface RunnerEvents {
  /** A request is about to be sent. */
  request: [{ n: number; stop: string[]; promptLength: number; at: number }];
  /** Model text arrived (`text` is the program so far, as in Snapshot.text). */
  text: [{ delta: string; text: string }];
  /** Generated text past a stop point was dropped (a call, a step pause, the end of the program). */
  cut: [{ dropped: string; at: number }];
  /** The agent monitor corrected off-spec text. */
  correction: [{ offset: number; found: string | null; expected: string[]; removed: string; inserted: string }];
  /** A step became complete (ART query, agent state, trigger). */
  step: [{ step: StepView | undefined; label: string; number: number }];
  toolStart: [{ call: ToolCall; at: number }];
  toolEnd: [{ call: ToolCall; at: number }];
  /** A call is over and its output (or the fallback marker) was appended. */
  toolDone: [{ call: ToolCall }];
  paused: [PauseInfo];
  resumed: [{ step: boolean }];
  /** The run went back to a pause (step back, reverse continue, restart frame, goTo): `checkpoint` is its index. */
  rewound: [{ checkpoint: number; step: number; why: BranchReason }];
  /** The user changed the paused call: its input, its output, or skipped the tool. */
  edit: [{ what: 'input' | 'output' | 'skip'; call: ToolCall }];
  retry: [{ attempt: number; delayMs: number; reason: string }];
  usage: [{ request: Usage | undefined; total: Usage }];
  end: [RunResult];
}

type Resume = 'continue' | 'step' | 'rewind';

const POINT = Symbol('checkpoints');
/** A pause saved by `savePoint()`, to `goTo` later. Opaque. */
export interface RunPoint {
  readonly [POINT]: unknown;
}

/** Thrown inside the loop when `stop()` was called. */
class Stopped extends Error {}

/** Thrown out of a pause to go back to a checkpoint (step back, reverse continue, restart frame). */
class Rewind extends Error {
  constructor(
    readonly to: Checkpoint,
    readonly why: BranchReason,
    /** The pauses before `to` on its own line (`goTo` a point left earlier); default: the run's own, up to `to`. */
    readonly line?: Checkpoint[],
  ) {
    super('rewind');
  }
}

/** What the run does when it resumes from a pause: go on with the loop, past a step boundary, or on with a call. */
type Continuation =
  { kind: 'loop' } | { kind: 'boundary'; action: Boundary } | { kind: 'call'; callId: number; dc: DetectedCall; phase: 'before' | 'after' };

/** Everything the run was at a pause: restoring it and resuming is the run as it went on from there. */
interface Checkpoint {
  index: number;
  reason: PauseReason;
  phase?: 'before' | 'after';
  breakpoint?: BreakpointKind;
  step: number;
  label?: string;
  callId?: number;
  written: string;
  handled: string[];
  calls: ToolCall[];
  usage: Usage;
  requests: number;
  constrainedRequests: number;
  corrections: number;
  correctionLog: MonitorCorrection[];
  lastDropped: string;
  /** Records of the trace written before the run left this pause (the pause record included). */
  traceAt: number;
  resume: Continuation;
}

interface Pending {
  call: ToolCall;
  phase: 'before' | 'after';
  written: () => string;
  setInput?: (text: string) => void;
}

export class Runner extends EventEmitter<RunnerEvents> {
  private written = '';
  /** Boundaries already dealt with, by key (a boundary seen again after more text arrives is not acted on twice). */
  private readonly handled = new Set<string>();
  private readonly calls: ToolCall[] = [];
  private readonly usage: Usage = { promptTokens: 0, completionTokens: 0 };
  private requests = 0;
  private constrainedRequests = 0;
  private corrections = 0;
  /** The corrections made on the way to the text as it stands (as many as `corrections`). */
  private readonly correctionLog: MonitorCorrection[] = [];
  /** The constraint the latest request was sent with (`vllm regex`), for the call it wrote. */
  private lastConstraint: string | undefined;
  private runState: RunState = 'idle';
  private readonly runCtrl = new AbortController();
  private stopped = false;
  private stepping = false;
  private pauseRequested = false;
  private resumeFn: ((r: Resume) => void) | null = null;
  private pending: Pending | null = null;
  private breakpoints: Required<Breakpoints> = { steps: [], states: [], tools: [] };
  private result: RunResult | null = null;
  private currentCall: ToolCall | undefined;
  /** The pause the run is at; its call is the live ToolCall, so edits made during the pause show. */
  private pauseInfo: Omit<PauseInfo, 'call'> | null = null;
  private unsubscribeRetries: (() => void) | undefined;
  /** The pauses so far (index 0: the start), the last being the current one while paused. */
  private checkpoints: Checkpoint[] = [];
  /** How many records this run wrote to its trace (positions in the trace, for branch records). */
  private traceCount = 0;
  /** Set by a rewind request while paused: the checkpoint to go back to. */
  private rewindTo: Rewind | null = null;
  /** The continuation of the current pause. */
  private pauseResume: Continuation | null = null;
  /** The alternatives offered at the current pause, and the one chosen (streamed as the next completion). */
  private offered: { checkpoint: number; list: Alternative[] } | null = null;
  private forced: { text: string; index: number } | undefined;
  /** The model LLM-backed tools get: the tool model, with its requests written to the trace. */
  private readonly toolModel: ModelClient;

  constructor(
    readonly protocol: RunProtocol,
    private readonly opts: RunnerOptions,
  ) {
    super();
    if (opts.breakpoints) this.setBreakpoints(opts.breakpoints);
    this.toolModel = tracedToolModel(
      opts.toolModel ?? opts.model,
      r => this.trace(r),
      () => this.currentCall?.id,
    );
  }

  // ---- state ----

  get state(): RunState {
    return this.runState;
  }

  /** The program text so far: the header (new task / question) and what was generated. */
  get text(): string {
    return this.protocol.header + this.written;
  }

  /** The full text the next request continues (prompt + generated). */
  get fullText(): string {
    return this.protocol.prompt + this.written;
  }

  snapshot(): Snapshot {
    return {
      kind: this.protocol.kind,
      state: this.runState,
      text: this.text,
      generatedFrom: this.protocol.header.length,
      steps: this.stepViews(),
      call: this.currentCall ? { ...this.currentCall } : undefined,
      calls: this.calls.map(c => ({ ...c })),
      agentState: this.protocol.agentState?.(this.written),
      usage: { ...this.usage },
      requests: this.requests,
      constrainedRequests: this.constrainedRequests,
      corrections: this.corrections,
      ...(this.correctionLog.length ? { monitorCorrections: this.correctionLog.map(c => ({ ...c, expected: [...c.expected] })) } : {}),
    };
  }

  /** Where the paused run stands, or null while it runs. The call reflects the edits made during the pause. */
  get paused(): PauseInfo | null {
    if (!this.pauseInfo) return null;
    const call = this.pauseCall;
    return { ...this.pauseInfo, call: call ? { ...call } : undefined };
  }

  private pauseCall: ToolCall | undefined;

  /** How the run ended, once it has (null before). */
  get ended(): RunResult | null {
    return this.result;
  }

  // ---- control (the debugger's buttons) ----

  /** Runs to the end; resolves with the result (never rejects: errors end the run with reason `error`). */
  async run(): Promise<RunResult> {
    if (this.runState !== 'idle') throw new Error('this run has already started; create a new Runner to run again');
    this.runState = 'running';
    const model = this.opts.model as { addRetryListener?: (fn: (i: { attempt: number; delayMs: number; reason: string }) => void) => () => void };
    this.unsubscribeRetries = model.addRetryListener?.(info => {
      this.trace({ t: 'retry', at: Date.now(), ...info });
      this.opts.log?.(`retry ${info.attempt} in ${info.delayMs} ms: ${info.reason}`);
      this.emit('retry', info);
    });
    this.trace({
      t: 'run',
      at: Date.now(),
      kind: this.protocol.kind,
      model: this.opts.model.id,
      honoursStop: this.opts.model.honoursStop,
      prompt: this.protocol.prompt,
      header: this.protocol.header,
      config: this.protocol.traceConfig,
      ...(this.protocol.demonstrations ? { demonstrations: this.protocol.demonstrations } : {}),
      ...(this.opts.sample ? { sample: this.opts.sample } : {}),
      options: {
        temperature: this.opts.temperature,
        maxTokens: this.maxTokens,
        pauseBeforeTool: !!this.opts.pauseBeforeTool,
        pauseAfterTool: this.pauseAfterTool,
        toolTimeoutMs: this.opts.toolTimeoutMs,
      },
    });
    try {
      return await this.drive();
    } catch (err) {
      if (this.stopped || err instanceof Stopped) return this.finish('stopped');
      if (err instanceof DepartedError) return this.finish('departed', err.message);
      return this.finish('error', err instanceof Error ? err.message : String(err));
    } finally {
      this.unsubscribeRetries?.();
    }
  }

  /** The loop, and the way back into it after a rewind. */
  private async drive(): Promise<RunResult> {
    let from: Rewind | undefined;
    let first = true;
    for (;;) {
      try {
        if (from) {
          const back = from;
          from = undefined;
          const done = await this.reenter(back);
          if (done) return done;
        } else if (first) {
          first = false;
          if (this.opts.stopOnEntry) await this.pauseAt('entry', undefined, {}, { kind: 'loop' });
          else this.checkpoints.push(this.capture('entry', undefined, {}, { kind: 'loop' }));
        }
        for (;;) {
          if (this.stopped) return this.finish('stopped');
          if (this.requests >= (this.opts.maxRequests ?? 64)) return this.finish('limit', `stopped after ${this.requests} requests (maxRequests)`);
          const action = await this.generate();
          const done = await this.act(action);
          if (done) return done;
        }
      } catch (err) {
        if (!(err instanceof Rewind)) throw err;
        from = err;
      }
    }
  }

  // ---- time travel ----

  /** The pauses the run can go back to, oldest first; while paused the last one is the current pause. */
  checkpointList(): CheckpointView[] {
    return this.checkpoints.map(c => ({
      index: c.index,
      reason: c.reason,
      phase: c.phase,
      step: c.step,
      label: c.label,
      callId: c.callId,
      textLength: this.protocol.header.length + c.written.length,
    }));
  }

  /** Back to the previous pause (or the start). The future left stays in the trace as a branch. */
  stepBack(): void {
    this.requirePaused('stepBack');
    const at = this.checkpoints.length - 1;
    if (at < 1) throw new Error('stepBack: the run is at its start; there is no earlier pause to go back to');
    this.rewind(at - 1, 'step-back');
  }

  /** Back to the previous pause at a breakpoint (one that holds now, or that stopped the run then), else the start. */
  reverseContinue(): void {
    this.requirePaused('reverseContinue');
    const at = this.checkpoints.length - 1;
    if (at < 1) throw new Error('reverseContinue: the run is at its start; there is no earlier pause to go back to');
    let to = 0;
    for (let i = at - 1; i > 0; i--) {
      if (this.isBreakpointCheckpoint(this.checkpoints[i])) {
        to = i;
        break;
      }
    }
    this.rewind(to, 'reverse-continue');
  }

  /** Back to the first pause at step `step` (0: the start). */
  restartFrame(step: number): void {
    this.requirePaused('restartFrame');
    const i = this.checkpoints.findIndex(c => c.step === step);
    if (i < 0) throw new Error(`restartFrame: the run did not pause at step ${step}; only a step it paused at can be returned to`);
    this.rewind(i, 'restart-frame');
  }

  /**
   * While paused: this pause as a point to come back to with `goTo`, from anywhere the run goes later (also from
   * another line after going back before it). A search over steps keeps one per node.
   */
  savePoint(): RunPoint {
    this.requirePaused('savePoint');
    return { [POINT]: [...this.checkpoints] } as RunPoint;
  }

  /** Back (or across) to a point saved with `savePoint`; the run pauses there again. The line left is a branch. */
  goTo(point: RunPoint, why: BranchReason = 'search'): void {
    this.requirePaused('goTo');
    const stack = (point as unknown as Record<typeof POINT, Checkpoint[] | undefined>)[POINT];
    if (!stack?.length) throw new Error('goTo: not a point saved by savePoint() of this run');
    const to = stack[stack.length - 1];
    this.rewindTo = new Rewind(to, why, stack.slice(0, -1));
    this.resumeFn?.('rewind');
  }

  private isBreakpointCheckpoint(c: Checkpoint): boolean {
    if (c.reason === 'breakpoint') return true;
    const call = c.callId !== undefined ? c.calls.find(x => x.id === c.callId) : undefined;
    if (call && this.breakpoints.tools.includes(normalizeName(call.tool))) return true;
    if (call?.inline) return false;
    if (this.protocol.kind === 'agent') return c.label !== undefined && this.breakpoints.states.includes(c.label);
    return this.protocol.kind === 'art' && this.breakpoints.steps.includes(c.step);
  }

  private rewind(index: number, why: BranchReason): void {
    this.rewindTo = new Rewind(this.checkpoints[index], why);
    this.resumeFn?.('rewind');
  }

  /** Restores a checkpoint: the text, the calls, the counts, what was handled; the trace says which future was left. */
  private restore(back: Rewind): void {
    const cp = back.to;
    const changed = this.calls.filter(c => {
      const was = cp.calls.find(x => x.id === c.id);
      return !was || JSON.stringify(was) !== JSON.stringify(c);
    });
    this.trace({
      t: 'branch',
      at: Date.now(),
      why: back.why,
      fromCheckpoint: cp.index,
      step: cp.step,
      from: cp.traceAt,
      to: this.traceCount,
      text: this.text,
      calls: changed.map(c => ({ ...c })),
    });
    this.checkpoints = back.line ? [...back.line] : this.checkpoints.slice(0, cp.index);
    this.written = cp.written;
    this.handled.clear();
    for (const k of cp.handled) this.handled.add(k);
    this.calls.length = 0;
    this.calls.push(...cp.calls.map(c => ({ ...c })));
    this.usage.promptTokens = cp.usage.promptTokens;
    this.usage.completionTokens = cp.usage.completionTokens;
    this.requests = cp.requests;
    this.constrainedRequests = cp.constrainedRequests;
    this.corrections = cp.corrections;
    this.correctionLog.splice(0, this.correctionLog.length, ...cp.correctionLog);
    this.lastDropped = cp.lastDropped;
    this.currentCall = cp.callId !== undefined ? this.calls.find(c => c.id === cp.callId) : this.calls[this.calls.length - 1];
    this.lastConstraint = undefined;
    this.stepping = false;
    this.pauseRequested = false;
    this.forced = undefined;
    this.emit('text', { delta: '', text: this.text });
    this.emit('rewound', { checkpoint: cp.index, step: cp.step, why: back.why });
  }

  /** Pauses again at a restored checkpoint, then goes on from it as the run did the first time. */
  private async reenter(back: Rewind): Promise<RunResult | null> {
    this.restore(back);
    const cp = back.to;
    const r = cp.resume;
    const at = { phase: cp.phase, breakpoint: cp.breakpoint };
    if (r.kind === 'loop') {
      await this.pauseAt(cp.reason, undefined, at, r, false);
      return null;
    }
    if (r.kind === 'boundary') {
      await this.pauseAt(cp.reason, undefined, at, r, false);
      this.append(this.protocol.resumeAfter(this.written, r.action));
      return null;
    }
    const call = this.calls.find(c => c.id === r.callId)!;
    const dc = { ...r.dc, inputSpan: { ...r.dc.inputSpan } };
    if (r.phase === 'before') {
      await this.pauseBeforeCall(call, dc, cp.reason, cp.breakpoint, false);
      return this.runCall(call, dc);
    }
    await this.pauseAfterCall(call, dc, cp.reason, false);
    return this.finishCall(call, dc);
  }

  // ---- alternatives at a step ----

  /**
   * While paused: asks the model for `k` continuations of the next step (one request with n = k where the client
   * can, else k requests), each up to the next tool call or the end, ranked by average negative log-likelihood
   * where the endpoint returns logprobs, else by vote; identical texts are one alternative. Best first.
   */
  async alternatives(k: number): Promise<Alternative[]> {
    this.requirePaused('alternatives');
    if (!Number.isInteger(k) || k < 1 || k > 16) throw new Error('alternatives: k must be a whole number from 1 to 16');
    if (this.pending?.phase === 'before') throw new Error('alternatives: the paused tool has not run yet; continue to its output first');
    const base = this.written + this.appendOnResume();
    const prompt = this.protocol.prompt + base;
    const stop = this.protocol.stops(base);
    const t = this.opts.temperature;
    const req: CompletionRequest = {
      prompt,
      stop,
      maxTokens: this.maxTokens,
      temperature: t && t > 0 ? t : 0.8,
      logprobs: true,
      signal: this.runCtrl.signal,
    };
    const model = this.opts.model as ModelClient & { completeMany?: (r: CompletionRequest, n: number) => Promise<CompletionResult[]> };
    let results: CompletionResult[];
    if (typeof model.completeMany === 'function') results = await model.completeMany(req, k);
    else {
      results = [];
      for (let i = 0; i < k; i++) results.push(await model.complete(req));
    }
    const usage: Usage = { promptTokens: 0, completionTokens: 0 };
    for (const r of results) {
      usage.promptTokens += r.usage?.promptTokens ?? 0;
      usage.completionTokens += r.usage?.completionTokens ?? 0;
    }
    this.addUsage(usage);
    const list = rankAlternatives(results.map(r => ({ text: this.nextStepOf(base, r.text), logprobs: r.tokenLogprobs })));
    for (const a of list) a.then = this.afterAlternative(base, a.text);
    this.protocol.detect(this.written);
    const cp = this.checkpoints[this.checkpoints.length - 1];
    this.offered = { checkpoint: cp.index, list };
    this.trace({ t: 'alternatives', at: Date.now(), fromCheckpoint: cp.index, step: cp.step, prompt, k, alternatives: list, usage });
    return list.map(a => ({ ...a }));
  }

  /**
   * Continues with alternative `index` of the last `alternatives()`; the others stay in the trace as branches.
   * `step`: pause again at the next step (or tool call) instead of running on.
   */
  chooseAlternative(index: number, step = false): void {
    this.requirePaused('chooseAlternative');
    const cp = this.checkpoints[this.checkpoints.length - 1];
    const o = this.offered;
    if (!o || o.checkpoint !== cp.index) throw new Error('chooseAlternative: ask for alternatives at this pause first');
    const chosen = o.list[index];
    if (!Number.isInteger(index) || !chosen)
      throw new Error(`chooseAlternative: there are ${o.list.length} alternatives (index 0 to ${o.list.length - 1})`);
    o.list.forEach((a, i) => {
      if (i !== index)
        this.trace({ t: 'branch', at: Date.now(), why: 'alternative', fromCheckpoint: cp.index, step: cp.step, text: a.text, nll: a.nll });
    });
    this.continueWith(chosen.text, index, step);
  }

  /**
   * Continues with a continuation sampled at this point earlier (`alternatives()` here, before a `goTo` back): it is
   * streamed as the next completion, not sent to the model again. `index` is its rank among the alternatives.
   */
  continueWith(text: string, index: number, step = false): void {
    this.requirePaused('continueWith');
    if (this.pending?.phase === 'before') throw new Error('continueWith: the paused tool has not run yet; continue to its output first');
    this.forced = { text, index };
    this.offered = null;
    this.resume(step ? 'step' : 'continue');
  }

  /** While paused: the program text as the run goes on from here (a paused call's output appended, an answer marker). */
  textOnResume(): string {
    this.requirePaused('textOnResume');
    return this.text + this.appendOnResume();
  }

  /** What resuming from the current pause appends before the next request (a call's output, an answer marker). */
  private appendOnResume(): string {
    const r = this.pauseResume;
    if (!r || r.kind === 'loop') return '';
    if (r.kind === 'boundary') return this.protocol.resumeAfter(this.written, r.action);
    const call = this.calls.find(c => c.id === r.callId);
    if (!call) return '';
    const output = call.override ?? (call.error !== undefined || call.skipped ? null : (call.output ?? ''));
    return this.protocol.appendOutput(this.written, r.dc, output);
  }

  /** A sampled continuation up to where the run would stop it: the next call, the end, a correction. */
  private nextStepOf(base: string, text: string): string {
    const stop = this.protocol.detect(base + text).find(d => d.cut >= base.length && (d.type !== 'boundary' || d.call));
    const cut = stop ? stop.cut - base.length : text.length;
    this.protocol.detect(this.written);
    return text.slice(0, cut);
  }

  /** What the run does once an alternative is streamed (see Alternative.then). */
  private afterAlternative(base: string, text: string): Alternative['then'] {
    const all = base + text;
    const stop = this.protocol.detect(all).find(d => d.cut >= base.length && (d.type !== 'boundary' || d.call));
    if (stop) return stop.type === 'end' ? 'end' : stop.type === 'correction' ? 'more' : 'pause';
    const end = this.protocol.atStreamEnd(all, 'stop', true);
    return end.type === 'end' ? 'end' : end.type === 'boundary' ? 'pause' : end.type === 'incomplete' ? 'incomplete' : 'more';
  }

  /** Resume from a pause. */
  continue(): void {
    this.resume('continue');
  }

  /** Resume and pause again at the next step (or tool call); while running, pause at the next step. */
  step(): void {
    if (this.runState === 'paused') this.resume('step');
    else if (this.runState === 'running') this.stepping = true;
  }

  /** Pause as soon as possible (the stream is cut at the text received so far). */
  pause(): void {
    if (this.runState === 'running') this.pauseRequested = true;
  }

  /** End the run: cancels the request or tool in flight. */
  stop(): void {
    if (this.runState === 'finished') return;
    this.stopped = true;
    this.runCtrl.abort(new Error('stopped by the user'));
    this.resumeFn?.('continue');
  }

  /** Before a tool runs: change its input (the program text changes too, so the model sees the edit). */
  setToolInput(text: string): void {
    const p = this.requirePending('setToolInput', 'before');
    p.setInput!(text);
    p.call.input = text;
    p.call.inputEdited = true;
    this.trace({ t: 'edit', at: Date.now(), what: 'input', callId: p.call.id, text });
    this.emit('edit', { what: 'input', call: { ...p.call } });
  }

  /** After a tool ran (or failed), or before it runs: the output the model sees instead of the tool's. */
  setToolOutput(text: string): void {
    const p = this.requirePending('setToolOutput');
    p.call.override = text;
    this.trace({ t: 'edit', at: Date.now(), what: 'output', callId: p.call.id, text });
    this.emit('edit', { what: 'output', call: { ...p.call } });
  }

  /** Before a tool runs: do not run it; the model writes the output itself. */
  skipTool(): void {
    const p = this.requirePending('skipTool', 'before');
    p.call.skipped = true;
    this.trace({ t: 'edit', at: Date.now(), what: 'skip', callId: p.call.id });
    this.emit('edit', { what: 'skip', call: { ...p.call } });
  }

  setBreakpoints(b: Breakpoints): void {
    this.breakpoints = { steps: [...(b.steps ?? [])], states: [...(b.states ?? [])], tools: (b.tools ?? []).map(normalizeName) };
  }

  // ---- the loop ----

  private get maxTokens(): number {
    return this.opts.maxTokens ?? 512;
  }

  private get pauseAfterTool(): boolean {
    return this.opts.pauseAfterTool ?? true;
  }

  /** One request: streams until a detection stops it or the stream ends. */
  private async generate(): Promise<StreamEndAction | { type: 'paused' }> {
    const n = ++this.requests;
    const stop = this.opts.model.honoursStop ? this.protocol.stops(this.written) : [];
    const prompt = this.protocol.prompt + this.written;
    const forced = this.forced;
    this.forced = undefined;
    const constraint = forced ? null : ((await this.opts.constrainer?.forRequest(this.protocol, this.written)) ?? null);
    this.lastConstraint = constraint ? `${constraint.server} ${constraint.form}` : undefined;
    if (constraint) this.constrainedRequests++;
    this.trace({
      t: 'request',
      at: Date.now(),
      n,
      prompt,
      stop,
      maxTokens: this.maxTokens,
      temperature: this.opts.temperature,
      constraint: constraint ?? undefined,
      alternative: forced?.index,
    });
    this.emit('request', { n, stop, promptLength: prompt.length, at: performance.now() });
    const ctrl = new AbortController();
    const onRunAbort = () => ctrl.abort(this.runCtrl.signal.reason);
    this.runCtrl.signal.addEventListener('abort', onRunAbort, { once: true });
    const it = forced
      ? forcedStream(forced.text)
      : streamConstrained(
          this.opts.model,
          { prompt, stop, maxTokens: this.maxTokens, temperature: this.opts.temperature, signal: ctrl.signal },
          constraint,
          reason => {
            this.constrainedRequests--;
            this.lastConstraint = undefined;
            this.opts.log?.(`request ${n}: the server rejected the decoding constraint, sent again without it (${reason})`);
            this.trace({ t: 'unconstrained', at: Date.now(), n, reason });
          },
        );
    const startLen = this.written.length;
    let result: CompletionResult | undefined;
    let cached = false;
    try {
      for (;;) {
        const r = await it.next();
        if (r.done) {
          result = r.value;
          break;
        }
        const delta = r.value.text;
        if (r.value.cached) cached = true;
        if (!delta) continue;
        this.written += delta;
        this.trace({ t: 'chunk', at: Date.now(), n, text: delta });
        this.emit('text', { delta, text: this.text });
        const stopAt = this.firstStop(this.protocol.detect(this.written));
        if (stopAt) {
          this.closeStream(it, ctrl);
          this.cutAt(stopAt.cut, n, startLen, { aborted: true, cached: cached || undefined });
          return stopAt;
        }
        if (this.pauseRequested) {
          this.closeStream(it, ctrl);
          this.trace({
            t: 'completion',
            at: Date.now(),
            n,
            text: this.written.slice(startLen),
            aborted: true,
            paused: true,
            cached: cached || undefined,
          });
          return { type: 'paused' };
        }
      }
    } catch (err) {
      if (this.stopped) throw new Stopped();
      throw err;
    } finally {
      this.runCtrl.signal.removeEventListener('abort', onRunAbort);
      ctrl.abort();
    }
    this.addUsage(result?.usage);
    // A chosen alternative was sampled with the stop sequences (applied by the endpoint or by the client).
    const end = this.protocol.atStreamEnd(this.written, result?.finishReason, stop.length > 0 || !!forced);
    const cut = end.type === 'end' || end.type === 'boundary' || end.type === 'correction' ? end.cut : this.written.length;
    this.cutAt(cut, n, startLen, { finishReason: result?.finishReason, usage: result?.usage, cached: cached || result?.cached || undefined });
    if (end.type === 'boundary' && !end.call && !this.wantsPauseAt(end)) {
      // A step that is not a call, reached by a stop sequence: go on with its answer at once.
      this.markStep(end);
      return { type: 'continue', append: this.protocol.resumeAfter(this.written, end) };
    }
    return end;
  }

  /** What to do with a detection or a stream end; returns the result when the run is over. */
  private async act(action: StreamEndAction | { type: 'paused' }): Promise<RunResult | null> {
    switch (action.type) {
      case 'paused':
        await this.pauseAt('pause', undefined, {}, { kind: 'loop' });
        return null;
      case 'continue':
        this.append(action.append);
        return null;
      case 'incomplete':
        return this.finish('incomplete', action.message);
      case 'end':
        return this.finish('finished');
      case 'correction':
        this.applyCorrection(action);
        return null;
      case 'boundary': {
        if (action.call) return this.callTool(action);
        this.markStep(action);
        const kind = this.breakpointKind(action);
        await this.pauseAt(kind ? 'breakpoint' : 'step', undefined, { breakpoint: kind }, { kind: 'boundary', action });
        this.append(this.protocol.resumeAfter(this.written, action));
        return null;
      }
    }
  }

  /** The first detection that must stop the stream; passes (and reports) steps that need no pause. */
  private firstStop(ds: Detection[]): Detection | null {
    for (const d of ds) {
      if (d.type !== 'boundary') return d;
      if (this.handled.has(d.key)) continue;
      if (d.call || this.wantsPauseAt(d)) return d;
      this.markStep(d);
    }
    return null;
  }

  private wantsPauseAt(b: Boundary): boolean {
    return this.stepping || this.pauseRequested || this.breakpointAt(b);
  }

  private breakpointAt(b: Boundary): boolean {
    return this.breakpointKind(b) !== undefined;
  }

  /** The breakpoint that holds at a boundary: its agent state's, or its ART step's. */
  private breakpointKind(b: Boundary): BreakpointKind | undefined {
    // An inline trigger sits inside a step's answer: the step's breakpoint held when its query was complete.
    if (b.inline) return undefined;
    if (b.state !== undefined) return this.breakpoints.states.includes(b.state) ? 'state' : undefined;
    return this.protocol.kind === 'art' && this.breakpoints.steps.includes(b.step) ? 'step' : undefined;
  }

  private markStep(b: Boundary): void {
    if (this.handled.has(b.key)) return;
    this.handled.add(b.key);
    const steps = this.stepViews();
    this.emit('step', {
      step: steps.find(s => s.label === b.label && s.number === b.step) ?? steps[steps.length - 1],
      label: b.label,
      number: b.step,
    });
  }

  private async callTool(b: Boundary): Promise<RunResult | null> {
    if (this.calls.length >= (this.opts.maxCalls ?? 32)) return this.finish('limit', `stopped after ${this.calls.length} tool calls (maxCalls)`);
    const dc = { ...b.call! };
    this.handled.add(b.key);
    const call: ToolCall = {
      id: this.calls.length + 1,
      tool: dc.tool,
      input: dc.input,
      previousAnswer: dc.previousAnswer,
      step: dc.step,
      state: dc.state,
    };
    if (dc.inline) call.inline = true;
    if (this.lastConstraint) call.constrained = this.lastConstraint;
    this.calls.push(call);
    this.currentCall = call;
    this.emit('step', { step: this.stepViews().find(s => s.number === b.step), label: b.label, number: b.step });

    // Before the tool: the input can be edited, the output set, or the tool skipped.
    const toolBreak: BreakpointKind | undefined = this.breakpoints.tools.includes(normalizeName(dc.tool)) ? 'tool' : this.breakpointKind(b);
    if (this.opts.pauseBeforeTool || toolBreak || this.stepping || this.pauseRequested) {
      const reason = toolBreak ? 'breakpoint' : this.opts.pauseBeforeTool ? 'before-tool' : this.pauseRequested ? 'pause' : 'step';
      await this.pauseBeforeCall(call, dc, reason, toolBreak);
    }
    return this.runCall(call, dc);
  }

  private async pauseBeforeCall(
    call: ToolCall,
    dc: DetectedCall,
    reason: PauseReason,
    breakpoint: BreakpointKind | undefined,
    traced = true,
  ): Promise<void> {
    this.pending = {
      call,
      phase: 'before',
      written: () => this.written,
      setInput: text => {
        this.written = replaceInput(this.written, dc, text);
        dc.inputSpan = { start: dc.inputSpan.start, end: dc.inputSpan.start + text.length };
        dc.input = text;
      },
    };
    const resume: Continuation = { kind: 'call', callId: call.id, dc: { ...dc, inputSpan: { ...dc.inputSpan } }, phase: 'before' };
    await this.pauseAt(reason, call, { phase: 'before', breakpoint }, resume, traced);
  }

  /** The call from its tool on: runs it (unless skipped or overridden), pauses after it, appends the output. */
  private async runCall(call: ToolCall, dc: DetectedCall): Promise<RunResult | null> {
    if (call.skipped || call.override !== undefined) {
      if (call.skipped) call.fallback = true;
    } else {
      await this.runTool(call, dc);
    }

    // After the tool: the output can be overridden; a failure is shown and the model writes the output.
    if (this.stopped) throw new Stopped();
    const failed = call.error !== undefined;
    const pauseAfter = !call.skipped && (failed ? (this.opts.pauseOnToolError ?? true) || this.pauseAfterTool : this.pauseAfterTool);
    if (pauseAfter || this.stepping || this.pauseRequested) {
      const reason = call.error !== undefined ? 'tool-error' : this.pauseAfterTool ? 'after-tool' : this.pauseRequested ? 'pause' : 'step';
      await this.pauseAfterCall(call, dc, reason);
    }
    return this.finishCall(call, dc);
  }

  private async pauseAfterCall(call: ToolCall, dc: DetectedCall, reason: PauseReason, traced = true): Promise<void> {
    this.pending = { call, phase: 'after', written: () => this.written };
    const resume: Continuation = { kind: 'call', callId: call.id, dc: { ...dc, inputSpan: { ...dc.inputSpan } }, phase: 'after' };
    await this.pauseAt(reason, call, { phase: 'after' }, resume, traced);
  }

  private finishCall(call: ToolCall, dc: DetectedCall): null {
    const output = call.override ?? (call.error !== undefined || call.skipped ? null : (call.output ?? ''));
    if (output === null) {
      call.fallback = true;
      if (call.error !== undefined) this.opts.log?.(`${call.tool} failed (${call.error}); the model writes the output`);
    }
    const appended = this.protocol.appendOutput(this.written, dc, output);
    call.appended = appended;
    this.append(appended);
    this.trace({ t: 'tool', at: Date.now(), call: { ...call } });
    this.emit('toolDone', { call: { ...call } });
    return null;
  }

  private async runTool(call: ToolCall, dc: { input: string; previousAnswer?: string; answers?: ReadonlyMap<number, string> }): Promise<void> {
    const tool = this.opts.tools.get(call.tool);
    const started = performance.now();
    this.emit('toolStart', { call: { ...call }, at: started });
    let result: ToolResult;
    if (!tool) {
      result = { ok: false, error: `"${call.tool}" is not a tool the runner knows` };
    } else {
      const ctrl = new AbortController();
      const onAbort = () => ctrl.abort(this.runCtrl.signal.reason);
      this.runCtrl.signal.addEventListener('abort', onAbort, { once: true });
      const limit = this.toolTimeout(call.tool);
      let timer: NodeJS.Timeout | undefined;
      // The tool gets the timeout and should stop itself; the runner stops waiting a little later regardless.
      const hardLimit = limit === undefined ? 120_000 : limit + Math.min(1000, limit);
      const timeout = new Promise<ToolResult>(resolve => {
        timer = setTimeout(() => {
          ctrl.abort(new Error('timed out'));
          resolve({ ok: false, error: `${call.tool} timed out after ${formatMs(limit ?? hardLimit)}`, timedOut: true });
        }, hardLimit);
      });
      try {
        result = await Promise.race([
          tool
            .run(
              { instruction: dc.input, previousAnswer: dc.previousAnswer, answers: dc.answers },
              {
                signal: ctrl.signal,
                timeoutMs: limit,
                model: this.toolModel,
                workspaceRoot: this.opts.workspaceRoot,
                log: this.opts.log,
              },
            )
            .catch((err: unknown): ToolResult => ({ ok: false, error: `${call.tool} failed: ${err instanceof Error ? err.message : String(err)}` })),
          timeout,
        ]);
      } finally {
        clearTimeout(timer);
        this.runCtrl.signal.removeEventListener('abort', onAbort);
        ctrl.abort();
      }
    }
    call.durationMs = Math.round((performance.now() - started) * 100) / 100;
    if (result.ok) call.output = result.output;
    else {
      call.error = result.error;
      if (result.timedOut) call.timedOut = true;
    }
    if (result.details) call.details = result.details;
    this.emit('toolEnd', { call: { ...call }, at: performance.now() });
  }

  private toolTimeout(name: string): number | undefined {
    const key = normalizeName(name);
    for (const [n, ms] of Object.entries(this.opts.toolTimeouts ?? {})) if (normalizeName(n) === key) return ms;
    return this.opts.toolTimeoutMs;
  }

  private applyCorrection(c: Extract<Detection, { type: 'correction' }>): void {
    const removed = this.lastDropped;
    this.corrections++;
    this.append(c.insert);
    const offset = this.protocol.header.length + c.cut;
    this.correctionLog.push({ offset, found: c.found, expected: [...c.expected], removed, inserted: c.insert });
    this.trace({ t: 'correction', at: Date.now(), offset, found: c.found, expected: c.expected, removed, inserted: c.insert });
    this.emit('correction', { offset, found: c.found, expected: c.expected, removed, inserted: c.insert });
  }

  private lastDropped = '';

  /** Ends request `n`'s text at `cut`, dropping what the model wrote past a stop point, and traces the completion. */
  private cutAt(
    cut: number,
    n: number,
    requestStart: number,
    extra: { finishReason?: string; usage?: Usage; aborted?: boolean; cached?: boolean } = {},
  ): void {
    const dropped = this.written.slice(cut);
    this.lastDropped = dropped;
    const generated = this.written.slice(requestStart, Math.max(requestStart, cut));
    this.written = this.written.slice(0, cut);
    this.trace({ t: 'completion', at: Date.now(), n, text: generated, ...extra, cut: dropped ? cut : undefined, dropped: dropped || undefined });
    if (dropped) this.emit('cut', { dropped, at: performance.now() });
  }

  private closeStream(it: AsyncGenerator<unknown, unknown, void>, ctrl: AbortController): void {
    ctrl.abort();
    void it.return(undefined).catch(() => undefined);
  }

  private append(text: string): void {
    if (!text) return;
    this.written += text;
    this.emit('text', { delta: text, text: this.text });
  }

  private addUsage(u: Usage | undefined): void {
    if (u) {
      this.usage.promptTokens += u.promptTokens;
      this.usage.completionTokens += u.completionTokens;
    }
    this.emit('usage', { request: u, total: { ...this.usage } });
  }

  /**
   * Pauses and waits for the user. `resume` is how the run goes on from here (kept in the pause's checkpoint);
   * `traced`: false when pausing again at a checkpoint gone back to (its pause record is in the trace already).
   */
  private async pauseAt(
    reason: PauseReason,
    call: ToolCall | undefined,
    at: { phase?: 'before' | 'after'; breakpoint?: BreakpointKind },
    resume: Continuation,
    traced = true,
  ): Promise<void> {
    if (this.stopped) throw new Stopped();
    this.runState = 'paused';
    this.stepping = false;
    this.pauseRequested = false;
    if (traced) this.trace({ t: 'pause', at: Date.now(), reason, callId: call?.id, step: call?.step });
    this.checkpoints.push(this.capture(reason, call, at, resume));
    this.pauseResume = resume;
    const resumed = new Promise<Resume>(resolve => (this.resumeFn = resolve));
    const snapshot = this.snapshot();
    const steps = snapshot.steps;
    const step = (call && (steps.find(s => s.callId === call.id) ?? steps.find(s => s.number === call.step))) || steps[steps.length - 1];
    this.pauseInfo = { reason, snapshot, description: describePause(reason, call), step };
    if (at.phase) this.pauseInfo.phase = at.phase;
    if (at.breakpoint) this.pauseInfo.breakpoint = at.breakpoint;
    this.pauseCall = call;
    this.emit('paused', this.paused!);
    const how = await resumed;
    this.resumeFn = null;
    this.pending = null;
    this.pauseInfo = null;
    this.pauseCall = undefined;
    this.pauseResume = null;
    this.offered = null;
    if (this.stopped) throw new Stopped();
    if (how === 'rewind' && this.rewindTo) {
      const back = this.rewindTo;
      this.rewindTo = null;
      throw back;
    }
    // Leaving the pause: the checkpoint's trace position is where its future starts.
    this.checkpoints[this.checkpoints.length - 1].traceAt = this.traceCount;
    this.runState = 'running';
    if (how === 'step') this.stepping = true;
    this.emit('resumed', { step: how === 'step' });
  }

  /** The run as it stands at a pause, to come back to. */
  private capture(
    reason: PauseReason,
    call: ToolCall | undefined,
    at: { phase?: 'before' | 'after'; breakpoint?: BreakpointKind },
    resume: Continuation,
  ): Checkpoint {
    const steps = this.stepViews();
    const step =
      resume.kind === 'call'
        ? resume.dc.step
        : resume.kind === 'boundary'
          ? resume.action.step
          : reason === 'entry'
            ? 0
            : (steps[steps.length - 1]?.number ?? 0);
    const label =
      resume.kind === 'call'
        ? (resume.dc.state ?? `Q${resume.dc.step}`)
        : resume.kind === 'boundary'
          ? resume.action.label
          : steps[steps.length - 1]?.label;
    return {
      index: this.checkpoints.length,
      reason,
      phase: at.phase,
      breakpoint: at.breakpoint,
      step,
      label,
      callId: call?.id,
      written: this.written,
      handled: [...this.handled],
      calls: this.calls.map(c => ({ ...c })),
      usage: { ...this.usage },
      requests: this.requests,
      constrainedRequests: this.constrainedRequests,
      corrections: this.corrections,
      correctionLog: [...this.correctionLog],
      lastDropped: this.lastDropped,
      traceAt: this.traceCount,
      resume,
    };
  }

  private requirePaused(what: string): void {
    if (this.runState !== 'paused' || !this.resumeFn) throw new Error(`${what}: only possible while the run is paused`);
  }

  private resume(how: Resume): void {
    if (this.runState !== 'paused' || !this.resumeFn) return;
    this.resumeFn(how);
  }

  private requirePending(what: string, phase?: 'before' | 'after'): Pending {
    const p = this.pending;
    if (this.runState !== 'paused' || !p) throw new Error(`${what}: the run is not paused at a tool call`);
    if (phase && p.phase !== phase)
      throw new Error(`${what}: only possible ${phase === 'before' ? 'before the tool runs (pauseBeforeTool)' : 'after the tool ran'}`);
    return p;
  }

  private stepViews(): StepView[] {
    const steps = this.protocol.steps(this.written);
    // Link each step to its call.
    for (const c of this.calls) {
      const s = steps.find(v => v.number === c.step);
      if (s) s.callId = c.id;
    }
    return steps;
  }

  private finish(reason: EndReason, error?: string): RunResult {
    if (this.result) return this.result;
    this.runState = 'finished';
    const snapshot = this.snapshot();
    const result: RunResult = { reason, answer: this.protocol.answer(this.written), snapshot, error };
    this.result = result;
    this.trace({
      t: 'end',
      at: Date.now(),
      reason,
      answer: result.answer,
      text: snapshot.text,
      usage: { ...this.usage },
      requests: this.requests,
      error,
    });
    this.emit('end', result);
    return result;
  }

  /** Writes a record to the run's trace (shells note what the runner does not know, e.g. a switch to a live model). */
  writeTrace(r: TraceRecord): void {
    this.trace(r);
  }

  private trace(r: TraceRecord): void {
    this.traceCount++;
    try {
      this.opts.trace?.write(r);
    } catch (err) {
      this.opts.log?.(`could not write the trace: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

/** The text a debugger shows with a stop (DAP `stopped` description). */
export function describePause(reason: PauseReason, call?: ToolCall): string {
  const tool = call ? `[${call.tool}]` : '';
  switch (reason) {
    case 'entry':
      return 'Paused before the first request';
    case 'before-tool':
      return `Paused before tool ${tool}`;
    case 'after-tool':
      return `Tool call ${tool} returned`;
    case 'tool-error':
      return `Tool ${tool} failed: ${call?.error ?? ''} (continue: the model writes the output)`;
    case 'breakpoint':
      return call ? `Breakpoint at tool ${tool}` : 'Breakpoint';
    case 'step':
      return call ? `Step: tool ${tool}` : 'Step';
    case 'pause':
      return 'Paused';
  }
}

/** Streams a chosen alternative as if the model wrote it again (no request, no tokens). */
async function* forcedStream(text: string): AsyncGenerator<CompletionChunk, CompletionResult, void> {
  yield { text };
  return { text, finishReason: 'stop', usage: { promptTokens: 0, completionTokens: 0 } };
}

/** Groups identical samples and ranks them: by average negative log-likelihood when every one has logprobs, else by vote. */
export function rankAlternatives(samples: { text: string; logprobs?: number[] }[]): Alternative[] {
  const byText = new Map<string, Alternative>();
  for (const s of samples) {
    const lp = (s.logprobs ?? []).filter(Number.isFinite);
    const nll = lp.length ? -lp.reduce((a, b) => a + b, 0) / lp.length : null;
    const seen = byText.get(s.text);
    if (seen) {
      seen.votes++;
      if (nll !== null && (seen.nll === null || nll < seen.nll)) {
        seen.nll = nll;
        seen.tokens = lp.length;
      }
    } else byText.set(s.text, { text: s.text, nll, votes: 1, ...(nll !== null ? { tokens: lp.length } : {}) });
  }
  const list = [...byText.values()];
  const scored = list.every(a => a.nll !== null);
  return list.sort((a, b) => (scored ? a.nll! - b.nll! || b.votes - a.votes : b.votes - a.votes));
}

/** The tool model, with each request an LLM-backed tool makes written to the trace (so a re-run can serve it from there). */
function tracedToolModel(model: ModelClient, trace: (r: TraceRecord) => void, callId: () => number | undefined): ModelClient {
  const record = (req: CompletionRequest, r: CompletionResult) =>
    trace({
      t: 'toolRequest',
      at: Date.now(),
      callId: callId(),
      prompt: req.prompt,
      stop: req.stop ?? [],
      maxTokens: req.maxTokens,
      temperature: req.temperature,
      text: r.text,
      finishReason: r.finishReason,
      usage: r.usage,
      cached: r.cached || undefined,
    });
  const traced: ModelClient = {
    id: model.id,
    honoursStop: model.honoursStop,
    async *stream(req) {
      const r = yield* model.stream(req);
      record(req, r);
      return r;
    },
    async complete(req) {
      const r = await model.complete(req);
      record(req, r);
      return r;
    },
  };
  // What a model may offer besides completions (a replay's recorded answers) passes through unchanged.
  if (model.recordedAnswer) traced.recordedAnswer = instruction => model.recordedAnswer!(instruction);
  return traced;
}
