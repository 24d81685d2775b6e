// The probe: a model file is loaded once in a child process before the process that asked for it (the editor's
// extension host, `art mcp`, the debug adapter, `art run`) loads it in-process. llama.cpp ends the process on what it
// cannot handle (GGML_ASSERT aborts with SIGABRT, which no worker thread survives) and node-llama-cpp's own header
// reader can loop: a file that does either ends the probe, not the caller, and its verdict is one line. The probe
// loads the model, creates a small context and evaluates one token, as the caller's load will, with a time limit, a
// memory limit and a cancel that kills it. Its verdict is remembered per file (its path, device, inode, size and
// times, with the llama.cpp build and the GPU backend) in the cache folder, so a second load of the same file, in this
// process or another, pays nothing; a changed file is probed again.
import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { makeOwnedFolder, writeOwnedFile } from '../common/ownedFiles';
import { abortError } from './retry';

/** The GPU backend llama.cpp runs on (node-llama-cpp's `llama.gpu`): false is the CPU. */
export type GpuBackend = false | 'cuda' | 'vulkan' | 'metal';

export type ProbeVerdict =
  | { ok: true; cached: boolean }
  | {
      ok: false;
      cached: boolean;
      /** aborted: llama.cpp ended the process (an assertion); crashed: another signal; refused: llama.cpp's error; time, memory: a limit. */
      kind: 'aborted' | 'crashed' | 'refused' | 'time' | 'memory';
      /** What llama.cpp said (its assertion, its error lines), one line. */
      reason: string;
    };

export interface ProbeOptions {
  gpu: GpuBackend;
  /** Milliseconds the probe may take (default probeTimeLimit(the file's size)). */
  timeoutMs?: number;
  /** Bytes the child may hold (default probeMemoryLimit(the file's size)). */
  memoryLimitBytes?: number;
  /** Cancels the probe (the child is killed) with an AbortError. */
  signal?: AbortSignal;
  /** The verdicts file (default probeStoreFile()). */
  store?: string;
  /** Called when a child is started (no verdict was remembered), with its process id: the caller may say that it checks the file. */
  onStart?: (pid: number | undefined) => void;
}

/** The verdicts file: $XDG_CACHE_HOME/art-studio/model-checks.json, else ~/.cache/art-studio/model-checks.json. */
export function probeStoreFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'art-studio', 'model-checks.json');
}

const GIB = 2 ** 30;
/** A load reads the file once and evaluates one token: a minute, and a minute for each GiB (a slow disk). */
export const probeTimeLimit = (bytes: number) => 60_000 + Math.ceil((60_000 * bytes) / GIB);
/** The file mapped, its vocabulary, a small context and a margin: more is a loader that allocates without end. */
export const probeMemoryLimit = (bytes: number) => 2 * bytes + 2 * GIB;
/** Verdicts kept in the file (the oldest go first). */
const MAX_VERDICTS = 64;
/** Bytes of the child's output kept (its last lines say why it ended). */
const OUTPUT_TAIL = 16 * 1024;

/**
 * The child's program (an ES module given with -e, so every shell runs it with no file of its own: the CLI, the
 * bundles, VS Code's extension host as plain Node with ELECTRON_RUN_AS_NODE). Arguments: node-llama-cpp's URL, the
 * file, the GPU backend ("false" for the CPU), the memory limit in bytes. It says what it got as one JSON line.
 */
