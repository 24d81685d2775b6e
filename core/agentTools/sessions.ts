// The stepping sessions of a shell without an editor (`art mcp`): debug_start prepares a run that pauses after every
// tool call and on a tool's error (core/launch/stepping.ts) and keeps it under an id; the other session tools drive it
// through the Runner's methods, each answering with the next pause or the end. A pause is awaited with the runner's
// `paused` event, raced with the end of its run. A session nobody drives for the idle time is stopped; every session
// is stopped when the caller goes (stopAll). A tool given no session id drives the latest one started.
import { prepareRun } from '../launch/launch';
import { SteppingSession, SteppingSessions, type Stop } from '../launch/stepping';
import type { PauseInfo, RunResult } from '../engine/types';
import { CliError } from '../common/sourceFiles';
import { redact } from './invoke';
import { withCall, type SessionStop, type SessionView } from './sessionStop';
import type { SessionHost, SessionLaunch } from './tool';

/** Sessions one caller may keep open at once: each holds a run, its tools and its sandbox. */
export const MAX_SESSIONS = 16;

/** A paused session nobody drives for this long is stopped (art mcp's `--session-idle-s`). */
export const DEFAULT_SESSION_IDLE_S = 30 * 60;

/** A session of the caller's: the core's stepping session, the key its run read and its launch notes. */
interface Session {
  id: string;
  stepping: SteppingSession;
  /** The key the run read, if any: kept out of every answer. */
  key?: string;
  /** The launcher's log lines (the sandbox's isolation, tool problems). */
  notes: string[];
  stop(): Promise<unknown>;
}

/** How a departed replay goes on, in the words of the session tools' own arguments. */
export const GO_ON_LIVE =
  'call debug_start again with "mode": "replay" and an endpoint ("baseURL" and "model", or art mcp started with --base-url and --model) to replay up to there and go on live, or debug_step_back to go back before the change';

/** A departure's text with the way on said in the tools' arguments, not the editor's or the command line's. */
export function toolDeparture(error: string): string {
  const cut = error.indexOf(': set a model');
  return cut < 0 ? error : `${error.slice(0, cut)}: ${GO_ON_LIVE}`;
}

export interface SteppingSessionsOptions {
  /** How long a session nobody drives lives, in milliseconds (default DEFAULT_SESSION_IDLE_S). */
  idleMs?: number;
  /** A line in the shell's log. */
  log(line: string): void;
}

export class HeadlessSessions implements SessionHost {
  private readonly sessions = new SteppingSessions<Session>(MAX_SESSIONS);
  /** The ids in the order their sessions started: the latest open one is the default. */
  private readonly order: string[] = [];

  constructor(private readonly opts: SteppingSessionsOptions) {}

  get size(): number {
    return this.sessions.size;
  }

  keys(): string[] {
    return this.sessions.values().flatMap(s => (s.key ? [s.key] : []));
  }

  async start(launch: () => Promise<SessionLaunch>, signal: AbortSignal): Promise<SessionStop> {
    const { session: s } = await this.sessions.add(
      async id => {
        const { config, key, notes } = await launch();
        const stepping = new SteppingSession(await prepareRun(config), config, { idleMs: this.idleMs, onIdle: () => this.expire(id) });
        return { id, stepping, key, notes, stop: () => stepping.stop() };
      },
      () => new CliError(`art mcp: ${MAX_SESSIONS} sessions are open: end one with debug_stop before starting another`),
    );
    this.order.push(s.id);
    const stop = await this.answer(s, () => s.stepping.start(signal));
    return { ...stop, notes: [...s.stepping.run.toolProblems, ...s.notes] };
  }

  async state(id?: string): Promise<SessionView> {
    const s = this.find(id);
    const secrets = s.key ? [s.key] : [];
    if (s.stepping.departed) return redact({ ...endView(s.id, s.stepping.departed.result), canStepBack: s.stepping.departed.pauses > 0 }, secrets);
    const runner = s.stepping.run.runner;
    if (runner.paused) return redact(this.pauseView(s, runner.paused), secrets);
    return redact({ session: s.id, status: s.stepping.busy ? 'running' : 'idle', program: runner.snapshot().text }, secrets);
  }

  async setOutput(id: string | undefined, output: string): Promise<SessionView> {
    const s = this.get(id);
    const runner = s.stepping.run.runner;
    if (!runner.paused?.call) throw new CliError(`art mcp: session ${s.id} is not paused at a tool call: there is no output to set`);
    runner.setToolOutput(output);
    return redact(this.pauseView(s, runner.paused), s.key ? [s.key] : []);
  }

