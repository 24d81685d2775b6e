// The `art` debug adapter: a DAP session that only translates between the Runner (core/runner, which knows
// nothing of DAP) and the Debug Adapter Protocol, as vscode-mock-debug separates its runtime from its session.
// It has no `vscode` import: VS Code runs it inline (client/runner/activate.ts), other DAP clients run
// dist/debugAdapter.js over stdio.
//
// Stops: after every tool call (reason `tool call`, the description names the tool), before it too with
// `pauseBeforeTool`, at breakpoints on `Qk:` lines / agent state lines / tool names, after `next` and `pause`.
// Variables: a `Tool call` scope (tool, input, output, error, duration) and a `Program` scope (#1 ... #k, Ans);
// setVariable on `output` (and on `input` before the tool runs) changes what the model sees.
// The API key comes from the client through a constructor option (never a launch argument) or from the
// environment variable named by `apiKeyEnv`.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  Breakpoint,
  ErrorDestination,
  Event,
  ExitedEvent,
  InitializedEvent,
  InvalidatedEvent,
  LoggingDebugSession,
  OutputEvent,
  Scope,
  Source,
  StackFrame,
  StoppedEvent,
  TerminatedEvent,
  Thread,
} from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { LaunchError, prepareRun, promptReportOf, type PreparedRun, type RunConfig } from '../../core/runner/launch';
import { parseRunOptions } from '../../core/runner/options';
import { StreamedText } from '../../core/runner/streamedText';
import type { Breakpoints, PauseInfo, PauseReason, RunResult, StepView, TraceRecord } from '../../core/runner/types';
import {
  AlternativesRequest,
  ChooseAlternativeRequest,
  EndEvent,
  PromptRequest,
  SetToolInputRequest,
  SetToolOutputRequest,
  SkipToolRequest,
  StateRequest,
  TextEvent,
  type ArtLaunchArguments,
} from './protocol';
import { SourceMap, lineAt } from './sourceMap';
import { typedText } from '../../core/runner/typedText';
import { commonPrefixLength } from '../../core/common/text';

const THREAD_ID = 1;
const TOOL_SCOPE = 1;
const PROGRAM_SCOPE = 2;
/** The `source` reference of the program as generated (when it is not the file's own program). */
const GENERATED_SOURCE = 1;
/** How long launch waits for `configurationDone` (breakpoints) before it starts anyway. */
const CONFIGURATION_WAIT_MS = 2000;
/** Coalesces streamed text into one output/custom event per interval. */
const FLUSH_MS = 25;

export interface ArtDebugSessionOptions {
  /** The client's stored API key (SecretStorage), read when a run starts; preferred over the environment. */
  apiKey?: () => PromiseLike<string | undefined> | string | undefined;
  /** The client's workspace trust; when given it decides, whatever the `trusted` launch argument says. */
  isTrusted?: () => boolean;
  /** Environment the key variable is read from (default process.env). */
  env?: NodeJS.ProcessEnv;
}

export class ArtDebugSession extends LoggingDebugSession {
  private run: PreparedRun | undefined;
  private running: Promise<void> | undefined;
  private args: ArtLaunchArguments | undefined;
  private runNumber = 0;
  private launching = false;
  private restarting = false;
  private noDebug = false;
  private configured!: () => void;
  private readonly configurationDone = new Promise<void>(resolve => (this.configured = resolve));
  private readonly sourceBreakpoints = new Map<string, number[]>();
  private functionBreakpoints: string[] = [];
  private readonly console = new StreamedText(text => this.sendEvent(new OutputEvent(text, 'stdout')));
  private sentText = '';
  private flushTimer: NodeJS.Timeout | undefined;
  /** The trace records of the last run that ended (a restart after the end re-uses them). */
  private lastRecords: TraceRecord[] | undefined;
  /** The step number each stack frame of the last stackTrace stands for (restartFrame). */
  private frameSteps = new Map<number, number>();

  constructor(private readonly options: ArtDebugSessionOptions = {}) {
    super();
    this.setDebuggerLinesStartAt1(true);
    this.setDebuggerColumnsStartAt1(true);
  }

