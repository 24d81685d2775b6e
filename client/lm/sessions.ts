// The stepping sessions of the editor's tools: the ART debug sessions the person sees, watched through a debug adapter
// tracker (which thread each last stopped on, how its last run ended, and what a session does next). A session tool
// given no session acts on the one the person is looking at; debug_start starts a debug session the person then sees,
// as F5 does. The answers are the shapes art mcp's sessions answer with (core/agentTools/sessionStop.ts, stops.ts).
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { CliError } from '../../core/common/sourceFiles';
import { formatPromptReport } from '../../core/prompt/promptReport';
import type { SessionView, SessionStop } from '../../core/agentTools/sessionStop';
import type { SessionHost, SessionLaunch } from '../../core/agentTools/tool';
import { DEBUG_TYPE, EndEvent, PromptRequest, SetToolOutputRequest, StateRequest } from '../debugAdapter/protocol';
import { viewOfEnd, viewOfState } from './stops';

/** A debug adapter message, as a tracker sees it. */
interface DapMessage {
  type: string;
  event?: string;
  command?: string;
  body?: unknown;
}

/** What a session did next: paused (on a thread), its run ended, or the session went away. */
type Next = { kind: 'stopped'; threadId?: number } | { kind: 'end'; body: EndEvent.Body } | { kind: 'exit' };

/** The launch argument that marks a session debug_start started, so that its first stop is awaited from the start. */
const STARTED_BY = 'artToolStart';

/** What of a run's configuration goes into launch arguments: the options, not the caller's objects. */
const NOT_LAUNCH_ARGUMENTS = new Set([
  'apiKey',
  'chatModel',
  'log',
  'wrapModel',
  'retry',
  'cache',
  'telemetryEnv',
  'userToolsRefused',
  'trusted',
  'text',
]);

export class ArtSessions implements vscode.Disposable, SessionHost {
  private readonly live: vscode.DebugSession[] = [];
  private readonly waiters = new Map<string, Set<(n: Next) => void>>();
  private readonly threads = new Map<string, number>();
  private readonly ends = new Map<string, EndEvent.Body>();
  private readonly subscriptions: vscode.Disposable[];
  private starts = 0;

  constructor() {
    this.subscriptions = [
      vscode.debug.onDidStartDebugSession(s => {
        if (s.type === DEBUG_TYPE) this.live.push(s);
      }),
      vscode.debug.onDidTerminateDebugSession(s => {
        const i = this.live.indexOf(s);
        if (i >= 0) this.live.splice(i, 1);
        this.notify(s, { kind: 'exit' });
      }),
      vscode.debug.registerDebugAdapterTrackerFactory(DEBUG_TYPE, {
        createDebugAdapterTracker: session => ({
          onDidSendMessage: (m: DapMessage) => {
            if (m.type !== 'event') return;
            if (m.event === 'stopped') {
              const threadId = (m.body as { threadId?: number } | undefined)?.threadId;
              if (threadId !== undefined) this.threads.set(session.id, threadId);
              this.ends.delete(session.id);
              this.notify(session, { kind: 'stopped', threadId });
            } else if (m.event === EndEvent.event) {
              const body = m.body as EndEvent.Body;
              // A self-consistency run ends once per sample, the last with `sample` set: the session's end is that one.
              this.ends.set(session.id, body);
              this.notify(session, { kind: 'end', body });
            }
          },
          onExit: () => this.notify(session, { kind: 'exit' }),
        }),
      }),
    ];
  }

  /** The session the person is looking at: the active debug session when it is an ART one, else the latest ART one. */
  current(): vscode.DebugSession | undefined {
    const active = vscode.debug.activeDebugSession;
    if (active?.type === DEBUG_TYPE) return active;
    return this.live.at(-1);
  }

  keys(): string[] {
    // The adapter reads a run's key itself (the person's stored key, asked about its host): none comes through here.
    return [];
  }

