// The `art` debug adapter: a DAP session that only translates between the Runner (core/engine, which knows
// nothing of DAP) and the Debug Adapter Protocol, as vscode-mock-debug separates its runtime from its session.
// It has no `vscode` import: VS Code runs it inline (client/runner/activate.ts), other DAP clients run
// dist/debugAdapter.js over stdio.
//
// Stops: after every tool call (reason `tool call`, the description names the tool), before it too with
// `pauseBeforeTool`, at breakpoints on `Qk:` lines / agent state lines / tool names, after `next` and `pause`.
// Variables: a `Tool call` scope (tool, input, output, error, duration) and a `Program` scope (#1 ... #k, Ans);
// setVariable on `output` (and on `input` before the tool runs) changes what the model sees.
// Self-consistency (`samples: N`): each sample is a thread (ids 1..N) of its own Runner; a stop, a step or a pause
// is one thread's (`allThreadsStopped` false), a `Samples` scope shows each sample's answer and the vote (read from
// the runners, core/sampling/samples.ts), and the vote goes into every sample's trace once all have ended.
// The API key comes from the client through a constructor option (never a launch argument; VS Code's asks before the
// key goes to another host than the user's setting) or from the environment variable named by `apiKeyEnv`.
import { FRAME_STRIDE, frameLocation, frameThread } from './frames';
import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import {
  Breakpoint,
  ErrorDestination,
  Event,
  ExitedEvent,
  InitializedEvent,
  InvalidatedEvent,
  OutputEvent,
  StackFrame,
  StoppedEvent,
  TerminatedEvent,
  Thread,
  ThreadEvent,
} from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { prepareRun } from '../../core/launch/launch';
import { SteppingSession } from '../../core/launch/stepping';
import { parseRunOptions } from '../../core/launch/options';
import { promptReportOf } from '../../core/launch/promptOfRun';
import { callerChatModel, chatModelNotes, type ChatModelProvider, type PreparedRun, type RunConfig } from '../../core/launch/session';
import { prepareSamples, recordVote } from '../../core/sampling/samples';
import { runKeyOf, type KeyOptions, type RunKey } from '../../core/launch/apiKey';
import { StreamedText } from '../../core/common/streamedText';
import type { Breakpoints, PauseInfo, RunResult } from '../../core/engine/types';
import type { StepView } from '../../core/protocols/types';
import type { TraceRecord } from '../../core/trace/schema';
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
import { programVariables, samplesVariables, scopeOfReference, scopesOf, scopeVariables, stopReason, TOOL_SCOPE, toolVariables } from './variables';
import { SourceMap } from './sourceMap';
import { endOutput, reasoningEvents, repairLine, tracesLine, launchMessage, modeLine, runDocuments, withMessage, RunNotStarted } from './messages';
import { typedText } from '../../core/common/typedText';
import { commonPrefixLength } from '../../core/common/text';
import { plural, tokenUsage } from '../../core/common/counts';
import { CheckedDebugSession } from './checkedSession';

/** Runs started by every session of this process: each run's document gets a name no other run has. */
let runsStarted = 0;
/** How long launch waits for `configurationDone` (breakpoints) before it starts anyway. */
const CONFIGURATION_WAIT_MS = 2000;
/** Coalesces streamed text into one output/custom event per interval. */
const FLUSH_MS = 25;

export interface ArtDebugSessionOptions {
  /** The key of a run that may call its endpoint, read by the client (VS Code: client/runner/keyHosts.ts); default: the environment's. */
  runKey?: (options: KeyOptions, args: ArtLaunchArguments) => PromiseLike<RunKey>;
  /** The client's workspace trust; when given it decides, whatever the `trusted` launch argument says. */
  isTrusted?: () => boolean;
  /** Environment the key variable is read from (default process.env). */
  env?: NodeJS.ProcessEnv;
  /**
   * The URI scheme of the documents the client shows a run's program in (VS Code: `art-run`, served from the
   * `art/text` events). Given, a stack frame of generated text names that document; without it, the adapter serves
   * the text itself (a `source` reference), as any DAP client can show.
   */
  documentScheme?: string;
  /** The client's chat model (VS Code's Language Model API, client/lm/vscodeModel.ts): see core's ChatModelProvider. */
  chatModel?: ChatModelProvider;
}

