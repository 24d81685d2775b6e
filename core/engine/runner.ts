// The step-through runner: streams the model's continuation, stops generation the moment a tool call is complete
// (stop sequences where the endpoint honours them, else by aborting the stream and dropping the text past the
// call), runs the tool, appends its output and resumes. It pauses like a debugger (before/after tools, at steps,
// at breakpoints) and reports everything through events. It knows nothing of DAP or VS Code; see README.md.
import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { CompletionResult, ModelClient, Usage } from '../model/types';
import { DepartedError } from './types';
import type { Boundary, DetectedCall, Detection, RunProtocol, StreamEndAction } from '../protocols/runProtocol';
import { replaceInput } from '../protocols/runProtocol';
import { streamConstrained } from '../protocols/constraints';
import type { TraceRecord } from '../trace/schema';
import { forcedStream, sampleAlternatives } from './alternatives';
import {
  branchLeft,
  capture,
  checkpointsOf,
  keepEdits,
  keptEdits,
  checkpointView,
  newProgress,
  pointOf,
  restoreProgress,
  reverseContinueTarget,
  Rewind,
  type Checkpoint,
  type Continuation,
  type Progress,
  type RunPoint,
} from './checkpoints';
import { breakpointAt, describePause, normalizeBreakpoints, toolBreakpointAt, type Hold, type Pending, type Resume } from './pause';
import { addedSince, Reply, stalled, TextEvents } from './reply';
import { maxTokensOf, pauseAfterToolOf, runRecord, type RunnerOptions } from './runnerOptions';
import { snapshotOf, stepViewsOf } from './snapshot';
import { newCall, outputForModel, runTool, tracedToolModel } from './toolCalls';
import type { Alternative, BranchReason, EndReason, PauseReason, ToolCall } from '../trace/vocabulary';
import type { BreakpointKind, CheckpointView, Breakpoints, PauseInfo, RunResult, RunnerEvents, RunState, Snapshot } from './types';
import type { StepView } from '../protocols/types';

/** Thrown inside the loop when `stop()` was called. */
class Stopped extends Error {}

export class Runner extends EventEmitter<RunnerEvents> {
  /** The text generated, the calls, the counts: what a checkpoint saves. */
  private readonly progress: Progress;
  /** The constraint the latest request was sent with (`vllm regex`), for the call it wrote. */
  private lastConstraint: string | undefined;
  private runState: RunState = 'idle';
  private readonly runCtrl = new AbortController();
  private stopped = false;
  private stepping = false;
  private pauseRequested = false;
  private breakpoints: Required<Breakpoints> = { steps: [], states: [], tools: [] };
  private result: RunResult | null = null;
  private currentCall: ToolCall | undefined;
  /** The pause the run is at (null while it runs). */
  private hold: Hold | null = null;
  private unsubscribeRetries: (() => void) | undefined;
  /** The pauses so far (index 0: the start), the last being the current one while paused. */
  private checkpoints: Checkpoint[] = [];
  /** How many records this run wrote to its trace (positions in the trace, for branch records). */
  private traceCount = 0;
  /** Set by a rewind request while paused: the checkpoint to go back to. */
  private rewindTo: Rewind | null = null;
  /** The alternative chosen at the last pause, streamed as the next completion. */
  private forced: { text: string; index: number } | undefined;
  /** The model LLM-backed tools get: the tool model, with its requests written to the trace. */
  private readonly toolModel: ModelClient;
  /** The `text` events (reply.ts). */
  private readonly view: TextEvents;

  constructor(
    readonly protocol: RunProtocol,
    private readonly opts: RunnerOptions,
  ) {
    super();
    this.progress = newProgress(opts.noProgressLimit);
    this.view = new TextEvents(this, protocol.header, () => this.text);
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
    return this.protocol.header + this.progress.written;
  }

  /** The full text the next request continues (prompt + generated). */
  get fullText(): string {
    return this.protocol.prompt + this.progress.written;
  }