  // ---- lifecycle ----

  protected override initializeRequest(response: DebugProtocol.InitializeResponse): void {
    response.body = {
      ...response.body,
      supportsConfigurationDoneRequest: true,
      supportsSetVariable: true,
      supportsFunctionBreakpoints: true,
      supportsTerminateRequest: true,
      supportsRestartRequest: true,
      supportsEvaluateForHovers: false,
      supportsStepBack: true,
      supportsRestartFrame: true,
      supportsSingleThreadExecutionRequests: false,
    };
    this.sendResponse(response);
    this.sendEvent(new InitializedEvent());
  }

  protected override configurationDoneRequest(response: DebugProtocol.ConfigurationDoneResponse): void {
    this.configured();
    this.sendResponse(response);
  }

  protected override async launchRequest(response: DebugProtocol.LaunchResponse, args: ArtLaunchArguments): Promise<void> {
    if (this.run || this.launching) {
      // One run per debug session: a second launch would leave the first paused forever, its trace and tools open.
      return this.sendErrorResponse(response, {
        id: 1007,
        format: 'a run is already going on in this debug session: stop it or restart it, or start another session',
        showUser: true,
      });
    }
    this.launching = true;
    await Promise.race([this.configurationDone, new Promise(r => setTimeout(r, CONFIGURATION_WAIT_MS))]);
    try {
      await this.startRun(args);
      this.sendResponse(response);
    } catch (e) {
      this.sendErrorResponse(response, { id: 1001, format: launchMessage(e), showUser: true });
    } finally {
      this.launching = false;
    }
  }

  /**
   * A request whose handler threw (arguments that are not what DAP specifies) gets a one-line answer instead of the
   * library's `{_stack}`: what failed, not the adapter's internals.
   */
  protected override sendErrorResponse(
    response: DebugProtocol.Response,
    codeOrMessage: number | DebugProtocol.Message,
    format?: string,
    variables?: unknown,
    dest?: ErrorDestination,
  ): void {
    if (codeOrMessage === 1104 && format === '{_stack}') {
      const format = `the "${response.command}" request could not be handled: its arguments are not what the Debug Adapter Protocol specifies`;
      return super.sendErrorResponse(response, { id: 1104, format, showUser: true });
    }
    super.sendErrorResponse(response, codeOrMessage as number, format, variables, dest);
  }

  protected override async restartRequest(response: DebugProtocol.RestartResponse, args: DebugProtocol.RestartArguments): Promise<void> {
    // VS Code sends the whole (possibly edited) configuration again; other clients may send none.
    const next = (args.arguments as ArtLaunchArguments | undefined) ?? this.args!;
    // The run restarted is answered from the previous one wherever it asks the same (no tokens for the same prefix).
    const previous = this.run?.records ?? this.lastRecords;
    this.restarting = true;
    try {
      await this.stopRun();
    } finally {
      this.restarting = false;
    }
    this.sendEvent(new OutputEvent('\n— restarted —\n', 'console'));
    try {
      await this.startRun(next, previous);
      this.sendResponse(response);
    } catch (e) {
      this.sendErrorResponse(response, { id: 1002, format: launchMessage(e), showUser: true });
      this.sendEvent(new TerminatedEvent());
    }
  }

  protected override async terminateRequest(response: DebugProtocol.TerminateResponse): Promise<void> {
    this.sendResponse(response);
    if (this.run) await this.stopRun();
    else this.sendEvent(new TerminatedEvent());
  }

  protected override async disconnectRequest(
    response: DebugProtocol.DisconnectResponse,
    args: DebugProtocol.DisconnectArguments,
    request?: DebugProtocol.Request,
  ): Promise<void> {
    this.restarting = !!args.restart;
    await this.stopRun().catch(() => undefined);
    this.restarting = false;
    super.disconnectRequest(response, args, request);
  }