  async continue(id: string | undefined, output: string | undefined, signal: AbortSignal): Promise<SessionStop> {
    const s = this.get(id);
    const runner = s.stepping.run.runner;
    if (output !== undefined) {
      if (!runner.paused?.call) throw new CliError(`art mcp: session ${s.id} is not paused at a tool call: give no "output" to continue`);
      runner.setToolOutput(output);
    }
    return this.answer(s, () => s.stepping.drive(() => runner.continue(), signal));
  }

  async stepBack(id: string | undefined, signal: AbortSignal): Promise<SessionStop> {
    const s = this.get(id, true);
    if (s.stepping.departed) return this.answer(s, () => s.stepping.backBeforeDeparture(signal));
    return this.answer(s, () => s.stepping.drive(() => s.stepping.run.runner.stepBack(), signal));
  }

  async stop(id: string | undefined): Promise<SessionStop> {
    const s = this.find(id);
    this.forget(s);
    const departed = s.stepping.departed;
    const r = await s.stepping.stop();
    const view = endView(s.id, r);
    return redact(departed ? { ...view, status: 'stopped', error: undefined } : view, s.key ? [s.key] : []);
  }

  /** Stops every session (the caller went): their tools, sandboxes and MCP servers end too. */
  stopAll(): Promise<void> {
    this.order.length = 0;
    return this.sessions.stopAll();
  }

  private get idleMs(): number {
    return this.opts.idleMs ?? DEFAULT_SESSION_IDLE_S * 1000;
  }

  private expire(id: string): void {
    const s = this.sessions.get(id);
    if (!s) return;
    this.opts.log(`art mcp: session ${id} was idle for ${this.idleMs / 1000} s: stopped (art mcp --session-idle-s)`);
    void this.stop(id).catch(() => {});
  }

  private forget(s: Session): void {
    this.sessions.delete(s.id, s);
    const i = this.order.indexOf(s.id);
    if (i >= 0) this.order.splice(i, 1);
  }

  /** The session of `id`, else the latest one started that is still open. */
  private find(id: string | undefined): Session {
    const wanted = id ?? this.order.at(-1);
    const s = wanted === undefined ? undefined : this.sessions.get(wanted);
    if (!s) {
      if (id === undefined) throw new CliError('art mcp: no session is open: start one with debug_start');
      throw noSession(id);
    }
    return s;
  }

  private get(id: string | undefined, departedToo = false): Session {
    const s = this.find(id);
    if (s.stepping.busy) throw new CliError(`art mcp: session ${s.id} is busy with another request: wait for its answer, or end it with debug_stop`);
    if (s.stepping.departed) {
      if (departedToo) return s;
      throw new CliError(
        `art mcp: session ${s.id} departed from its recording and ended: debug_step_back goes back before that, debug_stop forgets it`,
      );
    }
    if (!s.stepping.run.runner.paused) throw new CliError(`art mcp: session ${s.id} is not paused`);
    return s;
  }

  /** The answer to a command: the pause, or the end (a session that ended is forgotten, but a departed one). */
  private async answer(s: Session, command: () => Promise<Stop>): Promise<SessionStop> {
    const secrets = s.key ? [s.key] : [];
    let stop: Stop;
    try {
      stop = await command();
    } catch (e) {
      // A method the run refused (not at a call, nothing to go back to): the session stays paused as it was.
      if (s.stepping.run.runner.paused) throw new CliError(`art mcp: session ${s.id}: ${(e as Error).message}`);
      throw e;
    }
    if ('paused' in stop) return redact(this.pauseView(s, stop.paused), secrets);
    const view = redact(endView(s.id, stop.ended), secrets);
    // A departed replay is kept: a step back replays to the pause it departed from; debug_stop forgets it.
    if (s.stepping.departed && this.sessions.get(s.id) === s) return { ...view, canStepBack: s.stepping.departed.pauses > 0 };
    this.forget(s);
    return view;
  }

  private pauseView(s: Session, p: PauseInfo): SessionStop {
    const { call } = p;
    const runner = s.stepping.run.runner;
    const view: SessionStop = {
      session: s.id,
      status: 'paused',
      reason: p.reason,
      description: p.description,
      // With the paused call's output (or its override) appended, as the run goes on from here.
      program: runner.textOnResume(),
      canStepBack: runner.checkpointList().length > 1,
    };
    if (p.step) Object.assign(view, { step: p.step.number, label: p.step.label });
    return call ? withCall(view, call) : view;
  }
}

const noSession = (id: string) => new CliError(`art mcp: no session "${id}": it ended or was never started; start one with debug_start`);

function endView(id: string, r: RunResult): SessionStop {
  const view: SessionStop = { session: id, status: r.reason, answer: r.answer, program: r.snapshot.text };
  if (r.error !== undefined) view.error = r.reason === 'departed' ? toolDeparture(r.error) : r.error;
  return view;
}
