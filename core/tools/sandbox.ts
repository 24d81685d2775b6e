// Runs Python code in a separate, limited process. What is and is not isolated:
//
// ISOLATED
// - Time: a wall-clock timeout kills the whole process group (SIGKILL); RLIMIT_CPU stops CPU-bound code too.
// - Memory: RLIMIT_AS (address space) is set before any user code runs; allocation beyond it raises MemoryError.
// - Output: stdout and stderr are each capped; past the cap the program is stopped and the text says so.
// - Files written: RLIMIT_FSIZE caps the size of any one file; the working directory is a fresh scratch
//   folder (also HOME and TMPDIR), deleted afterwards.
// - Environment: nothing is inherited from the editor or the CLI: the process sees only PATH, LANG, HOME,
//   TMPDIR and a few Python/BLAS settings, so API keys and other secrets in the environment are not visible.
// - Network: on Linux, when unprivileged user namespaces are available (`unshare -rn` works), the process runs in
//   a new network namespace with no interfaces up: no connection can be made, loopback included. In addition
//   (and as the only guard where namespaces are unavailable: macOS, Windows, locked-down containers) the wrapper
//   replaces Python's socket constructors with ones that raise "network access is disabled in the ART sandbox";
//   that guard alone can be bypassed by code that imports `_socket` or uses ctypes.
//
// NOT ISOLATED
// - The file system: the code can read (and, with the user's permissions, write) any file the user can.
//   Under `unshare -r` a process started by root stays root over root-owned files.
// - Other processes: it can signal or inspect the user's processes; a child that calls setsid() escapes the
//   process-group kill (but not the network namespace or the resource limits, which children inherit).
// - Without user namespaces and when the editor runs as root, the code may raise its own resource limits.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runProcess } from './process';
import { PYTHON_WRAPPER } from './pythonWrapper';

export const DEFAULT_PYTHON = '/usr/bin/python3';

export interface SandboxLimits {
  timeoutMs: number;
  memoryBytes: number;
  /** CPU seconds; defaults to the timeout rounded up. */
  cpuSeconds?: number;
  /** Cap on stdout and on stderr, each, in bytes. */
  maxOutputBytes: number;
  /** Largest file the code may write. */
  maxFileBytes: number;
}

export const DEFAULT_LIMITS: SandboxLimits = {
  timeoutMs: 15_000,
  memoryBytes: 512 * 1024 * 1024,
  maxOutputBytes: 64 * 1024,
  maxFileBytes: 16 * 1024 * 1024,
};

export interface SandboxRequest {
  code: string;
  /** Python run before the code in the same namespace (the ART sympy prefix); an ImportError in it is reported. */
  prefix?: string;
  /** Variables to read after the code ran, first defined wins (`["Fx", "ans"]`). */
  resultVars?: string[];
  pythonPath?: string;
  limits?: Partial<SandboxLimits>;
  signal?: AbortSignal;
  /** Use a network namespace when the OS allows it (default true). Tests turn it off to exercise the fallback. */
  networkNamespace?: boolean;
}

export type SandboxStatus =
  | 'ok' // ran to the end
  | 'exception' // the code raised (traceback in stderr)
  | 'timeout'
  | 'memory'
  | 'cpu'
  | 'output-limit'
  | 'killed' // ended by a signal we did not send
  | 'cancelled'
  | 'missing-module' // the prefix could not import (no sympy)
  | 'start-failed'; // the interpreter could not be started

export interface SandboxResult {
  status: SandboxStatus;
  stdout: string;
  stderr: string;
  /** Whether stdout or stderr was cut at the cap. */
  truncated: boolean;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  durationMs: number;
  /** The result variable, formatted by the wrapper (numbers as Python prints them, lists as JSON). */
  value?: { found: boolean; name?: string; text?: string };
  exception?: { type: string; message: string };
  /** A one-line explanation for every status but `ok` and `exception`. */
  message?: string;
  isolation: { networkNamespace: boolean };
}

let namespaceSupport: Promise<boolean> | null = null;

/** Whether `unshare -rn` works here (checked once per process). */
export function networkNamespaceAvailable(): Promise<boolean> {
  if (process.platform !== 'linux') return Promise.resolve(false);
  namespaceSupport ??= new Promise(resolve => {
    execFile('unshare', ['-rn', 'true'], { env: minimalEnv('/'), timeout: 5000 }, err => resolve(!err));
  });
  return namespaceSupport;
}

function minimalEnv(scratch: string): Record<string, string> {
  return {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    LANG: 'C.UTF-8',
    HOME: scratch,
    TMPDIR: scratch,
    PYTHONIOENCODING: 'utf-8',
    PYTHONDONTWRITEBYTECODE: '1',
    // BLAS thread pools reserve address space per thread, which an RLIMIT_AS sandbox cannot afford.
    OPENBLAS_NUM_THREADS: '1',
    OMP_NUM_THREADS: '1',
    MKL_NUM_THREADS: '1',
  };
}

