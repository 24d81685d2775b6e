// Starting a tool process with a deadline: its own process group (so a timeout kills everything it started),
// capped stdout/stderr (past the cap the process is stopped), an optional extra pipe on fd 3 for a side channel
// (and one on fd 4 that carries a secret to the process, read and closed),
// and an explicit environment; with `contain`, tied to the host so that it and what it starts die with it
// (./containment.ts). Used by the Python sandbox and by user `command` tools. Never throws.
import { spawn } from 'node:child_process';
import { containedCommand, findProgram, type Containment } from './containment';

export interface ProcessRequest {
  command: string;
  args: string[];
  cwd: string;
  /** The complete environment: nothing is inherited. */
  env: Record<string, string>;
  stdin?: string;
  timeoutMs: number;
  /** Cap on stdout and on stderr, each. */
  maxOutputBytes: number;
  signal?: AbortSignal;
  /** Open fd 3 as a pipe and collect what the process writes there. */
  sideChannel?: boolean;
  /** With sideChannel: written on fd 4, which is then closed (the sandbox's nonce). */
  secret?: string;
  /** Run it tied to the host (see detectContainment): it and its children die with the host process. */
  contain?: Containment;
}

export interface ProcessResult {
  stdout: string;
  stderr: string;
  /** Text written to fd 3 (with `sideChannel`). */
  channel: string;
  truncated: boolean;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** Why we stopped it, if we did. */
  stoppedFor: 'timeout' | 'output-limit' | 'cancelled' | null;
  /** The process could not be started (ENOENT, EACCES, ...). */
  startError: NodeJS.ErrnoException | null;
  durationMs: number;
}

export function runProcess(req: ProcessRequest): Promise<ProcessResult> {
  const started = Date.now();
  return new Promise(resolve => {
    const empty = { stdout: '', stderr: '', channel: '', truncated: false, exitCode: null, signal: null };
    if (req.signal?.aborted) {
      resolve({ ...empty, stoppedFor: 'cancelled', startError: null, durationMs: 0 });
      return;
    }
    let command = req.command;
    let args = req.args;
    if (req.contain && req.contain.level !== 'none') {
      // Through a wrapper a missing program would be the wrapper's failure: found first, as spawn finds it.
      const program = findProgram(req.command, req.cwd, req.env);
      if (!program) {
        const startError = Object.assign(new Error(`spawn ${req.command} ENOENT`), { code: 'ENOENT' }) as NodeJS.ErrnoException;
        resolve({ ...empty, stoppedFor: null, startError, durationMs: Date.now() - started });
        return;
      }
      ({ command, args } = containedCommand(req.contain, program, req.args));
    }
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(command, args, {
        cwd: req.cwd,
        env: req.env,
        stdio: req.sideChannel ? ['pipe', 'pipe', 'pipe', 'pipe', ...(req.secret !== undefined ? ['pipe' as const] : [])] : ['pipe', 'pipe', 'pipe'],
        detached: process.platform !== 'win32',
      });
    } catch (e) {
      resolve({ ...empty, stoppedFor: null, startError: e as NodeJS.ErrnoException, durationMs: Date.now() - started });
      return;
    }
    const out = new CappedBuffer(req.maxOutputBytes);
    const err = new CappedBuffer(req.maxOutputBytes);
    let channel = '';
    let stoppedFor: ProcessResult['stoppedFor'] = null;
    let startError: NodeJS.ErrnoException | null = null;
    let closed = false;

    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(process.platform === 'win32' ? child.pid : -child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    };
    const stop = (why: NonNullable<ProcessResult['stoppedFor']>) => {
      if (stoppedFor || closed) return;
      stoppedFor = why;
      killGroup();
    };
    const timer = setTimeout(() => stop('timeout'), req.timeoutMs);
    const onAbort = () => stop('cancelled');
    req.signal?.addEventListener('abort', onAbort, { once: true });

    child.stdout!.on('data', (b: Buffer) => {
      if (!out.push(b)) stop('output-limit');
    });
    child.stderr!.on('data', (b: Buffer) => {
      if (!err.push(b)) stop('output-limit');
    });
    if (req.sideChannel) {
      const fd3 = child.stdio[3] as NodeJS.ReadableStream;
      fd3.on('data', (b: Buffer) => {
        if (channel.length < 1_000_000) channel += b.toString('utf8');
      });
      fd3.on('error', () => undefined);
      if (req.secret !== undefined) {
        const fd4 = child.stdio[4] as NodeJS.WritableStream;
        fd4.on('error', () => undefined);
        fd4.end(req.secret);
      }
    }
    child.stdin!.on('error', () => undefined); // the process may exit before reading its input
    child.stdin!.end(req.stdin ?? '');
    child.on('error', e => {
      startError = e;
    });
    // Anything the process left running could hold the pipes open after it exits: shortly after the exit, kill
    // its group, and stop waiting for pipes that a process outside the group (one that called setsid) still holds.
    let afterExit: NodeJS.Timeout | undefined;
    child.on('exit', () => {
      setTimeout(killGroup, 100).unref();
      afterExit = setTimeout(() => {
        for (const s of child.stdio) (s as (NodeJS.ReadableStream & { destroy?: () => void }) | null)?.destroy?.();
      }, 1000);
    });
    child.on('close', (exitCode, signal) => {
      closed = true;
      clearTimeout(timer);
      clearTimeout(afterExit);
      req.signal?.removeEventListener('abort', onAbort);
      resolve({
        stdout: out.text(),
        stderr: err.text(),
        channel,
        truncated: out.truncated || err.truncated,
        exitCode,
        signal,
        stoppedFor,
        startError,
        durationMs: Date.now() - started,
      });
    });
  });
}

/** Collects a stream up to `max` bytes; `push` returns false once the cap is passed. */
class CappedBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  truncated = false;
  constructor(private readonly max: number) {}
  push(b: Buffer): boolean {
    if (this.truncated) return false;
    const room = this.max - this.size;
    if (b.length > room) {
      this.chunks.push(b.subarray(0, room));
      this.size = this.max;
      this.truncated = true;
      return false;
    }
    this.chunks.push(b);
    this.size += b.length;
    return true;
  }
  text(): string {
    const s = Buffer.concat(this.chunks).toString('utf8');
    return this.truncated ? `${s}\n[output truncated at ${this.max} bytes]` : s;
  }
}
