// Runs Python code in a separate, limited process, at the strongest isolation level the machine offers. The level
// is detected once per process (detectIsolation) and said in the run's first lines and in every result:
//
// - `bwrap` (bubblewrap installed and working): the code runs in new user, mount, PID, network, IPC and UTS
//   namespaces, as an unprivileged uid with no capabilities, and can make no namespace of its own (--disable-userns
//   and the seccomp filter). It sees /usr (and /etc's loader cache and
//   alternatives) read-only and nothing else of the host: no home folder, no /work, no host /tmp. Its only
//   writable places are a fresh tmpfs on /tmp (the scratch folder, also HOME and TMPDIR) and a tmpfs /dev/shm,
//   both of bounded size and gone when the step ends. No network (not even loopback). --die-with-parent and the
//   PID namespace end every process the code started (setsid included) with the step and with the host process.
// - `unshare` (`unshare -rmniu` works, no bubblewrap): new user (mapped to root), mount, network, IPC and UTS
//   namespaces and, where the OS allows, a new PID namespace whose init dies with the step (`--kill-child`), started
//   under `setpriv --pdeathsig SIGKILL` so it also dies with the host. The wrapper builds the file system bubblewrap
//   would (the same root layout, a bounded tmpfs /tmp and /dev/shm, /proc only with the PID namespace) on an empty
//   host folder, moves it over / and chroots there, then drops every capability for good: no home folder, no
//   workspace, nothing writable but the tmpfs mounts. If it cannot, the code is refused (status `refused`). The
//   empty host folder is removed after the step, or by the next sandbox run if the host was killed (its name
//   carries the host's pid).
// - `none` (no namespace can be made: macOS, Windows, containers with the default seccomp profile): only the
//   resource limits, the cleared environment and Python's socket guard (bypassable with `_socket`/ctypes). NOT
//   isolated: files, network, other processes (the parent's environment through /proc), processes that call
//   setsid. Code is refused at this level unless the user allows it (`allowUnisolatedCode`).
//
// At every level: a wall-clock timeout kills the process group (SIGKILL); RLIMIT_CPU, RLIMIT_AS (memory),
// RLIMIT_FSIZE (one file) and, on Linux, a seccomp filter refusing memfd_create and shmget (memory RLIMIT_AS does
// not count), new namespaces, setns, io_uring and packet and netfilter sockets (seccomp.ts) are set before any user code runs, and RLIMIT_NPROC (processes) in a user namespace (the
// kernel exempts the host's root user from it, so under bubblewrap a root host runs the sandbox as `nobody` when
// the interpreter is a system one, and otherwise, and under `unshare`, a root host gets no process limit); stdout and stderr are each capped; the environment holds only PATH, LANG, HOME, TMPDIR and a few Python/BLAS settings (no keys).
// The result comes back on a channel the code never holds: the wrapper runs the code in a child, reports once itself
// with a per-run nonce, and a report the code forged is a `forged` status (pythonWrapper.ts, docs/security.md).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { constants as osConstants, tmpdir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { runProcess } from './process';
import { PYTHON_WRAPPER } from './pythonWrapper';
import { sandboxFilter } from './seccomp';
import { withoutUndefined } from '../common/text';

export const DEFAULT_PYTHON = '/usr/bin/python3';

/** The largest report the code's process may send the wrapper (its result variable's text): REPORT_LIMIT there. */
const RESULT_LIMIT_BYTES = 1_000_000;

/** RLIMIT_NPROC inside the sandbox: enough for a process pool, not for a fork bomb. */
export const MAX_PROCESSES = 64;

export interface SandboxLimits {
  timeoutMs: number;
  memoryBytes: number;
  /** CPU seconds; defaults to the timeout rounded up. */
  cpuSeconds?: number;
  /** Cap on stdout and on stderr, each, in bytes. */
  maxOutputBytes: number;
  /** Largest file the code may write. */
  maxFileBytes: number;
  /** Size of each tmpfs the sandbox mounts: the scratch /tmp and /dev/shm. */
  tmpfsBytes: number;
}