  async start(launch: () => Promise<SessionLaunch>, signal: AbortSignal): Promise<SessionStop> {
    const { config, notes } = await launch();
    const marker = `${process.pid}-${++this.starts}`;
    const args: Record<string, unknown> = { type: DEBUG_TYPE, request: 'launch', name: `${basename(String(config.program))} (agent)` };
    for (const [k, v] of Object.entries(config)) if (!NOT_LAUNCH_ARGUMENTS.has(k) && v !== undefined) args[k] = v;
    args[STARTED_BY] = marker;
    const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(String(config.program)));
    const next = await this.await(marker, () => vscode.debug.startDebugging(folder, args as vscode.DebugConfiguration), signal);
    const session = this.live.find(s => s.configuration[STARTED_BY] === marker);
    if (!session) throw new CliError(`the debug session of ${String(config.program)} did not start: the "ART Studio" output says why`);
    const view = next.kind === 'end' ? viewOfEnd(session.name, next.body) : await this.stateOf(session);
    return { ...(view as SessionStop), notes };
  }

  async state(id?: string): Promise<SessionView> {
    return this.stateOf(this.find(id));
  }

  async setOutput(id: string | undefined, output: string): Promise<SessionView> {
    const s = this.find(id);
    await this.pausedAtCall(s, 'there is no output to set');
    await s.customRequest(SetToolOutputRequest.command, { text: output, threadId: this.threads.get(s.id) } satisfies SetToolOutputRequest.Arguments);
    return this.stateOf(s);
  }

  async continue(id: string | undefined, output: string | undefined, signal: AbortSignal): Promise<SessionView> {
    const s = this.find(id);
    const threadId = this.threads.get(s.id);
    if (output !== undefined) {
      await this.pausedAtCall(s, 'continue without "output"');
      await s.customRequest(SetToolOutputRequest.command, { text: output, threadId } satisfies SetToolOutputRequest.Arguments);
    } else await this.paused(s);
    return this.stepped(s, () => s.customRequest('continue', { threadId: threadId ?? 1 }), signal);
  }

  async stepBack(id: string | undefined, signal: AbortSignal): Promise<SessionView> {
    const s = this.find(id);
    const view = await this.paused(s);
    if (view.status === 'paused' && view.canStepBack === false)
      throw new CliError('the debug session is at its first pause: there is nothing to step back to');
    const threadId = this.threads.get(s.id) ?? 1;
    return this.stepped(s, () => s.customRequest('stepBack', { threadId }), signal);
  }

  async stop(id: string | undefined): Promise<SessionStop> {
    const s = this.find(id);
    const view = await this.stateOf(s);
    await vscode.debug.stopDebugging(s);
    return { session: s.name, status: 'stopped', program: view.program };
  }

  async prompt(id?: string): Promise<string | undefined> {
    const s = id === undefined ? this.current() : this.find(id);
    if (!s) return undefined;
    const report = (await s.customRequest(PromptRequest.command, { threadId: this.threads.get(s.id) })) as PromptRequest.Response | undefined;
    return report ? formatPromptReport(report) : undefined;
  }

  /** The session named by id or name, else the one the person is looking at. */
  private find(id: string | undefined): vscode.DebugSession {
    const s = id === undefined ? this.current() : this.live.find(x => x.id === id || x.name === id);
    if (s) return s;
    if (id !== undefined) throw new CliError(`no ART debug session "${id}": it ended or was never started`);
    throw new CliError('no ART debug session is running: start one (Run and Debug, the Debug CodeLens above a program, or art_debug_start)');
  }

  private async stateOf(s: vscode.DebugSession): Promise<SessionView> {
    const state = (await s.customRequest(StateRequest.command, { threadId: this.threads.get(s.id) })) as StateRequest.Response;
    const end = this.ends.get(s.id);
    if (state.state !== 'paused' && end) return viewOfEnd(s.name, end);
    return viewOfState(s.name, state);
  }

  private async paused(s: vscode.DebugSession): Promise<SessionView> {
    const view = await this.stateOf(s);
    if (view.status !== 'paused') throw new CliError(`debug session ${s.name} is not paused (${view.status})`);
    return view;
  }

  private async pausedAtCall(s: vscode.DebugSession, instead: string): Promise<void> {
    const view = await this.paused(s);
    if (view.status !== 'paused' || view.tool === undefined) throw new CliError(`the debug session is not paused at a tool call: ${instead}`);
  }

  /** Does `go` and answers with the session's next pause or its end. */
  private async stepped(s: vscode.DebugSession, go: () => Thenable<unknown>, signal: AbortSignal): Promise<SessionView> {
    const next = await this.await(s.id, go, signal);
    if (next.kind === 'end') return viewOfEnd(s.name, next.body);
    if (next.kind === 'exit') return { session: s.name, status: 'stopped', program: '' };
    return this.stateOf(s);
  }

  /**
   * Resolves with what the session of `key` (its id, or the marker of a session being started) does next after `go`
   * (registered before `go` runs, so nothing is missed); a `go` that answers false (a session that could not start)
   * or a cancelled call is an exit.
   */
  private async await(key: string, go: () => Thenable<unknown>, signal: AbortSignal): Promise<Next> {
    let resolve!: (n: Next) => void;
    const done = new Promise<Next>(r => (resolve = r));
    const set = this.waiters.get(key) ?? new Set();
    this.waiters.set(key, set);
    set.add(resolve);
    const cancel = () => resolve({ kind: 'exit' });
    signal.addEventListener('abort', cancel, { once: true });
    try {
      if ((await go()) === false) resolve({ kind: 'exit' });
      return await done;
    } finally {
      set.delete(resolve);
      signal.removeEventListener('abort', cancel);
    }
  }

  private notify(s: vscode.DebugSession, n: Next): void {
    const keys = [s.id, s.configuration?.[STARTED_BY]].filter((k): k is string => typeof k === 'string');
    for (const k of keys) for (const w of this.waiters.get(k) ?? []) w(n);
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }
}