  /** Prepares and starts a run; throws a LaunchError the client shows. */
  private async startRun(args: ArtLaunchArguments, cache?: TraceRecord[]): Promise<void> {
    this.args = args;
    this.noDebug = !!args.noDebug;
    // Validation and defaults come from the options' declaration (core/runner/options.ts); the adapter adds only
    // what it alone knows: the key, the trust, the pauses of a noDebug run and where log lines go.
    const options = parseRunOptions(args);
    const { mode } = options;
    const trusted = this.options.isTrusted ? this.options.isTrusted() : options.trusted;
    // The key is read when an endpoint may be called: in generate mode, and in replay mode with an endpoint to go on
    // live with once the run departs from its recording.
    const endpoint = mode === 'generate' || !!(options.baseURL && options.model);
    const apiKey = endpoint ? (await this.options.apiKey?.()) || (this.options.env ?? process.env)[options.apiKeyEnv] || undefined : undefined;
    const config: RunConfig = {
      ...options,
      apiKey,
      trusted,
      pauseBeforeTool: !this.noDebug && options.pauseBeforeTool,
      pauseAfterTool: !this.noDebug,
      pauseOnToolError: !this.noDebug,
      stopOnEntry: !this.noDebug && options.stopOnEntry,
      log: line => this.sendEvent(new OutputEvent(`${line}\n`, 'console')),
      cache: cache?.length ? cache : undefined,
    };
    const run = await prepareRun(config);
    this.run = run;
    this.runNumber++;
    this.console.reset();
    this.sentText = '';
    for (const p of run.toolProblems) this.sendEvent(new OutputEvent(`tools: ${p}\n`, 'stderr'));
    this.wire(run);
    this.applyBreakpoints();
    this.sendEvent(
      new OutputEvent(
        `Running ${run.title} (${run.language === 'trace' ? 'trace replay' : mode}, model ${run.model.id})${run.tracePath ? `, trace → ${run.tracePath}` : ''}\n`,
        'console',
      ),
    );
    this.running = run.runner
      .run()
      .then(result => this.ended(run, result))
      .catch(e => {
        // Whatever went wrong, the session ends: the client must not wait on a run that is gone.
        this.sendEvent(new OutputEvent(`The run failed: ${(e as Error).message}\n`, 'stderr'));
        if (this.run === run) this.run = undefined;
        void run.dispose().catch(() => undefined);
        if (!this.restarting) this.sendEvent(new TerminatedEvent());
      });
  }

  private wire(run: PreparedRun): void {
    const r = run.runner;
    const schedule = () => {
      if (!this.flushTimer) this.flushTimer = setTimeout(() => this.flush(false), FLUSH_MS);
    };
    r.on('text', schedule);
    r.on('cut', schedule);
    r.on('correction', c => {
      this.flush(true);
      const found = c.found === null ? 'text that starts no state' : `state ${c.found}`;
      this.sendEvent(
        new OutputEvent(
          `\n[monitor] off-spec at offset ${c.offset}: found ${found}, expected ${c.expected.join(' or ')}; removed ${JSON.stringify(c.removed)}, inserted ${JSON.stringify(c.inserted)}\n`,
          'console',
        ),
      );
      schedule();
    });
    r.on('paused', p => {
      if (this.run !== run) return;
      this.flush(true);
      const ev = new StoppedEvent(stopReason(p), THREAD_ID) as DebugProtocol.StoppedEvent;
      ev.body.description = p.description;
      ev.body.text = p.call ? `[${p.call.tool}]` : undefined;
      ev.body.allThreadsStopped = true;
      this.sendEvent(ev);
    });
  }

  /** The pause of the current run, as the runner reports it (the adapter keeps no copy). */
  private get pause(): PauseInfo | undefined {
    return this.run?.runner.paused ?? undefined;
  }