export const DEFAULT_LIMITS: SandboxLimits = {
  timeoutMs: 15_000,
  memoryBytes: 512 * 1024 * 1024,
  maxOutputBytes: 64 * 1024,
  maxFileBytes: 16 * 1024 * 1024,
  tmpfsBytes: 32 * 1024 * 1024,
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
  /** The isolation level to use instead of the detected one (tests exercise the fallbacks with it). */
  isolation?: IsolationLevel;
  /** Run even where no network namespace can be made (level `none`); refused otherwise. */
  allowUnisolated?: boolean;
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
  | 'refused' // no isolation possible here and the user did not allow unisolated code
  | 'forged' // the report on the wrapper's channel or pipe is not the one the wrapper writes (code wrote its own)
  | 'exited' // the code ended its process (os._exit) with a non-zero code before it finished
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
  isolation: { level: IsolationLevel; networkNamespace: boolean };
}

export type IsolationLevel = 'bwrap' | 'unshare' | 'none';

/** What each level isolates and what it does not, as said in the run's first lines and in docs/security.md. */
export const ISOLATION_LEVELS: Record<IsolationLevel, { label: string; notIsolated: string }> = {
  bwrap: {
    label: 'bubblewrap (files, network, processes and /dev/shm isolated)',
    notIsolated: 'the system files under /usr are readable; CPU, memory and time are limited, not reserved',
  },
  unshare: {
    label: 'user, mount, network, PID and IPC namespaces (`unshare`; bubblewrap is not installed; files isolated as under bubblewrap)',
    notIsolated: 'the system files under /usr are readable; CPU, memory and time are limited, not reserved',
  },
  none: {
    label: 'no namespace (none can be made here)',
    notIsolated:
      'the file system, the network (only a socket guard that code can bypass), other processes and their environment through /proc, processes started with setsid',
  },
};

/** The one line a run prints first about the Python sandbox, and that every Python tool result carries. */
export function isolationNote(level: IsolationLevel, allowUnisolated = false): string {
  const l = ISOLATION_LEVELS[level];
  const refusal =
    level === 'none'
      ? allowUnisolated
        ? ' Running code anyway (allowUnisolatedCode is on).'
        : ' Python code is refused (allow it with the setting art.allowUnisolatedCode or --allow-unisolated-code).'
      : '';
  return `Python sandbox: ${l.label}; not isolated: ${l.notIsolated}.${refusal}`;
}

/**
 * bubblewrap's namespaces: all of them, the user namespace required (not `-try`), and none the code can make
 * itself (--disable-userns: the sandbox's user namespace allows no nested one). A bubblewrap older than 0.8 has no
 * --disable-userns: there the seccomp filter alone refuses new namespaces (it does at every level; seccomp.ts).
 */
const BWRAP_NAMESPACES = ['--unshare-all', '--unshare-user', '--disable-userns'];
const OLD_BWRAP_NAMESPACES = ['--unshare-all'];

interface Detected {
  level: IsolationLevel;
  pidNamespace: boolean;
  /** bubblewrap's namespace flags that work here. */
  bwrapNamespaces: string[];
}

/** The `unshare` level's namespaces: user (mapped to root), mount, network, IPC and UTS (+ PID where allowed). */
const UNSHARE_FLAGS = '-rmniu';

let detected: Promise<Detected> | null = null;

const works = (...[cmd, args]: [string, string[]]) =>
  new Promise<boolean>(resolve => {
    execFile(cmd, args, { env: minimalEnv('/'), timeout: 5000 }, err => resolve(!err));
  });

function detect(): Promise<Detected> {
  const none = { pidNamespace: false, bwrapNamespaces: BWRAP_NAMESPACES };
  if (process.platform !== 'linux') return Promise.resolve({ level: 'none', ...none });
  detected ??= (async () => {
    for (const namespaces of [BWRAP_NAMESPACES, OLD_BWRAP_NAMESPACES]) {
      const bwrapWorks = await works(
        ...asNobody('bwrap', [
          ...namespaces,
          '--die-with-parent',
          '--ro-bind',
          '/usr',
          '/usr',
          ...bwrapLayout(systemLinks()),
          '--proc',
          '/proc',
          '--dev',
          '/dev',
          'true',
        ]),
      );
      if (bwrapWorks) return { level: 'bwrap' as const, pidNamespace: true, bwrapNamespaces: namespaces };
    }
    if (await works('setpriv', ['--pdeathsig', 'KILL', '--', 'unshare', UNSHARE_FLAGS, '--pid', '--fork', '--kill-child', '--mount-proc', 'true']))
      return { level: 'unshare' as const, ...none, pidNamespace: true };
    if (await works('unshare', [UNSHARE_FLAGS, 'true'])) return { level: 'unshare' as const, ...none };
    return { level: 'none' as const, ...none };
  })();
  return detected;
}

/** The strongest isolation level this machine offers (checked once per process). */
export async function detectIsolation(): Promise<IsolationLevel> {
  return (await detect()).level;
}