export class ArtDebugSession extends CheckedDebugSession {
  /** The run, or the samples of a self-consistency run (thread k is runs[k - 1]). */
  private runs: PreparedRun[] = [];
  private sessions: SteppingSession[] = []; // runs[k]'s stepping session (core/launch/stepping.ts): its end, stop and disposal
  private running: Promise<unknown> | undefined;
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
  /** What the client was sent of each thread's program (art/text events), by thread. */
  private readonly sentText = new Map<number, string>();
  private flushTimer: NodeJS.Timeout | undefined;
  /** The trace records of the last run that ended (a restart after the end re-uses them). */
  private lastRecords: TraceRecord[] | undefined;
  /** The step number each stack frame of the last stackTrace of each thread stands for (restartFrame). */
  private readonly frameSteps = new Map<number, number>();
  /** The document URI of each thread's program in this run (with a document scheme), by thread. */
  private readonly documents = new Map<number, string>();

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
    if (this.runs.length || this.launching) {
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
      if (e instanceof RunNotStarted) this.notStarted(response, e);
      else this.sendErrorResponse(response, { id: 1001, format: launchMessage(e), showUser: true });
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
    const previous = this.runs.length === 1 ? this.runs[0].records : this.runs.length ? undefined : this.lastRecords;
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
      if (e instanceof RunNotStarted) return this.notStarted(response, e);
      this.sendErrorResponse(response, { id: 1002, format: launchMessage(e), showUser: true });
      this.sendEvent(new TerminatedEvent());
    }
  }

  protected override async terminateRequest(response: DebugProtocol.TerminateResponse): Promise<void> {
    this.sendResponse(response);
    if (this.runs.length) await this.stopRun();
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

  /** The user chose that the run not start (no error to show): the console says why and the session ends. */
  private notStarted(response: DebugProtocol.Response, e: RunNotStarted): void {
    this.sendEvent(new OutputEvent(`${e.line}\n`, 'console'));
    this.sendResponse(response);
    this.sendEvent(new TerminatedEvent());
  }

  /** Prepares and starts a run; throws a LaunchError the client shows, or RunNotStarted. */
  private async startRun(args: ArtLaunchArguments, cache?: TraceRecord[]): Promise<void> {
    this.args = args;
    this.noDebug = !!args.noDebug;
    // Validation and defaults come from the options' declaration (core/launch/options.ts); the adapter adds only
    // what it alone knows: the key, the trust, the pauses of a noDebug run and where log lines go.
    const options = parseRunOptions(args);
    const trusted = this.options.isTrusted ? this.options.isTrusted() : options.trusted;
    // The key is read when an endpoint may be called (core/launch/apiKey.ts): the client's, else the environment's.
    const key = await runKeyOf(options, this.options.runKey && (o => this.options.runKey!(o, args)), this.options.env ?? process.env);
    if (key.cancelled) throw new RunNotStarted(key.cancelled);
    const chatModel = await callerChatModel(
      options,
      this.options.chatModel,
      `ART Studio runs ${args.name?.trim() || basename(options.program)} with this model.`,
    );
    const config: RunConfig = {
      ...options,
      apiKey: key.key,
      chatModel,
      trusted,
      pauseBeforeTool: !this.noDebug && options.pauseBeforeTool,
      pauseAfterTool: !this.noDebug,
      pauseOnToolError: !this.noDebug,
      stopOnEntry: !this.noDebug && options.stopOnEntry,
      log: line => this.sendEvent(new OutputEvent(`${line}\n`, 'console')),
      cache: cache?.length ? cache : undefined,
    };
    const n = options.samples;
    const runs = n > 1 ? await prepareSamples(config, n) : [await prepareRun(config)];
    this.runs = runs;
    this.runNumber++;
    this.console.reset();
    this.sentText.clear();
    this.frameSteps.clear();
    this.documents.clear();
    const run = runs[0];
    const number = ++runsStarted;
    if (this.options.documentScheme)
      for (const [k, v] of runDocuments(this.options.documentScheme, args.name?.trim() || run.title, run.runner.protocol.kind, runs.length, number))
        this.documents.set(k, v);
    // The first line says the mode and why, then what became of the key and what the model cannot do; the sandbox's
    // isolation and the tool file's problems.
    for (const line of [modeLine(run, options, args.modeReason, runs.length), ...key.notes, ...chatModelNotes(options, chatModel)])
      this.sendEvent(new OutputEvent(`${line}\n`, 'console'));
    for (const note of run.toolNotes) this.sendEvent(new OutputEvent(`tools: ${note}\n`, 'console'));
    for (const p of run.toolProblems) this.sendEvent(new OutputEvent(`tools: ${p}\n`, 'stderr'));
    runs.forEach((r, i) => this.wire(r, i + 1));
    const sessions = (this.sessions = runs.map(r => new SteppingSession(r, config)));
    this.applyBreakpoints();
    const traces = tracesLine(runs);
    if (traces) this.sendEvent(new OutputEvent(`${traces}\n`, 'console'));
    if (runs.length > 1) runs.forEach((_, i) => this.sendEvent(new ThreadEvent('started', i + 1)));
    this.running = Promise.all(
      sessions.map((session, i) =>
        session
          .begin()
          .then(result => this.ended(runs, i + 1, result))
          .catch(e => {
            // Whatever went wrong, the session ends: the client must not wait on a run that is gone.
            this.sendEvent(new OutputEvent(`The run failed: ${(e as Error).message}\n`, 'stderr'));
            for (const other of sessions) void other.stop().catch(() => undefined);
            if (this.runs === runs) this.runs = [];
            if (!this.restarting) this.sendEvent(new TerminatedEvent());
          }),
      ),
    );
  }

  private wire(run: PreparedRun, thread: number): void {
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
          `\n[monitor${this.runs.length > 1 ? `, sample ${thread}` : ''}] off-spec at offset ${c.offset}: found ${found}, expected ${c.expected.join(' or ')}; removed ${JSON.stringify(c.removed)}, inserted ${JSON.stringify(c.inserted)}\n`,
          'console',
        ),
      );
      schedule();
    });
    // Each kind of chat reply repair is said once a run (every one is in the trace).
    const repaired = new Set<string>();
    r.on('repair', ({ n, repair }) => {
      if (repaired.has(repair.kind)) return;
      repaired.add(repair.kind);
      this.flush(true);
      this.sendEvent(new OutputEvent(repairLine(n, repair.summary, this.runs.length > 1 ? thread : undefined, !!run.tracePath), 'console'));
      schedule();
    });
    // Back at a pause where the user had changed the call: the edit is kept there (core/engine/checkpoints.ts), said.
    r.on('rewound', ({ kept }) => kept && this.sendEvent(new OutputEvent(`${kept}\n`, 'console')));
    r.on('paused', p => {
      if (!this.runs.includes(run)) return;
      this.flush(true);
      const ev = new StoppedEvent(stopReason(p), thread) as DebugProtocol.StoppedEvent;
      ev.body.description = this.runs.length > 1 ? `Sample ${thread}: ${p.description}` : p.description;
      ev.body.text = p.call ? `[${p.call.tool}]` : undefined;
      // A sample stops alone: the others go on.
      ev.body.allThreadsStopped = this.runs.length === 1;
      this.sendEvent(ev);
    });
  }

  /** Thread `thread`'s run; without a thread, the first paused sample (else the first). */
  private runOf(thread?: number): PreparedRun | undefined {
    if (thread === undefined || thread === null) return this.runs.find(r => r.runner.paused) ?? this.runs[0];
    return this.runs[thread - 1];
  }

  /** The session's program: every sample runs the same one. */
  private get run(): PreparedRun | undefined {
    return this.runs[0];
  }

  /** The pause of a thread's run, as the runner reports it (the adapter keeps no copy). */
  private pauseOf(run: PreparedRun | undefined): PauseInfo | undefined {
    return run?.runner.paused ?? undefined;
  }

  private threadOf(run: PreparedRun): number {
    return this.runs.indexOf(run) + 1;
  }

  /**
   * Sends the text streamed since the last flush: to the Debug Console (whole lines unless `all`; a single run only:
   * samples would interleave) and to the client (each sample's program on its own).
   */
  private flush(all: boolean): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const samples = this.runs.length > 1;
    this.runs.forEach((run, i) => {
      const thread = i + 1;
      const text = run.runner.text;
      if (!samples) this.console.update(text, all);
      const sent = this.sentText.get(thread) ?? '';
      if (text !== sent) {
        const from = commonPrefixLength(text, sent);
        const body: TextEvent.Body = { run: this.runNumber, kind: run.runner.protocol.kind, from, text: text.slice(from), length: text.length };
        const document = this.documents.get(thread);
        if (document) body.document = document;
        if (samples) body.sample = { index: thread, of: this.runs.length };
        this.sentText.set(thread, text);
        this.sendEvent(new Event(TextEvent.event, body));
      }
    });
  }

  /**
   * A run ended (thread `thread` of `runs`). A single run ends the session; a sample says its answer, and once every
   * sample has ended the vote is written into their traces, then each sample's end is sent and the session ends.
   */
  private async ended(runs: PreparedRun[], thread: number, result: RunResult): Promise<void> {
    const run = runs[thread - 1];
    const current = this.runs === runs;
    if (current) this.flush(true);
    const samples = runs.length > 1;
    const s = result.snapshot;
    const tokens = `${plural(s.requests, 'request')}, ${tokenUsage(s.usage)}`;
    const who = samples ? `Sample ${thread}: ` : '';
    const end = endOutput(result, who, tokens, samples ? '' : `\n${this.console.text.endsWith('\n') ? '' : '\n'}`);
    for (const ev of reasoningEvents(s.reasoning, who)) this.sendEvent(ev);
    this.sendEvent(new OutputEvent(end.text, end.category));
    if (samples) {
      if (current) this.sendEvent(new ThreadEvent('exited', thread));
      // The last sample to end votes; the others wait for it.
      if (!runs.every(r => r.runner.ended)) return;
    }
    const vote = samples ? recordVote(runs) : undefined;
    await Promise.all(runs.map(r => (this.sessions.find(s => s.run === r)?.dispose() ?? r.dispose()).catch(() => undefined)));
    for (const [i, r] of runs.entries()) {
      const res = r.runner.ended!;
      const snap = res.snapshot;
      const body: EndEvent.Body = {
        run: this.runNumber,
        reason: res.reason,
        answer: res.answer,
        error: res.error,
        kind: snap.kind,
        language: r.language,
        program: r.path,
        unit: r.unit,
        text: snap.text,
        calls: snap.calls,
        usage: snap.usage,
        requests: snap.requests,
        tracePath: r.tracePath,
      };
      if (samples) body.sample = { index: i + 1, of: runs.length };
      this.sendEvent(new Event(EndEvent.event, body));
    }
    if (vote)
      this.sendEvent(
        new OutputEvent(
          vote.answer === null
            ? `\nVote: none of the ${vote.of} samples finished with an answer\n`
            : `\nVote: ${vote.answer} (${vote.agree} of ${vote.of} samples)\n`,
          'console',
        ),
      );
    if (!samples && run.cache && run.cache.hits > 0)
      this.sendEvent(new OutputEvent(`(${run.cache.hits} model request(s) answered from the previous run at no cost)\n`, 'console'));
    this.lastRecords = samples ? undefined : run.records;
    if (this.runs === runs) this.runs = [];
    if (!this.restarting) {
      const ok = vote ? vote.answer !== null : result.reason === 'finished';
      this.sendEvent(new ExitedEvent(ok ? 0 : 1));
      this.sendEvent(new TerminatedEvent());
    }
  }

  private async stopRun(): Promise<void> {
    for (const s of this.sessions) void s.stop().catch(() => undefined); // an ended run's session stops at once
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
    // Every sample runs the same program: the same breakpoints.
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
    for (const r of this.runs) r.runner.setBreakpoints(b);
  }

  // ---- execution control ----

  protected override threadsRequest(response: DebugProtocol.ThreadsResponse): void {
    const runs = this.runs;
    response.body = {
      threads:
        runs.length > 1
          ? runs.flatMap((r, i) => (r.runner.ended ? [] : [new Thread(i + 1, `Sample ${i + 1} · ${r.title}`)]))
          : [new Thread(1, runs[0] ? runs[0].title : 'ART run')],
    };
    this.sendResponse(response);
  }

  // Continue, step and pause act on their thread alone: the other samples go on.

  protected override continueRequest(response: DebugProtocol.ContinueResponse, args: DebugProtocol.ContinueArguments): void {
    this.runOf(args.threadId)?.runner.continue();
    response.body = { allThreadsContinued: this.runs.length <= 1 };
    this.sendResponse(response);
  }

  protected override nextRequest(response: DebugProtocol.NextResponse, args: DebugProtocol.NextArguments): void {
    this.runOf(args.threadId)?.runner.step();
    this.sendResponse(response);
  }

  protected override stepInRequest(response: DebugProtocol.StepInResponse, args: DebugProtocol.StepInArguments): void {
    this.runOf(args.threadId)?.runner.step();
    this.sendResponse(response);
  }

  protected override stepOutRequest(response: DebugProtocol.StepOutResponse, args: DebugProtocol.StepOutArguments): void {
    this.runOf(args.threadId)?.runner.step();
    this.sendResponse(response);
  }

  protected override pauseRequest(response: DebugProtocol.PauseResponse, args: DebugProtocol.PauseArguments): void {
    this.runOf(args.threadId)?.runner.pause();
    this.sendResponse(response);
  }

  // ---- time travel: the runner keeps a checkpoint at every pause; the run pauses again at the one gone back to ----

  protected override stepBackRequest(response: DebugProtocol.StepBackResponse, args: DebugProtocol.StepBackArguments): void {
    this.travel(response, args.threadId, r => r.stepBack());
  }

  protected override reverseContinueRequest(response: DebugProtocol.ReverseContinueResponse, args: DebugProtocol.ReverseContinueArguments): void {
    this.travel(response, args.threadId, r => r.reverseContinue());
  }

  protected override restartFrameRequest(response: DebugProtocol.RestartFrameResponse, args: DebugProtocol.RestartFrameArguments): void {
    const step = this.frameSteps.get(args.frameId);
    this.travel(response, frameThread(args.frameId), r => {
      if (step === undefined) throw new Error('that frame is not a step of the paused run: ask for the call stack again');
      r.restartFrame(step);
    });
  }

  private travel(response: DebugProtocol.Response, thread: number | undefined, go: (r: PreparedRun['runner']) => void): void {
    try {
      const run = this.runOf(thread);
      if (!run || !this.pauseOf(run)) throw new Error('the run is not paused');
      // Answer first: the stop at the checkpoint follows as an event.
      go(run.runner);
      this.sendResponse(response);
    } catch (e) {
      this.sendErrorResponse(response, { id: 1008, format: (e as Error).message, showUser: true });
    }
  }

  // ---- what a stop shows ----

  protected override stackTraceRequest(response: DebugProtocol.StackTraceResponse, args: DebugProtocol.StackTraceArguments): void {
    const run = this.runOf(args.threadId ?? 1);
    const p = this.pauseOf(run);
    if (!run || !p) {
      response.body = { stackFrames: [], totalFrames: 0 };
      return this.sendResponse(response);
    }
    const thread = this.threadOf(run);
    const base = (thread - 1) * FRAME_STRIDE;
    // One frame per step, the paused one on top; a frame's id names its thread and its step for restartFrame.
    const step = p.step;
    // An agent's call is at its env-input state, which the program shows only once the tool's output is written.
    const label = p.call?.state ?? step?.label;
    const tool = p.call?.tool ?? step?.name;
    const name = label ? `${label}${tool ? ` [${tool}]` : ''}` : run.title;
    const steps = p.snapshot.steps;
    const topStep = p.call?.step ?? step?.number ?? 0;
    const resumable = new Set(run.runner.checkpointList().map(c => c.step));
    for (const id of [...this.frameSteps.keys()]) if (frameThread(id) === thread) this.frameSteps.delete(id);
    const frames: DebugProtocol.StackFrame[] = [];
    const frame = (id: number, stepNumber: number, title: string, at: StepView | undefined, state: string | undefined) => {
      const where = frameLocation({
        run,
        thread,
        text: p.snapshot.text,
        step: at,
        state,
        shown: this.sentText.get(thread) ?? run.runner.text,
        document: this.documents.get(thread),
        samples: this.runs.length > 1,
        clientPath: path => this.convertDebuggerPathToClient(path),
      });
      const f = new StackFrame(base + id, title, ...where) as DebugProtocol.StackFrame;
      f.canRestart = resumable.has(stepNumber);
      this.frameSteps.set(base + id, stepNumber);
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

  protected override sourceRequest(response: DebugProtocol.SourceResponse, args: DebugProtocol.SourceArguments): void {
    const ref = args.source?.sourceReference ?? args.sourceReference;
    const run = ref ? this.runs[ref - 1] : undefined;
    if (!run) {
      return this.sendErrorResponse(response, { id: 1003, format: 'that source is gone: the run it belonged to has ended', showUser: false });
    }
    response.body = { content: run.runner.text, mimeType: 'text/x-art' };
    this.sendResponse(response);
  }

  protected override scopesRequest(response: DebugProtocol.ScopesResponse, args: DebugProtocol.ScopesArguments): void {
    const thread = frameThread(args.frameId);
    response.body = { scopes: scopesOf(thread, this.pauseOf(this.runs[thread - 1]), this.runs.length > 1) };
    this.sendResponse(response);
  }

  protected override variablesRequest(response: DebugProtocol.VariablesResponse, args: DebugProtocol.VariablesArguments): void {
    const { run, scope } = this.scopeOf(args.variablesReference);
    const vars = scopeVariables(scope, run, this.pauseOf(run), this.runs);
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

  /** The run and the scope a variables reference names. */
  private scopeOf(ref: number): { run: PreparedRun | undefined; scope: number } {
    const { thread, scope } = scopeOfReference(ref);
    return { run: this.runs[thread - 1], scope };
  }

  protected override setVariableRequest(response: DebugProtocol.SetVariableResponse, args: DebugProtocol.SetVariableArguments): void {
    try {
      const { run, scope } = this.scopeOf(args.variablesReference);
      if (scope !== TOOL_SCOPE || !this.pauseOf(run)?.call) throw new Error("only the paused tool call's output and input can be changed");
      if (typeof args.value !== 'string') throw new Error('setVariable needs the new value as a string');
      const value = typedText(args.value);
      this.setCallField(run, args.name, value);
      response.body = { value };
      this.sendResponse(response);
    } catch (e) {
      this.sendErrorResponse(response, { id: 1004, format: (e as Error).message, showUser: true });
    }
  }

  /** Changes the paused call's output or input (what the model then sees); the runner keeps it, the views read it there. */
  private setCallField(run: PreparedRun | undefined, name: string, value: string): void {
    const p = this.pauseOf(run);
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
    const run = this.runOf(args.frameId !== undefined ? frameThread(args.frameId) : undefined);
    const v = [
      ...toolVariables(this.pauseOf(run)),
      ...programVariables(run, this.pauseOf(run)),
      ...(this.runs.length > 1 ? samplesVariables(this.runs) : []),
    ].find(x => x.name === name || (name.startsWith('#') && x.name === name.replace(/:$/, '')));
    if (!v) {
      return this.sendErrorResponse(response, {
        id: 1005,
        format: this.pauseOf(run) ? `"${name}" is not a variable of this stop: try output, input, #1 or Ans` : 'the run is not paused',
        showUser: false,
      });
    }
    response.body = { result: v.value, variablesReference: 0 };
    this.sendResponse(response);
  }

  protected override customRequest(command: string, response: DebugProtocol.Response, args: unknown): void {
    try {
      const text = (args as SetToolOutputRequest.Arguments | undefined)?.text;
      // A sample's thread; none: the first paused sample (the only run when there is one).
      const threadId = (args as { threadId?: unknown } | undefined)?.threadId;
      const run = this.runOf(typeof threadId === 'number' ? threadId : undefined);
      switch (command) {
        case SetToolOutputRequest.command:
        case SetToolInputRequest.command:
          if (typeof text !== 'string') throw new Error(`${command} needs { "text": string }`);
          this.setCallField(run, command === SetToolOutputRequest.command ? 'output' : 'input', text);
          // The Variables view shows the new value.
          if (run) this.sendEvent(new InvalidatedEvent(['variables'], this.threadOf(run)));
          break;
        case SkipToolRequest.command:
          if (!run || this.pauseOf(run)?.phase !== 'before')
            throw new Error('a tool can only be skipped before it runs (launch with "pauseBeforeTool": true)');
          run.runner.skipTool();
          break;
        case AlternativesRequest.command: {
          const k = (args as AlternativesRequest.Arguments | undefined)?.k;
          const runner = run?.runner;
          if (!runner || !this.pauseOf(run)) throw new Error('alternatives: the run is not paused');
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
          if (!run) throw new Error('chooseAlternative: no run');
          if (typeof index !== 'number') throw new Error('chooseAlternative needs { "index": number }');
          run.runner.chooseAlternative(index);
          break;
        }
        case PromptRequest.command: {
          if (!run) throw new Error('the prompt: no run is going on in this session');
          const body: PromptRequest.Response = promptReportOf(
            run,
            this.runs.length > 1 ? { index: this.threadOf(run), of: this.runs.length } : undefined,
          );
          response.body = body;
          break;
        }
        case StateRequest.command: {
          const r = run?.runner;
          const p = this.pauseOf(run);
          const body: StateRequest.Response = {
            run: this.runNumber,
            state: r?.state ?? 'idle',
            kind: r?.protocol.kind,
            program: run?.path,
            text: r?.text ?? '',
            call: p?.call,
            phase: p?.phase,
            tracePath: run?.tracePath,
            corrections: r?.protocol.kind === 'agent' ? (r.snapshot().monitorCorrections ?? []) : undefined,
          };
          if (r && p) {
            body.pause = { reason: p.reason, description: p.description, step: p.step?.number, label: p.step?.label };
            body.canStepBack = r.checkpointList().length > 1;
            body.textOnResume = r.textOnResume();
          }
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