  /** Sends the text streamed since the last flush: to the Debug Console (whole lines unless `all`) and the client. */
  private flush(all: boolean): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const run = this.run;
    if (!run) return;
    const text = run.runner.text;
    this.console.update(text, all);
    if (text !== this.sentText) {
      const from = commonPrefixLength(text, this.sentText);
      const body: TextEvent.Body = { run: this.runNumber, kind: run.runner.protocol.kind, from, text: text.slice(from), length: text.length };
      this.sentText = text;
      this.sendEvent(new Event(TextEvent.event, body));
    }
  }

  private async ended(run: PreparedRun, result: RunResult): Promise<void> {
    if (this.run === run) this.flush(true);
    await run.dispose().catch(() => undefined);
    const s = result.snapshot;
    const tokens = `${s.requests} request${s.requests === 1 ? '' : 's'}, ${s.usage.promptTokens} prompt + ${s.usage.completionTokens} completion tokens`;
    if (result.reason === 'finished')
      this.sendEvent(
        new OutputEvent(`\n${this.console.text.endsWith('\n') ? '' : '\n'}Answer: ${result.answer ?? '(none)'}\n(${tokens})\n`, 'console'),
      );
    else
      this.sendEvent(
        new OutputEvent(
          `\nThe run ended (${result.reason})${result.error ? `: ${result.error}` : ''}${result.answer ? `; answer so far: ${result.answer}` : ''} (${tokens})\n`,
          result.reason === 'stopped' ? 'console' : 'stderr',
        ),
      );
    const body: EndEvent.Body = {
      run: this.runNumber,
      reason: result.reason,
      answer: result.answer,
      error: result.error,
      kind: s.kind,
      language: run.language,
      program: run.path,
      unit: run.unit,
      text: s.text,
      calls: s.calls,
      usage: s.usage,
      requests: s.requests,
      tracePath: run.tracePath,
    };
    this.sendEvent(new Event(EndEvent.event, body));
    if (run.cache && run.cache.hits > 0)
      this.sendEvent(new OutputEvent(`(${run.cache.hits} model request(s) answered from the previous run at no cost)\n`, 'console'));
    this.lastRecords = run.records;
    if (this.run === run) this.run = undefined;
    if (!this.restarting) {
      this.sendEvent(new ExitedEvent(result.reason === 'finished' ? 0 : 1));
      this.sendEvent(new TerminatedEvent());
    }
  }

  private async stopRun(): Promise<void> {
    const run = this.run;
    if (!run) return;
    run.runner.stop();
    await this.running;
  }

  // ---- breakpoints ----

  protected override setBreakPointsRequest(response: DebugProtocol.SetBreakpointsResponse, args: DebugProtocol.SetBreakpointsArguments): void {
    const path = typeof args.source?.path === 'string' ? resolve(args.source.path) : undefined;
    const lines = args.breakpoints?.map(b => b.line) ?? args.lines ?? [];
    const map = path ? this.sourceMapOf(path) : undefined;
    const breakpoints: DebugProtocol.Breakpoint[] = lines.map(line => {
      if (!map) return withMessage(new Breakpoint(false, line), 'Breakpoints go in .art and .agent files.');
      const t = map.breakpoint(line);
      if (t.line === undefined) return withMessage(new Breakpoint(false, line), t.message ?? '');
      const bp = new Breakpoint(true, t.line) as DebugProtocol.Breakpoint;
      const unit = t.program ?? t.agent;
      if (this.run && this.run.path === path && unit !== undefined && unit !== this.run.unit) {
        bp.verified = false;
        bp.message = `This breakpoint is in another ${t.program !== undefined ? 'program' : 'agent'} than the one running.`;
      }
      return bp;
    });
    if (path) this.sourceBreakpoints.set(path, lines);
    this.applyBreakpoints();
    response.body = { breakpoints };
    this.sendResponse(response);
  }

  protected override setFunctionBreakPointsRequest(
    response: DebugProtocol.SetFunctionBreakpointsResponse,
    args: DebugProtocol.SetFunctionBreakpointsArguments,
  ): void {
    this.functionBreakpoints = args.breakpoints.map(b => b.name.trim()).filter(Boolean);
    this.applyBreakpoints();
    response.body = { breakpoints: args.breakpoints.map(b => new Breakpoint(!!b.name.trim())) };
    this.sendResponse(response);
  }

  private sourceMapOf(path: string): SourceMap | undefined {
    if (this.run?.path === path && this.run.language !== 'trace') return SourceMap.forPath(path, this.run.text);
    try {
      return SourceMap.forPath(path, readFileSync(path, 'utf8'));
    } catch {
      return undefined;
    }
  }

  /** Hands the runner the breakpoints of the file being run (steps or states of its program) and the tool names. */
  private applyBreakpoints(): void {
    const run = this.run;
    if (!run) return;
    const b: Required<Breakpoints> = { steps: [], states: [], tools: this.noDebug ? [] : [...this.functionBreakpoints] };
    const lines = this.sourceBreakpoints.get(run.path);
    if (lines && !this.noDebug && run.language !== 'trace') {
      const map = new SourceMap(run.language, run.text);
      for (const line of lines) {
        const t = map.breakpoint(line);
        if (t.step !== undefined && t.program === run.unit) b.steps.push(t.step);
        if (t.state !== undefined && t.agent === run.unit) b.states.push(t.state);
      }
    }
    run.runner.setBreakpoints(b);
  }

  // ---- execution control ----

  protected override threadsRequest(response: DebugProtocol.ThreadsResponse): void {
    response.body = { threads: [new Thread(THREAD_ID, this.run ? this.run.title : 'ART run')] };
    this.sendResponse(response);
  }

  protected override continueRequest(response: DebugProtocol.ContinueResponse): void {
    this.run?.runner.continue();
    response.body = { allThreadsContinued: true };
    this.sendResponse(response);
  }

  protected override nextRequest(response: DebugProtocol.NextResponse): void {
    this.run?.runner.step();
    this.sendResponse(response);
  }

  protected override stepInRequest(response: DebugProtocol.StepInResponse): void {
    this.run?.runner.step();
    this.sendResponse(response);
  }

  protected override stepOutRequest(response: DebugProtocol.StepOutResponse): void {
    this.run?.runner.step();
    this.sendResponse(response);
  }

  protected override pauseRequest(response: DebugProtocol.PauseResponse): void {
    this.run?.runner.pause();
    this.sendResponse(response);
  }

  // ---- time travel: the runner keeps a checkpoint at every pause; the run pauses again at the one gone back to ----

  protected override stepBackRequest(response: DebugProtocol.StepBackResponse): void {
    this.travel(response, r => r.stepBack());
  }

  protected override reverseContinueRequest(response: DebugProtocol.ReverseContinueResponse): void {
    this.travel(response, r => r.reverseContinue());
  }

  protected override restartFrameRequest(response: DebugProtocol.RestartFrameResponse, args: DebugProtocol.RestartFrameArguments): void {
    const step = this.frameSteps.get(args.frameId);
    this.travel(response, r => {
      if (step === undefined) throw new Error('that frame is not a step of the paused run: ask for the call stack again');
      r.restartFrame(step);
    });
  }

  private travel(response: DebugProtocol.Response, go: (r: PreparedRun['runner']) => void): void {
    try {
      if (!this.run || !this.pause) throw new Error('the run is not paused');
      // Answer first: the stop at the checkpoint follows as an event.
      const runner = this.run.runner;
      go(runner);
      this.sendResponse(response);
    } catch (e) {
      this.sendErrorResponse(response, { id: 1008, format: (e as Error).message, showUser: true });
    }
  }

  // ---- what a stop shows ----

  protected override stackTraceRequest(response: DebugProtocol.StackTraceResponse): void {
    const run = this.run;
    const p = this.pause;
    if (!run || !p) {
      response.body = { stackFrames: [], totalFrames: 0 };
      return this.sendResponse(response);
    }
    // One frame per step, the paused one on top; a frame's id names its step for restartFrame.
    const step = p.step;
    // An agent's call is at its env-input state, which the program shows only once the tool's output is written.
    const label = p.call?.state ?? step?.label;
    const tool = p.call?.tool ?? step?.name;
    const name = label ? `${label}${tool ? ` [${tool}]` : ''}` : run.title;
    const steps = p.snapshot.steps;
    const topStep = p.call?.step ?? step?.number ?? 0;
    const resumable = new Set(run.runner.checkpointList().map(c => c.step));
    this.frameSteps = new Map();
    const frames: DebugProtocol.StackFrame[] = [];
    const frame = (id: number, stepNumber: number, title: string, at: StepView | undefined, state: string | undefined) => {
      const f = new StackFrame(id, title, ...this.frameLocation(run, p.snapshot.text, at, state)) as DebugProtocol.StackFrame;
      f.canRestart = resumable.has(stepNumber);
      this.frameSteps.set(id, stepNumber);
      frames.push(f);
    };
    const onTop = steps.find(s => s.number === topStep && s.label === label);
    frame(onTop ? onTop.index : steps.length + 1, topStep, name, step, label);
    for (const s of [...steps].reverse()) {
      if (s === onTop || s.number > topStep) continue;
      const kind = s.name ?? (p.snapshot.calls.find(c => c.step === s.number && c.state === undefined)?.tool || null);
      frame(s.index, s.number, `${s.label}${kind && s.label !== kind ? ` [${kind}]` : ''}`, s, s.label);
    }
    response.body = { stackFrames: frames, totalFrames: frames.length };
    this.sendResponse(response);
  }

  /** The source and line of the step: the file's own line when the run replays its program, else the generated text. */
  private frameLocation(run: PreparedRun, text: string, step: StepView | undefined, state: string | undefined): [Source, number, number] {
    if (run.language !== 'trace') {
      const map = new SourceMap(run.language, run.text);
      let line: number | undefined;
      if (run.language === 'art' && run.ownProgram) line = step ? map.stepLine(run.unit, step.number) : map.programLine(run.unit);
      if (run.language === 'agent') line = state ? map.stateLine(run.unit, state) : undefined;
      if (line !== undefined) return [new Source(basename(run.path), this.convertDebuggerPathToClient(run.path)), line, 1];
    }
    const source = new Source(`${run.title} (generated)`, undefined, GENERATED_SOURCE, 'generated by the model');
    return [source, step ? lineAt(text, step.span.start) : 1, 1];
  }

  protected override sourceRequest(response: DebugProtocol.SourceResponse, args: DebugProtocol.SourceArguments): void {
    const ref = args.source?.sourceReference ?? args.sourceReference;
    if (ref !== GENERATED_SOURCE || !this.run) {
      return this.sendErrorResponse(response, { id: 1003, format: 'that source is gone: the run it belonged to has ended', showUser: false });
    }
    response.body = { content: this.run.runner.text, mimeType: 'text/x-art' };
    this.sendResponse(response);
  }

  protected override scopesRequest(response: DebugProtocol.ScopesResponse): void {
    const scopes: DebugProtocol.Scope[] = [];
    if (this.pause?.call) scopes.push(new Scope('Tool call', TOOL_SCOPE, false));
    if (this.pause) scopes.push(new Scope('Program', PROGRAM_SCOPE, false));
    response.body = { scopes };
    this.sendResponse(response);
  }

  protected override variablesRequest(response: DebugProtocol.VariablesResponse, args: DebugProtocol.VariablesArguments): void {
    const vars =
      args.variablesReference === TOOL_SCOPE ? this.toolVariables() : args.variablesReference === PROGRAM_SCOPE ? this.programVariables() : [];
    response.body = {
      variables: vars.map(v => ({
        name: v.name,
        value: v.value,
        variablesReference: 0,
        presentationHint: v.readOnly ? { attributes: ['readOnly'] } : undefined,
      })),
    };
    this.sendResponse(response);
  }

  private toolVariables(): { name: string; value: string; readOnly: boolean }[] {
    const p = this.pause;
    const c = p?.call;
    if (!c) return [];
    const before = p.phase === 'before';
    const vars = [
      { name: 'tool', value: c.tool, readOnly: true },
      { name: 'input', value: c.input, readOnly: !before },
    ];
    if (c.previousAnswer !== undefined) vars.push({ name: 'previous answer', value: c.previousAnswer, readOnly: true });
    vars.push({ name: 'output', value: c.override ?? c.output ?? '', readOnly: false });
    if (c.error !== undefined) vars.push({ name: 'error', value: c.error, readOnly: true });
    vars.push({ name: 'duration', value: c.durationMs !== undefined ? `${c.durationMs} ms` : before ? '(not run yet)' : '', readOnly: true });
    if (c.override !== undefined && c.output !== undefined) vars.push({ name: 'tool output', value: c.output, readOnly: true });
    // Decoding constraints (issue 12): whether the request that wrote this step was held to the step's syntax or spec.
    vars.push({ name: 'constrained', value: c.constrained ?? 'no (the decoding monitor checks the text)', readOnly: true });
    return vars;
  }

  private programVariables(): { name: string; value: string; readOnly: boolean }[] {
    const p = this.pause;
    const run = this.run;
    if (!p || !run) return [];
    const s = p.snapshot;
    const vars: { name: string; value: string; readOnly: boolean }[] = [];
    if (s.kind === 'art') {
      for (const st of s.steps) if (st.answer !== undefined) vars.push({ name: `#${st.label.slice(1)}`, value: st.answer, readOnly: true });
      const ans = run.runner.protocol.answer(s.text.slice(s.generatedFrom));
      if (ans !== null) vars.push({ name: 'Ans', value: ans, readOnly: true });
    } else {
      // States repeat (Thought, Action, ...): the second `Tht` is `Tht (2)`.
      const seen = new Map<string, number>();
      for (const st of s.steps) {
        const n = (seen.get(st.label) ?? 0) + 1;
        seen.set(st.label, n);
        vars.push({ name: n === 1 ? st.label : `${st.label} (${n})`, value: st.text, readOnly: true });
      }
      if (s.agentState) vars.push({ name: 'expected next', value: s.agentState.expected.join(' | '), readOnly: true });
    }
    vars.push({
      name: 'tokens',
      value: `${s.usage.promptTokens} prompt + ${s.usage.completionTokens} completion in ${s.requests} request${s.requests === 1 ? '' : 's'}`,
      readOnly: true,
    });
    if (s.kind === 'agent' || s.constrainedRequests > 0)
      vars.push({
        name: 'monitor corrections',
        value: `${s.corrections} (${s.constrainedRequests} of ${s.requests} requests constrained)`,
        readOnly: true,
      });
    return vars;
  }

  protected override setVariableRequest(response: DebugProtocol.SetVariableResponse, args: DebugProtocol.SetVariableArguments): void {
    try {
      if (args.variablesReference !== TOOL_SCOPE || !this.pause?.call) throw new Error("only the paused tool call's output and input can be changed");
      if (typeof args.value !== 'string') throw new Error('setVariable needs the new value as a string');
      const value = typedText(args.value);
      this.setCallField(args.name, value);
      response.body = { value };
      this.sendResponse(response);
    } catch (e) {
      this.sendErrorResponse(response, { id: 1004, format: (e as Error).message, showUser: true });
    }
  }

  /** Changes the paused call's output or input (what the model then sees); the runner keeps it, the views read it there. */
  private setCallField(name: string, value: string): void {
    const run = this.run;
    const p = this.pause;
    if (!run || !p?.call) throw new Error('the run is not paused at a tool call');
    if (name === 'output') {
      run.runner.setToolOutput(value);
    } else if (name === 'input') {
      if (p.phase !== 'before') throw new Error('the input can only be changed before the tool runs (launch with "pauseBeforeTool": true)');
      run.runner.setToolInput(value);
    } else {
      throw new Error(`"${name}" cannot be changed: set "output" (or "input" before the tool runs)`);
    }
  }

  protected override evaluateRequest(response: DebugProtocol.EvaluateResponse, args: DebugProtocol.EvaluateArguments): void {
    const name = typeof args.expression === 'string' ? args.expression.trim() : '';
    const v = [...this.toolVariables(), ...this.programVariables()].find(
      x => x.name === name || (name.startsWith('#') && x.name === name.replace(/:$/, '')),
    );
    if (!v) {
      return this.sendErrorResponse(response, {
        id: 1005,
        format: this.pause ? `"${name}" is not a variable of this stop: try output, input, #1 or Ans` : 'the run is not paused',
        showUser: false,
      });
    }
    response.body = { result: v.value, variablesReference: 0 };
    this.sendResponse(response);
  }

  protected override customRequest(command: string, response: DebugProtocol.Response, args: unknown): void {
    try {
      const text = (args as SetToolOutputRequest.Arguments | undefined)?.text;
      switch (command) {
        case SetToolOutputRequest.command:
        case SetToolInputRequest.command:
          if (typeof text !== 'string') throw new Error(`${command} needs { "text": string }`);
          this.setCallField(command === SetToolOutputRequest.command ? 'output' : 'input', text);
          // The Variables view shows the new value.
          this.sendEvent(new InvalidatedEvent(['variables'], THREAD_ID));
          break;
        case SkipToolRequest.command:
          if (!this.run || this.pause?.phase !== 'before')
            throw new Error('a tool can only be skipped before it runs (launch with "pauseBeforeTool": true)');
          this.run.runner.skipTool();
          break;
        case AlternativesRequest.command: {
          const k = (args as AlternativesRequest.Arguments | undefined)?.k;
          const runner = this.run?.runner;
          if (!runner || !this.pause) throw new Error('alternatives: the run is not paused');
          if (typeof k !== 'number') throw new Error('alternatives needs { "k": number }');
          runner.alternatives(k).then(
            alternatives => {
              const body: AlternativesRequest.Response = { alternatives };
              response.body = body;
              this.sendResponse(response);
            },
            (e: Error) => this.sendErrorResponse(response, { id: 1006, format: e.message, showUser: true }),
          );
          return;
        }
        case ChooseAlternativeRequest.command: {
          const index = (args as ChooseAlternativeRequest.Arguments | undefined)?.index;
          if (!this.run) throw new Error('chooseAlternative: no run');
          if (typeof index !== 'number') throw new Error('chooseAlternative needs { "index": number }');
          this.run.runner.chooseAlternative(index);
          break;
        }
        case PromptRequest.command: {
          if (!this.run) throw new Error('the prompt: no run is going on in this session');
          const body: PromptRequest.Response = promptReportOf(this.run);
          response.body = body;
          break;
        }
        case StateRequest.command: {
          const r = this.run?.runner;
          const body: StateRequest.Response = {
            run: this.runNumber,
            state: r?.state ?? 'idle',
            kind: r?.protocol.kind,
            program: this.run?.path,
            text: r?.text ?? '',
            call: this.pause?.call,
            phase: this.pause?.phase,
            tracePath: this.run?.tracePath,
          };
          response.body = body;
          break;
        }
        default:
          return super.customRequest(command, response, args);
      }
      this.sendResponse(response);
    } catch (e) {
      this.sendErrorResponse(response, { id: 1006, format: (e as Error).message, showUser: true });
    }
  }
}

/** DAP stop reasons: `tool call` around tool calls, the breakpoint kind the runner reports, the usual ones otherwise. */
function stopReason(p: PauseInfo): string {
  const reason: PauseReason = p.reason;
  switch (reason) {
    case 'before-tool':
    case 'after-tool':
    case 'tool-error':
      return 'tool call';
    case 'breakpoint':
      return p.breakpoint === 'tool' ? 'function breakpoint' : 'breakpoint';
    default:
      return reason;
  }
}

function withMessage(bp: Breakpoint, message: string): DebugProtocol.Breakpoint {
  const b = bp as DebugProtocol.Breakpoint;
  b.message = message;
  return b;
}

function launchMessage(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  // `format` treats {name} as a placeholder.
  return (e instanceof LaunchError ? m : `the run could not start: ${m}`).replace(/[{}]/g, c => (c === '{' ? '(' : ')'));
}

function basename(p: string): string {
  return p.replace(/^.*[\\/]/, '');
}
