// The step-through runner: streams the model's continuation, stops generation the moment a tool call is complete
// (stop sequences where the endpoint honours them, else by aborting the stream and dropping the text past the
// call), runs the tool, appends its output and resumes. It pauses like a debugger (before/after tools, at steps,
// at breakpoints) and reports everything through events. It knows nothing of DAP or VS Code; see README.md.
import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import { normalizeName } from '../art/ast';
import type { CompletionResult, Usage } from '../model/types';
import { DepartedError } from '../model/replay';
import { formatMs } from '../tools/common';
import type { ToolResult } from '../tools/types';
import type { Boundary, Detection, Protocol, StreamEndAction } from './protocol';
import { replaceInput } from './protocol';
import { streamConstrained } from './constraints';
import type {
  BreakpointKind,
  Breakpoints,
  EndReason,
  PauseInfo,
  PauseReason,
  RunResult,
  RunState,
  RunnerOptions,
  Snapshot,
  StepView,
  ToolCall,
  TraceRecord,
} from './types';

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
  /** The user changed the paused call: its input, its output, or skipped the tool. */
  edit: [{ what: 'input' | 'output' | 'skip'; call: ToolCall }];
  retry: [{ attempt: number; delayMs: number; reason: string }];
  usage: [{ request: Usage | undefined; total: Usage }];
  end: [RunResult];
}

type Resume = 'continue' | 'step';

/** Thrown inside the loop when `stop()` was called. */
class Stopped extends Error {}

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

  constructor(
    readonly protocol: Protocol,
    private readonly opts: RunnerOptions,
  ) {
    super();
    if (opts.breakpoints) this.setBreakpoints(opts.breakpoints);
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
    };
  }

  /** Where the paused run stands, or null while it runs. The call reflects the edits made during the pause. */
  get paused(): PauseInfo | null {
    if (!this.pauseInfo) return null;
    const call = this.pauseCall;
    return { ...this.pauseInfo, call: call ? { ...call } : undefined };
  }

  private pauseCall: ToolCall | undefined;

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
      options: {
        temperature: this.opts.temperature,
        maxTokens: this.maxTokens,
        pauseBeforeTool: !!this.opts.pauseBeforeTool,
        pauseAfterTool: this.pauseAfterTool,
        toolTimeoutMs: this.opts.toolTimeoutMs,
      },
    });
    try {
      if (this.opts.stopOnEntry) await this.pauseAt('entry');
      for (;;) {
        if (this.stopped) return this.finish('stopped');
        if (this.requests >= (this.opts.maxRequests ?? 64)) return this.finish('limit', `stopped after ${this.requests} requests (maxRequests)`);
        const action = await this.generate();
        const done = await this.act(action);
        if (done) return done;
      }
    } catch (err) {
      if (this.stopped || err instanceof Stopped) return this.finish('stopped');
      if (err instanceof DepartedError) return this.finish('departed', err.message);
      return this.finish('error', err instanceof Error ? err.message : String(err));
    } finally {
      this.unsubscribeRetries?.();
    }
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
    const stop = this.opts.model.honoursStop ? this.protocol.stops() : [];
    const prompt = this.protocol.prompt + this.written;
    const constraint = (await this.opts.constrainer?.forRequest(this.protocol, this.written)) ?? null;
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
    });
    this.emit('request', { n, stop, promptLength: prompt.length, at: performance.now() });
    const ctrl = new AbortController();
    const onRunAbort = () => ctrl.abort(this.runCtrl.signal.reason);
    this.runCtrl.signal.addEventListener('abort', onRunAbort, { once: true });
    const it = streamConstrained(
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
    try {
      for (;;) {
        const r = await it.next();
        if (r.done) {
          result = r.value;
          break;
        }
        const delta = r.value.text;
        if (!delta) continue;
        this.written += delta;
        this.trace({ t: 'chunk', at: Date.now(), n, text: delta });
        this.emit('text', { delta, text: this.text });
        const stopAt = this.firstStop(this.protocol.detect(this.written));
        if (stopAt) {
          this.closeStream(it, ctrl);
          this.cutAt(stopAt.cut, n, startLen, { aborted: true });
          return stopAt;
        }
        if (this.pauseRequested) {
          this.closeStream(it, ctrl);
          this.trace({ t: 'completion', at: Date.now(), n, text: this.written.slice(startLen), aborted: true });
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
    const end = this.protocol.atStreamEnd(this.written, result?.finishReason, stop.length > 0);
    const cut = end.type === 'end' || end.type === 'boundary' || end.type === 'correction' ? end.cut : this.written.length;
    this.cutAt(cut, n, startLen, { finishReason: result?.finishReason, usage: result?.usage });
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
        await this.pauseAt('pause');
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
        await this.pauseAt(kind ? 'breakpoint' : 'step', undefined, { breakpoint: kind });
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
    if (this.lastConstraint) call.constrained = this.lastConstraint;
    this.calls.push(call);
    this.currentCall = call;
    this.emit('step', { step: this.stepViews().find(s => s.number === b.step), label: b.label, number: b.step });

    // Before the tool: the input can be edited, the output set, or the tool skipped.
    const toolBreak: BreakpointKind | undefined = this.breakpoints.tools.includes(normalizeName(dc.tool)) ? 'tool' : this.breakpointKind(b);
    if (this.opts.pauseBeforeTool || toolBreak || this.stepping || this.pauseRequested) {
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
      await this.pauseAt(toolBreak ? 'breakpoint' : this.opts.pauseBeforeTool ? 'before-tool' : this.pauseRequested ? 'pause' : 'step', call, {
        phase: 'before',
        breakpoint: toolBreak,
      });
    }

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
      this.pending = { call, phase: 'after', written: () => this.written };
      await this.pauseAt(
        call.error !== undefined ? 'tool-error' : this.pauseAfterTool ? 'after-tool' : this.pauseRequested ? 'pause' : 'step',
        call,
        { phase: 'after' },
      );
    }
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
                model: this.opts.toolModel ?? this.opts.model,
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
    this.trace({ t: 'correction', at: Date.now(), offset, found: c.found, expected: c.expected, removed, inserted: c.insert });
    this.emit('correction', { offset, found: c.found, expected: c.expected, removed, inserted: c.insert });
  }

  private lastDropped = '';

  /** Ends request `n`'s text at `cut`, dropping what the model wrote past a stop point, and traces the completion. */
  private cutAt(cut: number, n: number, requestStart: number, extra: { finishReason?: string; usage?: Usage; aborted?: boolean } = {}): void {
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

  private async pauseAt(reason: PauseReason, call?: ToolCall, at: { phase?: 'before' | 'after'; breakpoint?: BreakpointKind } = {}): Promise<void> {
    if (this.stopped) throw new Stopped();
    this.runState = 'paused';
    this.stepping = false;
    this.pauseRequested = false;
    this.trace({ t: 'pause', at: Date.now(), reason, callId: call?.id, step: call?.step });
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
    if (this.stopped) throw new Stopped();
    this.runState = 'running';
    if (how === 'step') this.stepping = true;
    this.emit('resumed', { step: how === 'step' });
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

  private trace(r: TraceRecord): void {
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