const PROBE_SOURCE = `
// node-llama-cpp forks a process to test its binary, with this process's execArgv: not this program again.
process.execArgv = [];
const [url, file, gpu, limit] = process.argv.slice(1);
const say = o => process.stdout.write(JSON.stringify(o) + '\\n');
setInterval(() => {
  const rss = process.memoryUsage.rss();
  if (rss > Number(limit)) { say({ memory: rss }); process.exit(3); }
}, 100).unref();
const errors = [];
try {
  const m = await import(url);
  const llama = await m.getLlama({
    gpu: gpu === 'false' ? false : gpu, build: 'never', maxThreads: 2, logLevel: m.LlamaLogLevel.error,
    logger: (level, message) => { errors.push(String(message).trim()); if (errors.length > 20) errors.shift(); },
  });
  const model = await llama.loadModel({ modelPath: file, gpuLayers: gpu === 'false' ? 0 : 'auto' });
  const context = await model.createContext({ contextSize: 256, sequences: 1, threads: 2, flashAttention: false, swaFullCache: true });
  await context.getSequence().evaluateWithoutGeneratingNewTokens([model.tokens.bos ?? 0]);
  say({ ok: true });
  process.exit(0);
} catch (e) {
  say({ ok: false, message: String(e && e.message || e), errors });
  process.exit(2);
}
`;

/** node-llama-cpp's entry and version, resolved as the runtime's import() resolves it. */
function llamaPackage(): { url: string; version: string } {
  const entry = require.resolve('node-llama-cpp');
  let version = '?';
  try {
    version = (JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as { version?: string }).version ?? '?';
  } catch {
    // The version only keys the verdicts: without it a new build probes again.
  }
  return { url: pathToFileURL(entry).href, version };
}

/** What identifies a file's content for the verdicts: a change to it changes its size, mtime or ctime. */
export function fileIdentity(file: string, gpu: GpuBackend): string {
  const st = statSync(file, { bigint: true });
  return [llamaPackage().version, gpu || 'cpu', file, st.dev, st.ino, st.size, st.mtimeNs, st.ctimeNs].join('|');
}

interface Stored {
  ok: boolean;
  kind?: 'aborted';
  reason?: string;
  at: number;
}

function readStore(store: string): Record<string, Stored> {
  try {
    const text = readFileSync(store, 'utf8');
    if (text.length > 1 << 20) return {};
    const v = JSON.parse(text) as { verdicts?: Record<string, Stored> };
    return v && typeof v.verdicts === 'object' && v.verdicts ? v.verdicts : {};
  } catch {
    return {};
  }
}

function writeStore(store: string, key: string, verdict: Stored): void {
  try {
    const all = readStore(store);
    all[key] = verdict;
    const kept = Object.entries(all)
      .sort((a, b) => b[1].at - a[1].at)
      .slice(0, MAX_VERDICTS);
    // Through the one writer: the store is never written through a link planted in its place. A store two processes
    // wrote at once reads as empty, which costs a probe, nothing else.
    makeOwnedFolder(dirname(store), { base: dirname(dirname(store)) });
    writeOwnedFile(store, JSON.stringify({ verdicts: Object.fromEntries(kept) }), 'replace', { base: dirname(store) });
  } catch {
    // A verdict that cannot be kept costs the next load a probe, nothing else.
  }
}

/** Probes in flight in this process, by identity: two loads of one file wait for one probe. */
const inFlight = new Map<string, { verdict: Promise<ProbeVerdict>; waiting: number; kill: () => void }>();

/**
 * The verdict on `file`: remembered, else from a probe in a child process. Rejects with an AbortError when `signal`
 * aborts (the child is killed once no one waits for it).
 */
export async function probeModelFile(file: string, o: ProbeOptions): Promise<ProbeVerdict> {
  if (o.signal?.aborted) throw abortError(o.signal);
  const store = o.store ?? probeStoreFile();
  const key = fileIdentity(file, o.gpu);
  const known = readStore(store)[key];
  if (known) return known.ok ? { ok: true, cached: true } : { ok: false, cached: true, kind: 'aborted', reason: known.reason ?? 'llama.cpp aborted' };
  let probe = inFlight.get(key);
  if (!probe) {
    const ac = new AbortController();
    const started = runProbe(file, o, ac.signal).then(v => {
      // An abort is the file's doing; an error or a limit may be the machine's (a missing binary, a busy disk): not kept.
      if (v.ok) writeStore(store, key, { ok: true, at: Date.now() });
      else if (v.kind === 'aborted') writeStore(store, key, { ok: false, kind: v.kind, reason: v.reason, at: Date.now() });
      return v;
    });
    const entry = { verdict: started, waiting: 0, kill: () => ac.abort() };
    inFlight.set(key, entry);
    void started.then(
      () => inFlight.delete(key),
      () => inFlight.delete(key),
    );
    probe = entry;
  }
  const p = probe;
  p.waiting++;
  try {
    return await untilAborted(p.verdict, o.signal);
  } finally {
    if (--p.waiting === 0) p.kill();
  }
}