  snapshot(): Snapshot {
    return snapshotOf(this.protocol, this.runState, this.progress, this.currentCall);
  }

  /** Where the paused run stands, or null while it runs. The call reflects the edits made during the pause. */
  get paused(): PauseInfo | null {
    if (!this.hold) return null;
    const call = this.hold.call;
    return { ...this.hold.info, call: call ? { ...call } : undefined };
  }

  /** How the run ended, once it has (null before). */
  get ended(): RunResult | null {
    return this.result;
  }

  // ---- control (the debugger's buttons) ----

  /** Runs to the end; resolves with the result (never rejects: errors end the run with reason `error`). */
  async run(): Promise<RunResult> {
    if (this.runState !== 'idle') throw new Error('this run has already started; create a new Runner to run again');
    this.runState = 'running';
    this.unsubscribeRetries = this.opts.model.addRetryListener?.(info => {
      this.trace({ t: 'retry', at: Date.now(), ...info });
      this.opts.log?.(`retry ${info.attempt} in ${info.delayMs} ms: ${info.reason}`);
      this.emit('retry', info);
    });
    this.trace(runRecord(this.protocol, this.opts));
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
          if (this.progress.requests >= (this.opts.maxRequests ?? 64))
            return this.finish('limit', `stopped after ${this.progress.requests} requests (maxRequests)`);
          const before = this.progress.written;
          const action = await this.generate();
          const added = addedSince(before, this.progress.written);
          const done = await this.act(action);
          if (done) return done;
          const stuck = stalled(this.progress, action, added);
          if (stuck) return this.finish('no-progress', stuck);
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
    return this.checkpoints.map(c => checkpointView(c, this.protocol.header.length));
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
    this.rewind(reverseContinueTarget(this.checkpoints, this.breakpoints, this.protocol.kind), 'reverse-continue');
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
    return pointOf(this.checkpoints);
  }

  /** Back (or across) to a point saved with `savePoint`; the run pauses there again. The line left is a branch. */
  goTo(point: RunPoint, why: BranchReason = 'search'): void {
    this.requirePaused('goTo');
    const stack = checkpointsOf(point);
    if (!stack?.length) throw new Error('goTo: not a point saved by savePoint() of this run');
    const to = stack[stack.length - 1];
    this.rewindTo = new Rewind(to, why, stack.slice(0, -1));
    this.hold?.resume('rewind');
  }

  private rewind(index: number, why: BranchReason): void {
    this.rewindTo = new Rewind(this.checkpoints[index], why);
    this.hold?.resume('rewind');
  }