/** Whether a network namespace can be made here (level `bwrap` or `unshare`). */
export async function networkNamespaceAvailable(): Promise<boolean> {
  return (await detectIsolation()) !== 'none';
}

/** One entry of the sandbox's file system: a read-only bind (`-try`: only if the source exists) or a symlink. */
type RootEntry = ['ro-bind' | 'ro-bind-try' | 'symlink', string, string];

/** /bin, /lib, ... as the host has them: symlinks into /usr (merged /usr) or read-only binds. */
function systemLinks(): RootEntry[] {
  const out: RootEntry[] = [];
  for (const name of ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32']) {
    const path = `/${name}`;
    try {
      const st = lstatSync(path);
      if (st.isSymbolicLink()) out.push(['symlink', readlinkSync(path), path]);
      else if (st.isDirectory()) out.push(['ro-bind', path, path]);
    } catch {
      /* absent */
    }
  }
  return out;
}

const SYSTEM_DIRS = ['/usr/', '/bin/', '/lib/', '/lib64/', '/sbin/'];

/**
 * What the code sees of the host, at both isolated levels: /usr, /etc's loader cache, alternatives and local time,
 * read-only, and for an interpreter outside the system folders its folder, or its virtual environment's root (with
 * pyvenv.cfg), read-only, never a folder as wide as / or /tmp. Mounted after the scratch /tmp.
 */
function rootLayout(python: string): RootEntry[] {
  const out: RootEntry[] = [
    ['ro-bind', '/usr', '/usr'],
    ...systemLinks(),
    ['ro-bind-try', '/etc/ld.so.cache', '/etc/ld.so.cache'],
    ['ro-bind-try', '/etc/alternatives', '/etc/alternatives'],
    ['ro-bind-try', '/etc/localtime', '/etc/localtime'],
  ];
  if (!SYSTEM_DIRS.some(d => python.startsWith(d))) {
    const dir = dirname(python);
    const venv = dirname(dir);
    const bind = existsSync(join(venv, 'pyvenv.cfg')) ? venv : dir;
    if (bind.split('/').filter(Boolean).length >= 2) out.push(['ro-bind-try', bind, bind]);
  }
  return out;
}

const bwrapLayout = (layout: RootEntry[]) => layout.flatMap(([kind, from, to]) => [`--${kind}`, from, to]);

/** The bubblewrap command line: the code sees the root layout, a bounded tmpfs as /tmp (its scratch) and /dev/shm. */
function bwrapArgs(python: string, scratch: string, env: Record<string, string>, tmpfsBytes: number, namespaces: string[]): string[] {
  const args = [
    ...namespaces,
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--uid',
    '65534',
    '--gid',
    '65534',
    '--dev',
    '/dev',
    '--size',
    String(tmpfsBytes),
    '--tmpfs',
    '/dev/shm',
    '--proc',
    '/proc',
    '--size',
    String(tmpfsBytes),
    '--tmpfs',
    '/tmp',
    '--dir',
    scratch,
    '--chdir',
    scratch,
    ...bwrapLayout(rootLayout(python)),
    '--clearenv',
  ];
  for (const [k, v] of Object.entries(env)) args.push('--setenv', k, v);
  return args;
}

/**
 * A host running as root starts bubblewrap as `nobody`: the kernel does not apply RLIMIT_NPROC to processes of the
 * host's root user, even inside a user namespace, and the code has no reason to hold root's uid. Only for an
 * interpreter in the system folders (`nobody` may not reach one in root's private folders).
 */
function asNobody(command: string, args: string[], when = true): [string, string[]] {
  return when && process.getuid?.() === 0
    ? ['setpriv', ['--reuid', '65534', '--regid', '65534', '--clear-groups', '--', command, ...args]]
    : [command, args];
}