const mb = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`;

/** Runs `req.code` with the limits; never throws. */
export async function runPython(req: SandboxRequest): Promise<SandboxResult> {
  const limits: SandboxLimits = { ...DEFAULT_LIMITS, ...stripUndefined(req.limits ?? {}) };
  const cpuSeconds = limits.cpuSeconds ?? Math.max(1, Math.ceil(limits.timeoutMs / 1000));
  const python = req.pythonPath ?? DEFAULT_PYTHON;
  const useNamespace = req.networkNamespace !== false && (await networkNamespaceAvailable());
  const started = Date.now();
  const base = { stdout: '', stderr: '', truncated: false, exitCode: null, signal: null, isolation: { networkNamespace: useNamespace } };
  if (req.signal?.aborted) return { ...base, status: 'cancelled', durationMs: 0, message: 'cancelled before it started' };

  let scratch: string;
  try {
    scratch = await mkdtemp(join(tmpdir(), 'art-python-'));
  } catch (e) {
    return { ...base, status: 'start-failed', durationMs: 0, message: `cannot create a scratch folder: ${(e as Error).message}` };
  }
  try {
    return await runIn(scratch);
  } finally {
    await rm(scratch, { recursive: true, force: true }).catch(() => undefined);
  }

  async function runIn(cwd: string): Promise<SandboxResult> {
    const args = ['-I', '-c', PYTHON_WRAPPER];
    const p = await runProcess({
      command: useNamespace ? 'unshare' : python,
      args: useNamespace ? ['-rn', '--', python, ...args] : args,
      cwd,
      env: minimalEnv(cwd),
      stdin: JSON.stringify({
        code: req.code,
        prefix: req.prefix ?? null,
        resultVars: req.resultVars ?? [],
        guardSockets: true,
        limits: { memoryBytes: limits.memoryBytes, cpuSeconds, fileBytes: limits.maxFileBytes },
      }),
      timeoutMs: limits.timeoutMs,
      maxOutputBytes: limits.maxOutputBytes,
      signal: req.signal,
      sideChannel: true,
    });
    const messages = p.channel.split('\n').filter(Boolean).map(line => { try { return JSON.parse(line) as Record<string, unknown>; } catch { return {}; } });
    const find = (kind: string) => messages.find(m => m.kind === kind);
    const result: SandboxResult = {
      ...base,
      status: 'ok',
      stdout: p.stdout,
      stderr: p.stderr,
      truncated: p.truncated,
      exitCode: p.exitCode,
      signal: p.signal,
      durationMs: Date.now() - started,
    };
    const exception = find('exception');
    const prefixError = find('prefix-error');
    const value = find('result');
    if (value) result.value = value.found ? { found: true, name: String(value.name), text: String(value.value) } : { found: false };
    if (exception) result.exception = { type: String(exception.type), message: String(exception.message) };
    const lastLine = (t: string) => t.trim().split('\n').pop() ?? '';

    if (p.startError) {
      result.status = 'start-failed';
      result.message = `cannot start ${python}: ${p.startError.code === 'ENOENT' ? 'no such file (set the Python interpreter path)' : p.startError.message}`;
    } else if (p.stoppedFor === 'timeout') {
      result.status = 'timeout';
      result.message = `stopped after the time limit of ${limits.timeoutMs / 1000} s`;
    } else if (p.stoppedFor === 'cancelled') {
      result.status = 'cancelled';
      result.message = 'cancelled';
    } else if (p.stoppedFor === 'output-limit') {
      result.status = 'output-limit';
      result.message = `stopped after printing more than the output limit of ${limits.maxOutputBytes} bytes`;
    } else if (prefixError) {
      result.status = 'missing-module';
      result.message = `the Python at ${python} cannot import what the ART prefix needs (${String(prefixError.message)}): install Debian's python3-sympy (apt-get install python3-sympy) or set another interpreter`;
    } else if (exception?.type === 'MemoryError') {
      result.status = 'memory';
      result.message = `ran out of memory: the sandbox allows ${mb(limits.memoryBytes)}`;
    } else if (p.signal === 'SIGXCPU') {
      result.status = 'cpu';
      result.message = `stopped after the CPU time limit of ${cpuSeconds} s`;
    } else if (p.signal) {
      result.status = p.signal === 'SIGKILL' ? 'memory' : 'killed';
      result.message = p.signal === 'SIGKILL'
        ? `was killed by the system, most likely for using too much memory (limit ${mb(limits.memoryBytes)})`
        : `was ended by signal ${p.signal}`;
    } else if (exception) {
      result.status = 'exception';
    } else if (p.exitCode !== 0 && !messages.length) {
      // The wrapper never reported: the interpreter itself failed (missing, not Python 3, unshare refused, ...).
      result.status = 'start-failed';
      result.message = p.exitCode === 127 || p.exitCode === 126
        ? `cannot start ${python}: ${lastLine(result.stderr) || 'not found'} (set the Python interpreter path)`
        : `${python} exited with code ${p.exitCode} before running the code${result.stderr ? `: ${lastLine(result.stderr)}` : ''}`;
    }
    return result;
  }
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