/** `promise`, or an AbortError as soon as `signal` aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** One probe: the child started, watched, and its end read. Resolves with its verdict; rejects when `kill` aborts. */
function runProbe(file: string, o: ProbeOptions, kill: AbortSignal): Promise<ProbeVerdict> {
  const bytes = statSync(file).size;
  const timeoutMs = o.timeoutMs ?? probeTimeLimit(bytes);
  const { url } = llamaPackage();
  const child = spawn(
    process.execPath,
    [
      '--max-old-space-size=1024',
      '--input-type=module',
      '-e',
      PROBE_SOURCE,
      '--',
      url,
      file,
      String(o.gpu),
      String(o.memoryLimitBytes ?? probeMemoryLimit(bytes)),
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      // Plain Node inside VS Code's Electron; no gdb attached to print a backtrace when llama.cpp aborts.
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1', GGML_NO_BACKTRACE: '1' },
      windowsHide: true,
    },
  );
  let out = '';
  let err = '';
  o.onStart?.(child.pid);
  child.stdout.on('data', (d: Buffer) => (out = (out + d.toString('utf8')).slice(-OUTPUT_TAIL)));
  child.stderr.on('data', (d: Buffer) => (err = (err + d.toString('utf8')).slice(-OUTPUT_TAIL)));
  return new Promise<ProbeVerdict>((resolve, reject) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    const onKill = () => child.kill('SIGKILL');
    kill.addEventListener('abort', onKill, { once: true });
    child.on('error', e => {
      clearTimeout(timer);
      kill.removeEventListener('abort', onKill);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      kill.removeEventListener('abort', onKill);
      if (kill.aborted) return reject(abortError(kill));
      if (timedOut)
        return resolve({ ok: false, cached: false, kind: 'time', reason: `it did not finish loading in ${Math.round(timeoutMs / 1000)} s` });
      resolve(verdictOf(code, signal, out, err));
    });
  });
}

/** The verdict of a child that ended by itself, from its exit, its JSON line and its error output. */
export function verdictOf(code: number | null, signal: NodeJS.Signals | null, out: string, err: string): ProbeVerdict {
  const said = out
    .split('\n')
    .map(l => {
      try {
        return JSON.parse(l) as { ok?: boolean; memory?: number; message?: string; errors?: string[] };
      } catch {
        return undefined;
      }
    })
    .filter(x => x !== undefined)
    .pop();
  if (code === 0 && said?.ok) return { ok: true, cached: false };
  if (said?.memory) return { ok: false, cached: false, kind: 'memory', reason: `it took ${Math.round(said.memory / 2 ** 20)} MiB while loading` };
  const assertion = /([\w.-]+\.(?:c|cpp|h):\d+: )?(GGML_ASSERT\(.*\) failed|GGML_ABORT.*|.*fatal error.*)/.exec(err);
  // SIGABRT, or Windows' abort() exit code (3) with nothing said.
  if (signal === 'SIGABRT' || assertion || (code === 3 && !said))
    return { ok: false, cached: false, kind: 'aborted', reason: assertion ? `${assertion[1] ?? ''}${assertion[2]}`.trim() : 'llama.cpp aborted' };
  if (said && said.ok === false)
    return { ok: false, cached: false, kind: 'refused', reason: [...(said.errors ?? []), said.message ?? ''].filter(Boolean).join(' ') };
  return { ok: false, cached: false, kind: 'crashed', reason: signal ? `it ended on ${signal}` : `it exited with code ${code}` };
}
