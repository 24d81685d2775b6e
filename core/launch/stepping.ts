// A stepping session: one prepared run driven from outside, pause by pause, as a debugger drives it. What every shell
// that steps a run needs is here once: the run's end, awaiting the next pause or the end after a command, a request
// cancelled stopping the step it drives, a stop that ends the run at once even while a request drives it, disposing of
// the run once, an idle timer, and a replay that departed from its recording kept so that it can step back. The debug
// adapter (client/debugAdapter/) and the agent tools' sessions (core/agentTools/sessions.ts) translate it into their
// protocols, as vscode-mock-debug's session translates its runtime. `SteppingSessions` keeps many under ids, with a cap that holds
// while starts are under way.
import type { PauseInfo, RunResult } from '../engine/types';
import { prepareRun } from './launch';
import type { PreparedRun, RunConfig } from './session';

/** Where a command left the run: paused, or ended. */
export type Stop = { paused: PauseInfo } | { ended: RunResult };

/** A replay that departed from its recording and so ended: its end, and how many pauses it had been at. */
export interface Departed {
  result: RunResult;
  pauses: number;
}

export class SteppingSession {
  private current: PreparedRun;
  private end: Promise<RunResult> | undefined;
  private disposed: Promise<void> | undefined;
  private idle: NodeJS.Timeout | undefined;
  /** A command is driving the run (a shell refuses another, but stop). */
  busy = false;
  /** Set once the run departed from its recording: it ended, and `backBeforeDeparture` can bring it back. */
  departed: Departed | undefined;

  constructor(
    run: PreparedRun,
    /** What prepared the run: a departed replay is prepared again from it. */
    private readonly config: RunConfig,
    private readonly opts: { idleMs?: number; onIdle?: () => void } = {},
  ) {
    this.current = run;
  }

  get run(): PreparedRun {
    return this.current;
  }

  /** Starts the run (once): resolves with its end (runner.run() never rejects). */
  begin(): Promise<RunResult> {
    return (this.end ??= this.current.runner.run());
  }

  /** Starts the run and waits for its first pause or its end. */
  start(signal?: AbortSignal): Promise<Stop> {
    return this.drive(() => void this.begin(), signal);
  }

  /**
   * Does `go` (a runner method) and waits for the next pause or the end. While it waits the session is busy; a
   * cancelled `signal` stops the run (the step in flight is cancelled: nobody waits for it any more). A method the
   * run refuses (nothing to step back to) throws, and the session stays as it was.
   */
  async drive(go: () => void, signal?: AbortSignal): Promise<Stop> {
    const runner = this.current.runner;
    this.busy = true;
    this.disarm();
    let onPause!: (p: PauseInfo) => void;
    const paused = new Promise<PauseInfo>(resolve => (onPause = resolve));
    runner.once('paused', onPause);
    const cancel = () => runner.stop();
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      go();
      if (signal?.aborted) cancel(); // cancelled before it was heard
      const stop: Stop = await Promise.race([paused.then(p => ({ paused: p })), this.begin().then(r => ({ ended: r }))]);
      if ('ended' in stop) {
        if (stop.ended.reason === 'departed')
          this.departed = { result: stop.ended, pauses: runner.checkpointList().filter(c => c.reason !== 'entry').length };
        await this.dispose();
      }
      return stop;
    } finally {
      signal?.removeEventListener('abort', cancel);
      runner.off('paused', onPause);
      this.busy = false;
      this.arm();
    }
  }

  /**
   * A departed replay, back at the pause it departed from: the run is prepared again from its configuration (no
   * trace) and replayed, its tools run again, to the same pause, where it stands as it did before the change.
   */
  async backBeforeDeparture(signal?: AbortSignal): Promise<Stop> {
    const gone = this.departed;
    if (!gone) throw new Error('the run did not depart from its recording');
    this.busy = true;
    this.disarm();
    try {
      this.current = await prepareRun({ ...this.config, trace: undefined });
      this.end = undefined;
      this.disposed = undefined;
      this.departed = undefined;
      let stop = await this.start(signal);
      for (let seen = 1; seen < gone.pauses && 'paused' in stop; seen++) stop = await this.drive(() => this.current.runner.continue(), signal);
      return stop;
    } finally {
      this.busy = false;
      this.arm();
    }
  }

  /** Ends the run wherever it stands, at once also while a command drives it; resolves with its end, once disposed of. */
  async stop(): Promise<RunResult> {
    this.disarm();
    if (this.departed) return this.departed.result;
    this.current.runner.stop();
    const r = await this.begin();
    await this.dispose();
    return r;
  }

  /** Closes the trace and the tools once, whoever asks first. */
  dispose(): Promise<void> {
    return (this.disposed ??= this.current.dispose());
  }

  /** The idle timer: nobody driving the session for `idleMs` calls `onIdle` (a paused or departed session only). */
  private arm(): void {
    const { idleMs, onIdle } = this.opts;
    if (idleMs === undefined || !onIdle) return;
    this.disarm();
    if (!this.departed && !this.current.runner.paused) return;
    this.idle = setTimeout(() => {
      if (!this.busy) onIdle();
    }, idleMs);
    this.idle.unref();
  }

  private disarm(): void {
    clearTimeout(this.idle);
    this.idle = undefined;
  }
}

/** The sessions one caller keeps, under ids, at most `max` at once (starts under way count). */
export class SteppingSessions<S extends { stop(): Promise<unknown> }> {
  private readonly byId = new Map<string, S>();
  private starting = 0;
  private count = 0;

  constructor(readonly max: number) {}

  get size(): number {
    return this.byId.size;
  }

  values(): S[] {
    return [...this.byId.values()];
  }

  get(id: string): S | undefined {
    return this.byId.get(id);
  }

  /**
   * Makes a session with `make` and keeps it under a new id; `full` (what to throw) when `max` are open or starting.
   * The slot is taken before `make` runs, so parallel starts cannot pass the cap.
   */
  async add(make: (id: string) => Promise<S>, full: () => Error): Promise<{ id: string; session: S }> {
    if (this.byId.size + this.starting >= this.max) throw full();
    this.starting++;
    try {
      // The id is taken before `make` runs: parallel starts each get their own.
      const id = String(++this.count);
      const session = await make(id);
      this.byId.set(id, session);
      return { id, session };
    } finally {
      this.starting--;
    }
  }

  /** Forgets a session (it ended, or was stopped). */
  delete(id: string, session?: S): void {
    if (!session || this.byId.get(id) === session) this.byId.delete(id);
  }

  /** Stops and forgets every session (the caller went). */
  async stopAll(): Promise<void> {
    const all = [...this.byId.values()];
    this.byId.clear();
    await Promise.all(all.map(s => s.stop().catch(() => undefined)));
  }
}