  /** Restores a checkpoint: the text, the calls, the counts, what was handled; the trace says which future was left. */
  private restore(back: Rewind): void {
    const cp = back.to;
    this.trace(branchLeft(back, this.progress.calls, this.text, this.traceCount));
    this.checkpoints = back.line ? [...back.line] : this.checkpoints.slice(0, cp.index);
    restoreProgress(this.progress, cp);
    this.currentCall =
      cp.callId !== undefined ? this.progress.calls.find(c => c.id === cp.callId) : this.progress.calls[this.progress.calls.length - 1];
    this.lastConstraint = undefined;
    this.stepping = false;
    this.pauseRequested = false;
    this.forced = undefined;
    this.view.changedAt(0);
    this.view.show('');
    this.emit('rewound', {
      checkpoint: cp.index,
      step: cp.step,
      why: back.why,
      kept: keptEdits(cp.callId !== undefined ? this.currentCall : undefined),
    });
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
      this.append(this.protocol.resumeAfter(this.progress.written, r.action));
      return null;
    }
    const call = this.progress.calls.find(c => c.id === r.callId)!;
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
    if (this.hold!.pending?.phase === 'before') throw new Error('alternatives: the paused tool has not run yet; continue to its output first');
    const { prompt, list, usage } = await sampleAlternatives(this.protocol, this.opts.model, {
      written: this.progress.written,
      base: this.progress.written + this.appendOnResume(),
      k,
      temperature: this.opts.temperature,
      maxTokens: maxTokensOf(this.opts),
      signal: this.runCtrl.signal,
    });
    this.addUsage(usage);
    const cp = this.checkpoints[this.checkpoints.length - 1];
    if (this.hold) this.hold.offered = list;
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
    const offered = this.hold!.offered;
    if (!offered) throw new Error('chooseAlternative: ask for alternatives at this pause first');
    const chosen = offered[index];
    if (!Number.isInteger(index) || !chosen)
      throw new Error(`chooseAlternative: there are ${offered.length} alternatives (index 0 to ${offered.length - 1})`);
    offered.forEach((a, i) => {
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
    if (this.hold!.pending?.phase === 'before') throw new Error('continueWith: the paused tool has not run yet; continue to its output first');
    this.forced = { text, index };
    this.hold!.offered = null;
    this.resume(step ? 'step' : 'continue');
  }

  /** While paused: the program text as the run goes on from here (a paused call's output appended, an answer marker). */
  textOnResume(): string {
    this.requirePaused('textOnResume');
    return this.text + this.appendOnResume();
  }

  /** What resuming from the current pause appends before the next request (a call's output, an answer marker). */
  private appendOnResume(): string {
    const r = this.hold?.continuation;
    if (!r || r.kind === 'loop') return '';
    if (r.kind === 'boundary') return this.protocol.resumeAfter(this.progress.written, r.action);
    const call = this.progress.calls.find(c => c.id === r.callId);
    if (!call) return '';
    return this.protocol.appendOutput(this.progress.written, r.dc, outputForModel(call));
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
    this.hold?.resume('continue');
  }

  /** Before a tool runs: change its input (the program text changes too, so the model sees the edit). */
  setToolInput(text: string): void {
    const p = this.requirePending('setToolInput', 'before');
    p.setInput!(text);
    p.call.input = text;
    p.call.inputEdited = true;
    keepEdits(this.checkpoints.at(-1)!, this.progress);
    this.trace({ t: 'edit', at: Date.now(), what: 'input', callId: p.call.id, text });
    this.emit('edit', { what: 'input', call: { ...p.call } });
  }

  /** After a tool ran (or failed), or before it runs: the output the model sees instead of the tool's. */
  setToolOutput(text: string): void {
    const p = this.requirePending('setToolOutput');
    p.call.override = text;
    keepEdits(this.checkpoints.at(-1)!, this.progress);
    this.trace({ t: 'edit', at: Date.now(), what: 'output', callId: p.call.id, text });
    this.emit('edit', { what: 'output', call: { ...p.call } });
  }

  /** Before a tool runs: do not run it; the model writes the output itself. */
  skipTool(): void {
    const p = this.requirePending('skipTool', 'before');
    p.call.skipped = true;
    keepEdits(this.checkpoints.at(-1)!, this.progress);
    this.trace({ t: 'edit', at: Date.now(), what: 'skip', callId: p.call.id });
    this.emit('edit', { what: 'skip', call: { ...p.call } });
  }

  setBreakpoints(b: Breakpoints): void {
    this.breakpoints = normalizeBreakpoints(b);
  }

  // ---- the loop ----

  /** One request: streams until a detection stops it or the stream ends. */
  private async generate(): Promise<StreamEndAction | { type: 'paused' }> {
    const n = ++this.progress.requests;
    const stop = this.opts.model.honoursStop ? this.protocol.stops(this.progress.written) : [];
    const prompt = this.protocol.prompt + this.progress.written;
    const forced = this.forced;
    this.forced = undefined;
    const constraint = forced ? null : ((await this.opts.constrainer?.forRequest(this.protocol, this.progress.written)) ?? null);
    this.lastConstraint = constraint ? `${constraint.server} ${constraint.form}` : undefined;
    if (constraint) this.progress.constrainedRequests++;
    this.trace({
      t: 'request',
      at: Date.now(),
      n,
      prompt,
      stop,
      maxTokens: maxTokensOf(this.opts),
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
          { prompt, stop, maxTokens: maxTokensOf(this.opts), temperature: this.opts.temperature, signal: ctrl.signal },
          constraint,
          reason => {
            this.progress.constrainedRequests--;
            this.lastConstraint = undefined;
            this.opts.log?.(`request ${n}: the server rejected the decoding constraint, sent again without it (${reason})`);
            this.trace({ t: 'unconstrained', at: Date.now(), n, reason });
          },
        );
    const reply = new Reply(n, this.progress, this.protocol, this, r => this.trace(r), this.view);
    let result: CompletionResult | undefined;
    try {
      for (;;) {
        const r = await it.next();
        if (r.done) {
          result = r.value;
          break;
        }
        const added = reply.take(r.value);
        if (!added) continue;
        // Text is shown once the runner has read it: what a stop point or the continuation check cuts off never is.
        const stopAt = this.firstStop(reply.detect(added));
        const bad = reply.problem(false, stopAt);
        if (bad || stopAt) this.closeStream(it, ctrl);
        if (bad) return reply.malformed(bad, { aborted: true, cached: reply.cached || undefined });
        if (stopAt) {
          reply.cut(stopAt.cut, { aborted: true, cached: reply.cached || undefined });
          reply.show();
          return stopAt;
        }
        reply.show();
        if (this.pauseRequested) {
          this.closeStream(it, ctrl);
          const text = this.progress.written.slice(reply.start);
          this.trace({ t: 'completion', at: Date.now(), n, text, aborted: true, paused: true, cached: reply.cached || undefined });
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
    const extra = { finishReason: result?.finishReason, usage: result?.usage, cached: reply.cached || result?.cached || undefined };
    // A reply cut by a length limit goes on in the next request: its unfinished line is judged there.
    const bad = reply.problem(result?.finishReason !== 'length');
    if (bad) return reply.malformed(bad, extra);
    // A chosen alternative was sampled with the stop sequences (applied by the endpoint or by the client).
    const end = this.protocol.atStreamEnd(this.progress.written, result?.finishReason, stop.length > 0 || !!forced);
    const cut = end.type === 'end' || end.type === 'boundary' || end.type === 'correction' ? end.cut : this.progress.written.length;
    reply.cut(cut, extra);
    if (end.type === 'boundary' && !end.call && !this.wantsPauseAt(end)) {
      // A step that is not a call, reached by a stop sequence: go on with its answer at once.
      this.markStep(end);
      return { type: 'continue', append: this.protocol.resumeAfter(this.progress.written, end) };
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
      case 'malformed':
        return this.finish('malformed', action.message);
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
        this.append(this.protocol.resumeAfter(this.progress.written, action));
        return null;
      }
    }
  }

  /** The first detection that must stop the stream; passes (and reports) steps that need no pause. */
  private firstStop(ds: Detection[]): Detection | null {
    for (const d of ds) {
      if (d.type !== 'boundary') return d;
      if (this.progress.handled.has(d.key)) continue;
      if (d.call || this.wantsPauseAt(d)) return d;
      this.markStep(d);
    }
    return null;
  }

  private wantsPauseAt(b: Boundary): boolean {
    return this.stepping || this.pauseRequested || this.breakpointKind(b) !== undefined;
  }

  /** The breakpoint that holds at a boundary: its agent state's, or its ART step's. */
  private breakpointKind(b: Boundary): BreakpointKind | undefined {
    return breakpointAt(b, this.breakpoints, this.protocol.kind);
  }

  private markStep(b: Boundary): void {
    if (this.progress.handled.has(b.key)) return;
    this.progress.handled.add(b.key);
    const steps = this.stepViews();
    this.emit('step', {
      step: steps.find(s => s.label === b.label && s.number === b.step) ?? steps[steps.length - 1],
      label: b.label,
      number: b.step,
    });
  }

  private async callTool(b: Boundary): Promise<RunResult | null> {
    if (this.progress.calls.length >= (this.opts.maxCalls ?? 32))
      return this.finish('limit', `stopped after ${this.progress.calls.length} tool calls (maxCalls)`);
    const dc = { ...b.call! };
    this.progress.handled.add(b.key);
    const call = newCall(dc, this.progress.calls.length + 1, this.lastConstraint);
    this.progress.calls.push(call);
    this.currentCall = call;
    this.emit('step', { step: this.stepViews().find(s => s.number === b.step), label: b.label, number: b.step });

    // Before the tool: the input can be edited, the output set, or the tool skipped.
    const toolBreak = toolBreakpointAt(dc.tool, b, this.breakpoints, this.protocol.kind);
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
    const resume: Extract<Continuation, { kind: 'call' }> = {
      kind: 'call',
      callId: call.id,
      dc: { ...dc, inputSpan: { ...dc.inputSpan } },
      phase: 'before',
    };
    const pending: Pending = {
      call,
      phase: 'before',
      written: () => this.progress.written,
      setInput: text => {
        this.progress.written = replaceInput(this.progress.written, dc, text);
        this.view.changedAt(dc.inputSpan.start);
        dc.inputSpan = { start: dc.inputSpan.start, end: dc.inputSpan.start + text.length };
        dc.input = text;
        // The pause's checkpoint goes on with the edited call too (keepEdits).
        resume.dc = { ...dc, inputSpan: { ...dc.inputSpan } };
      },
    };
    await this.pauseAt(reason, call, { phase: 'before', breakpoint }, resume, traced, pending);
  }

  /** The call from its tool on: runs it (unless skipped or overridden), pauses after it, appends the output. */
  private async runCall(call: ToolCall, dc: DetectedCall): Promise<RunResult | null> {
    if (call.skipped || call.override !== undefined) {
      if (call.skipped) call.fallback = true;
    } else {
      await runTool(call, dc, {
        opts: this.opts,
        signal: this.runCtrl.signal,
        model: this.toolModel,
        emit: (event, c, at) => this.emit(event, { call: { ...c }, at }),
      });
    }

    // After the tool: the output can be overridden; a failure is shown and the model writes the output.
    if (this.stopped) throw new Stopped();
    const failed = call.error !== undefined;
    const pauseAfter = !call.skipped && (failed ? (this.opts.pauseOnToolError ?? true) || pauseAfterToolOf(this.opts) : pauseAfterToolOf(this.opts));
    if (pauseAfter || this.stepping || this.pauseRequested) {
      const reason = call.error !== undefined ? 'tool-error' : pauseAfterToolOf(this.opts) ? 'after-tool' : this.pauseRequested ? 'pause' : 'step';
      await this.pauseAfterCall(call, dc, reason);
    }
    return this.finishCall(call, dc);
  }

  private async pauseAfterCall(call: ToolCall, dc: DetectedCall, reason: PauseReason, traced = true): Promise<void> {
    const pending: Pending = { call, phase: 'after', written: () => this.progress.written };
    const resume: Continuation = { kind: 'call', callId: call.id, dc: { ...dc, inputSpan: { ...dc.inputSpan } }, phase: 'after' };
    await this.pauseAt(reason, call, { phase: 'after' }, resume, traced, pending);
  }

  private finishCall(call: ToolCall, dc: DetectedCall): null {
    const output = outputForModel(call);
    if (output === null) {
      call.fallback = true;
      if (call.error !== undefined) this.opts.log?.(`${call.tool} failed (${call.error}); the model writes the output`);
    }
    const appended = this.protocol.appendOutput(this.progress.written, dc, output);
    call.appended = appended;
    this.append(appended);
    this.trace({ t: 'tool', at: Date.now(), call: { ...call } });
    this.emit('toolDone', { call: { ...call } });
    return null;
  }

  private applyCorrection(c: Extract<Detection, { type: 'correction' }>): void {
    const removed = this.progress.lastDropped;
    this.progress.corrections++;
    this.append(c.insert);
    const offset = this.protocol.header.length + c.cut;
    this.progress.correctionLog.push({ offset, found: c.found, expected: [...c.expected], removed, inserted: c.insert });
    this.trace({ t: 'correction', at: Date.now(), offset, found: c.found, expected: c.expected, removed, inserted: c.insert });
    this.emit('correction', { offset, found: c.found, expected: c.expected, removed, inserted: c.insert });
  }

  private closeStream(it: AsyncGenerator<unknown, unknown, void>, ctrl: AbortController): void {
    ctrl.abort();
    void it.return(undefined).catch(() => undefined);
  }

  private append(text: string): void {
    if (!text) return;
    this.progress.written += text;
    this.view.show(text);
  }

  private addUsage(u: Usage | undefined): void {
    if (u) {
      this.progress.usage.promptTokens += u.promptTokens;
      this.progress.usage.completionTokens += u.completionTokens;
      if (u.reasoningTokens !== undefined) this.progress.usage.reasoningTokens = (this.progress.usage.reasoningTokens ?? 0) + u.reasoningTokens;
    }
    this.emit('usage', { request: u, total: { ...this.progress.usage } });
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
    pending: Pending | null = null,
  ): Promise<void> {
    if (this.stopped) throw new Stopped();
    this.runState = 'paused';
    this.stepping = false;
    this.pauseRequested = false;
    if (traced) this.trace({ t: 'pause', at: Date.now(), reason, callId: call?.id, step: call?.step });
    this.checkpoints.push(this.capture(reason, call, at, resume));
    let resumeFn!: (how: Resume) => void;
    const resumed = new Promise<Resume>(resolve => (resumeFn = resolve));
    const snapshot = this.snapshot();
    const steps = snapshot.steps;
    const step = (call && (steps.find(s => s.callId === call.id) ?? steps.find(s => s.number === call.step))) || steps[steps.length - 1];
    const info: Hold['info'] = { reason, snapshot, description: describePause(reason, call), step };
    if (at.phase) info.phase = at.phase;
    if (at.breakpoint) info.breakpoint = at.breakpoint;
    this.hold = { resume: resumeFn, info, call, pending, continuation: resume, offered: null };
    this.emit('paused', this.paused!);
    const how = await resumed;
    this.hold = null;
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
    return capture(this.checkpoints.length, this.progress, this.stepViews(), { reason, call, ...at }, resume, this.traceCount);
  }

  private requirePaused(what: string): void {
    if (this.runState !== 'paused' || !this.hold) throw new Error(`${what}: only possible while the run is paused`);
  }

  private resume(how: Resume): void {
    if (this.runState !== 'paused' || !this.hold) return;
    this.hold.resume(how);
  }

  private requirePending(what: string, phase?: 'before' | 'after'): Pending {
    const p = this.hold?.pending;
    if (this.runState !== 'paused' || !p) throw new Error(`${what}: the run is not paused at a tool call`);
    if (phase && p.phase !== phase)
      throw new Error(`${what}: only possible ${phase === 'before' ? 'before the tool runs (pauseBeforeTool)' : 'after the tool ran'}`);
    return p;
  }

  private stepViews(): StepView[] {
    return stepViewsOf(this.protocol, this.progress);
  }

  private finish(reason: EndReason, error?: string): RunResult {
    if (this.result) return this.result;
    this.runState = 'finished';
    const snapshot = this.snapshot();
    const result: RunResult = { reason, answer: this.protocol.answer(this.progress.written), snapshot, error };
    this.result = result;
    this.trace({
      t: 'end',
      at: Date.now(),
      reason,
      answer: result.answer,
      text: snapshot.text,
      usage: { ...this.progress.usage },
      requests: this.progress.requests,
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
