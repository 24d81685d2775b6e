// llama.cpp's `llama-server` serving the default local model (localModel.ts), for the tests that hold ART Studio to a
// real OpenAI-compatible server no one here wrote. The binary is built once per machine by scripts/llama-server.mjs
// (outside the checkout; `npm run setup` builds it, so a suite never compiles in the middle of a run). Each test file
// starts its own server on 127.0.0.1 on a free port, waits until its health route says the model is loaded, and stops
// it in `after` (a server still running when the test process exits is killed with it).
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { localModelPath } from './localModel';
import { provisionedPath } from './provision';
import { until } from './until';
import { RecordingProxy } from './recordingProxy';

/** The name the server answers to (`--alias`), sent as the request's model. */
export const LLAMA_MODEL = 'gemma-3-270m';

/** The path of the built llama-server; throws one line naming the fix when it cannot be built. */
export function llamaServerPath(): string {
  return provisionedPath('scripts/llama-server.mjs', [], 'llama-server', 'run it (or `npm run setup`) to see why');
}

export interface LlamaServer {
  /** `http://127.0.0.1:PORT/v1`, the base URL an OpenAI client takes. */
  baseURL: string;
  /** `http://127.0.0.1:PORT`, for llama.cpp's own routes (/props, /health, /tokenize). */
  origin: string;
  /** The last lines the server logged (for a failure's message). */
  log(): string;
  /** The file the server logs into. */
  logPath: string;
  stop(): Promise<void>;
}

export interface LlamaServerOptions {
  /** Requests decoded at once (`--parallel`, one slot each). Default 2. */
  parallel?: number;
  /** Context size in tokens, shared by the slots. Default 4096 per slot. */
  contextPerSlot?: number;
  /** Time to wait for the model to load. Default 120 s (a loaded 2-core machine). */
  readyTimeoutMs?: number;
}

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** A TCP port free on 127.0.0.1 at the time of asking. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Starts llama-server on the default model and resolves once it answers `/health` with 200. */
export async function startLlamaServer(opts: LlamaServerOptions = {}): Promise<LlamaServer> {
  const binary = llamaServerPath();
  const model = localModelPath();
  const parallel = opts.parallel ?? 2;
  const port = await freePort();
  const args = [
    ...['--model', model, '--alias', LLAMA_MODEL],
    ...['--host', '127.0.0.1', '--port', String(port)],
    // One thread: on the shared 2-core machine, with other work running, two threads busy-wait on each other
    // (measured: 2.3 tokens/s with 2 threads, 11 with 2 and --poll 0, 60 with 1, at a load average of 10).
    ...['--threads', '1', '--threads-batch', '1'],
    ...['--parallel', String(parallel), '--ctx-size', String((opts.contextPerSlot ?? 4096) * parallel)],
    // The model's own chat template (the GGUF's), which function calling needs.
    '--jinja',
    '--no-webui',
  ];
  // The server logs into a file, never a pipe: a caller whose event loop is busy (a spawnSync) would stop draining a
  // pipe, and llama-server, blocked writing its log, stops answering every request.
  const logPath = join(mkdtempSync(join(tmpdir(), 'art-llama-server-')), 'server.log');
  const logFd = openSync(logPath, 'w');
  const child = spawn(binary, args, { stdio: ['ignore', logFd, logFd] });
  closeSync(logFd);
  live.add(child);
  let exited: string | undefined;
  child.once('exit', (code, signal) => {
    exited = `exit ${code ?? signal}`;
    live.delete(child);
  });
  const origin = `http://127.0.0.1:${port}`;
  const log = () => readFileSync(logPath, 'utf8').split('\n').slice(-60).join('\n');
  const stop = () =>
    new Promise<void>(resolve => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5000).unref();
    });
  try {
    await until(
      async () => {
        if (exited) throw new Error(`llama-server ended (${exited}) before it was ready:\n${log()}`);
        try {
          return (await fetch(`${origin}/health`)).status === 200;
        } catch {
          return false; // not listening yet
        }
      },
      { what: `llama-server on ${origin} to load ${model}`, timeoutMs: opts.readyTimeoutMs ?? 120_000, everyMs: 100 },
    );
  } catch (e) {
    await stop();
    throw e;
  }
  return { baseURL: `${origin}/v1`, origin, log, logPath, stop };
}

/**
 * A test file's llama-server with a recording proxy in front (recordingProxy.ts), started in `before` and stopped in
 * `after`: read `server` and `proxy` inside the tests.
 */
export function llamaServerForTests(
  hooks: { before: (fn: () => Promise<void>) => void; after: (fn: () => Promise<void>) => void },
  opts: LlamaServerOptions = {},
): { server: LlamaServer; proxy: RecordingProxy } {
  const it = {} as { server: LlamaServer; proxy: RecordingProxy };
  hooks.before(async () => {
    it.server = await startLlamaServer(opts);
    it.proxy = await new RecordingProxy(it.server.origin).start();
  });
  hooks.after(async () => {
    await it.proxy?.close();
    await it.server?.stop();
  });
  return it;
}

/** The JSON values of a JSON-lines file (a trace, a results file). */
export function jsonLinesOf<T = any>(path: string): T[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(l => l.trim())
    .map(l => JSON.parse(l) as T);
}