/** Scratch folders of hosts that were killed before they could remove them (`art-python-<pid>-...`). */
async function sweepOrphanScratch(): Promise<void> {
  let names: string[];
  try {
    names = await readdir(tmpdir());
  } catch {
    return;
  }
  for (const name of names) {
    const m = /^art-python-(\d+)-/.exec(name);
    if (!m || Number(m[1]) === process.pid || alive(Number(m[1]))) continue;
    await rm(join(tmpdir(), name), { recursive: true, force: true }).catch(() => undefined);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
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
  const limits: SandboxLimits = { ...DEFAULT_LIMITS, ...withoutUndefined(req.limits ?? {}) };
  const cpuSeconds = limits.cpuSeconds ?? Math.max(1, Math.ceil(limits.timeoutMs / 1000));
  const python = req.pythonPath ?? DEFAULT_PYTHON;
  const detected = await detect();
  const level = req.isolation ?? detected.level;
  const started = Date.now();
  const base = { stdout: '', stderr: '', truncated: false, exitCode: null, signal: null, isolation: { level, networkNamespace: level !== 'none' } };
  if (req.signal?.aborted) return { ...base, status: 'cancelled', durationMs: 0, message: 'cancelled before it started' };
  if (isAbsolute(python) && !existsSync(python))
    return { ...base, status: 'start-failed', durationMs: 0, message: `cannot start ${python}: no such file (set the Python interpreter path)` };
  if (level === 'none' && !req.allowUnisolated)
    return { ...base, status: 'refused', durationMs: 0, message: `was not run: ${isolationNote('none')}` };

  const virtualScratch = `/tmp/art-python-${randomBytes(6).toString('hex')}`;
  if (level === 'bwrap') {
    // Everything writable is a tmpfs inside the sandbox: nothing to create or remove on the host.
    return runIn(virtualScratch, '/');
  }
  void sweepOrphanScratch();
  let scratch: string;
  try {
    scratch = await mkdtemp(join(tmpdir(), `art-python-${process.pid}-`));
  } catch (e) {
    return { ...base, status: 'start-failed', durationMs: 0, message: `cannot create a scratch folder: ${(e as Error).message}` };
  }
  try {
    // unshare: the host folder is only where the sandbox's root is mounted; the code's scratch is in its own /tmp.
    return await runIn(level === 'unshare' ? virtualScratch : scratch, scratch);
  } finally {
    await rm(scratch, { recursive: true, force: true }).catch(() => undefined);
  }

  async function runIn(scratch: string, hostCwd: string): Promise<SandboxResult> {
    const env = minimalEnv(scratch);
    // The wrapper's frame on the channel carries it; the code's process never has it (pythonWrapper.ts).
    const nonce = randomBytes(16).toString('hex');
    const wrapped = ['-I', '-c', PYTHON_WRAPPER];
    const pidNamespace = detected.level === 'unshare' ? detected.pidNamespace : detected.level === 'bwrap';
    const [command, args] =
      level === 'bwrap'
        ? asNobody(
            'bwrap',
            [...bwrapArgs(python, scratch, env, limits.tmpfsBytes, detected.bwrapNamespaces), '--', python, ...wrapped],
            SYSTEM_DIRS.some(d => python.startsWith(d)),
          )
        : // setpriv: unshare dies with the host; --kill-child: the namespace's init dies with unshare, and the PID
          // namespace with its init.
          level === 'unshare'
          ? pidNamespace
            ? [
                'setpriv',
                ['--pdeathsig', 'KILL', '--', 'unshare', UNSHARE_FLAGS, '--pid', '--fork', '--kill-child', '--mount-proc', '--', python, ...wrapped],
              ]
            : ['unshare', [UNSHARE_FLAGS, '--', python, ...wrapped]]
          : [python, wrapped];
    const p = await runProcess({
      command,
      args,
      cwd: hostCwd,
      env,
      stdin: JSON.stringify({
        code: req.code,
        prefix: req.prefix ?? null,
        resultVars: req.resultVars ?? [],
        guardSockets: true,
        // unshare: the wrapper builds the root bubblewrap would (hostCwd is the empty folder it is mounted on).
        root: level === 'unshare' ? { dir: hostCwd, scratch, tmpfsBytes: limits.tmpfsBytes, layout: rootLayout(python), proc: pidNamespace } : null,
        seccomp: process.platform === 'linux' ? (sandboxFilter()?.toString('hex') ?? null) : null,
        limits: { memoryBytes: limits.memoryBytes, cpuSeconds, fileBytes: limits.maxFileBytes, processes: level === 'none' ? null : MAX_PROCESSES },
      }),
      timeoutMs: limits.timeoutMs,
      maxOutputBytes: limits.maxOutputBytes,
      signal: req.signal,
      sideChannel: true,
      secret: nonce,
    });
    // bwrap and `unshare --fork` report a child killed by signal N as exit code 128 + N.
    if (level !== 'none' && !p.signal && p.exitCode !== null && p.exitCode > 128 && p.exitCode < 128 + 65) {
      const name = Object.entries(osConstants.signals).find(([, n]) => n === p.exitCode! - 128)?.[0];
      if (name) Object.assign(p, { signal: name as NodeJS.Signals, exitCode: null });
    }
    const report = readChannel(p.channel, nonce);
    const ended = report.frame?.kind === 'done' ? report.frame : undefined;
    const child = ended?.report as Record<string, unknown> | null | undefined;
    const byKind = (kind: string) => (report.frame?.kind === kind ? report.frame : undefined);
    // How the code's process ended (the wrapper saw it end), else how the wrapper did.
    const signal = p.signal ?? ((ended?.signal as NodeJS.Signals | null | undefined) || null);
    const result: SandboxResult = {
      ...base,
      status: 'ok',
      stdout: p.stdout,
      stderr: p.stderr,
      truncated: p.truncated,
      exitCode: p.signal ? p.exitCode : ended ? ((ended.exitCode as number | null) ?? null) : p.exitCode,
      signal,
      durationMs: Date.now() - started,
    };
    const exception = child?.kind === 'exception' ? child : undefined;
    const prefixError = byKind('prefix-error');
    const seccompError = byKind('seccomp-error');
    const isolationError = byKind('isolation-error');
    const value = child?.kind === 'result' ? child : undefined;
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
    } else if (ended?.large) {
      result.status = 'output-limit';
      result.message = `its result is larger than the limit of ${mb(RESULT_LIMIT_BYTES)}`;
    } else if (report.problem || ended?.problem) {
      result.status = 'forged';
      result.value = undefined;
      result.exception = undefined;
      result.message = `reported no result that can be trusted: ${report.problem ?? String(ended!.problem)}`;
    } else if (isolationError) {
      result.status = 'refused';
      result.message = `was not run: the unshare fallback could not isolate the file system (${String(isolationError.message)}); install bubblewrap (apt-get install bubblewrap)`;
    } else if (seccompError) {
      result.status = 'start-failed';
      result.message = `could not install the sandbox's system call filter (${String(seccompError.message)}); the code was not run`;
    } else if (prefixError) {
      result.status = 'missing-module';
      result.message = `the Python at ${python} cannot import what the ART prefix needs (${String(prefixError.message)}): install Debian's python3-sympy (apt-get install python3-sympy) or set another interpreter`;
    } else if (exception?.type === 'MemoryError') {
      result.status = 'memory';
      result.message = `ran out of memory: the sandbox allows ${mb(limits.memoryBytes)}`;
    } else if (signal === 'SIGXCPU') {
      result.status = 'cpu';
      result.message = `stopped after the CPU time limit of ${cpuSeconds} s`;
    } else if (signal) {
      result.status = signal === 'SIGKILL' ? 'memory' : 'killed';
      result.message =
        signal === 'SIGKILL'
          ? `was killed by the system, most likely for using too much memory (limit ${mb(limits.memoryBytes)})`
          : `was ended by signal ${signal}`;
    } else if (exception) {
      result.status = 'exception';
    } else if (ended && !child && result.exitCode !== 0) {
      result.status = 'exited';
      result.message = `ended its own process with exit code ${result.exitCode} before the code finished`;
    } else if (p.exitCode !== 0 && !report.frame) {
      // The wrapper never reported: the interpreter itself failed (missing, not Python 3, unshare refused, ...).
      result.status = 'start-failed';
      result.message =
        p.exitCode === 127 || p.exitCode === 126
          ? `cannot start ${python}: ${lastLine(result.stderr) || 'not found'} (set the Python interpreter path)`
          : `${python} exited with code ${p.exitCode} before running the code${result.stderr ? `: ${lastLine(result.stderr)}` : ''}`;
    }
    return result;
  }
}

/**
 * The wrapper's one frame on the channel (pythonWrapper.ts): the channel must hold exactly one line, a JSON object
 * carrying this run's nonce; anything else (more lines, another nonce) is a problem, and no frame is believed.
 */
function readChannel(channel: string, nonce: string): { frame?: Record<string, unknown>; problem?: string } {
  const lines = channel.split('\n').filter(Boolean);
  if (!lines.length) return {};
  let frame: unknown;
  try {
    frame = JSON.parse(lines[lines.length - 1]);
  } catch {
    frame = null;
  }
  const ok = lines.length === 1 && !!frame && typeof frame === 'object' && (frame as { nonce?: unknown }).nonce === nonce;
  if (!ok) return { problem: `the sandbox's result channel held ${lines.length} line(s) that are not the wrapper's one frame` };
  return { frame: frame as Record<string, unknown> };
}
