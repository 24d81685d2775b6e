// The local model's runtime: node-llama-cpp (llama.cpp in-process) loaded lazily, one model per process and file,
// shared by every run that uses it, released when idle and on dispose.
//
// node-llama-cpp is an ES module with native binaries: it is imported with a dynamic `import()` the first time a
// local model is used, so nothing else pays for it; the bundles keep it external (scripts/build.mjs) and dist/ finds
// it in node_modules. Its context holds `sequences` KV caches: a request leases the free one whose tokens share the
// longest prefix with its own (so the requests of a run, the samples of self-consistency and the runs of an
// evaluation over the same demonstrations evaluate only what is new), and waits when all are busy.
//
// Bad input is refused before llama.cpp sees it, one line naming the file, the field and the fix: a missing file, a
// file that is not GGUF, a header or tensor table that lies (gguf.ts), a hyper-parameter llama.cpp would abort on
// (ggufCheck.ts), a context longer than the model was trained for, a model and context larger than the free memory.
// Then the file is probed in a child process (modelProbe.ts: an abort or a hang there ends the probe, not this
// process), once per file, and only then loaded here; a load can be cancelled (Stop, an MCP cancel) at every stage.
import { statSync } from 'node:fs';
import { freemem } from 'node:os';
import { basename } from 'node:path';
import { DEFAULT_IDLE_RELEASE_MS, DEFAULT_LOCAL_CONTEXT, DEFAULT_LOCAL_SEQUENCES, type GpuChoice } from './defaultModel';
import { GgufError, readGgufFile } from './gguf';
import { checkGguf, type ModelShape } from './ggufCheck';
import { fileIdentity, probeModelFile, type ProbeVerdict } from './modelProbe';
import { abortError } from './retry';
import type { Llama, LlamaContext, LlamaContextSequence, LlamaGrammar, LlamaModel, Token } from 'node-llama-cpp';

/** Threads llama.cpp decodes with: its default (4) oversubscribes a two-core machine (the cost: docs/performance.md). */
const MAX_THREADS = 2;

/** A local model that cannot be used: one line naming the file and the fix. */
export class LocalModelError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LocalModelError';
  }
}

export interface LocalRuntimeOptions {
  /** The GGUF file. */
  file: string;
  /** Tokens of context per sequence (default: the model's own, at most DEFAULT_LOCAL_CONTEXT). */
  contextSize?: number;
  /** Milliseconds unused before the model is released (default DEFAULT_IDLE_RELEASE_MS; 0: at once). */
  idleReleaseMs?: number;
  /** Concurrent sequences of the context (default DEFAULT_LOCAL_SEQUENCES). */
  sequences?: number;
  /** Where llama.cpp runs (default "auto": the GPU its binary has when one is usable, else the CPU). */
  gpu?: GpuChoice;
  /** Loading progress and what was loaded, one line each. */
  log?: (line: string) => void;
}

/** What a request holds while it decodes: one sequence of the shared context. */
export interface Lease {
  readonly sequence: LlamaContextSequence;
  readonly runtime: LocalRuntime;
  release(): void;
}

export type LlamaModule = typeof import('node-llama-cpp');
let moduleLoad: Promise<LlamaModule> | undefined;
/** llama.cpp's bindings, one per GPU choice (getLlama picks the backend once). */
const llamaLoads = new Map<GpuChoice, Promise<Llama>>();
/** The last error lines llama.cpp logged (its load errors say why only there). */
const llamaErrors: string[] = [];

/** node-llama-cpp, imported on first use. */
export function llamaModule(): Promise<LlamaModule> {
  return (moduleLoad ??= import('node-llama-cpp').catch((e: unknown) => {
    moduleLoad = undefined;
    throw new LocalModelError(
      `the local model runtime (node-llama-cpp) cannot be loaded: ${(e as Error).message} (reinstall with \`npm ci\`; a VSIX without a native binary cannot run a local model)`,
    );
  }));
}

async function llama(gpu: GpuChoice): Promise<Llama> {
  // "auto" that found no GPU is the CPU's bindings already: a second instance would take over llama.cpp's logger.
  const auto = gpu === 'cpu' && !llamaLoads.has('cpu') ? await llamaLoads.get('auto')?.catch(() => undefined) : undefined;
  if (auto && auto.gpu === false) return auto;
  let load = llamaLoads.get(gpu);
  if (!load) {
    load = (async () => {
      const m = await llamaModule();
      return m.getLlama({
        // "auto": the binary's GPU (Metal on darwin-arm64, CUDA or Vulkan where their package is installed and a
        // device answers), else the CPU; never a build from source.
        gpu: gpu === 'cpu' ? false : 'auto',
        build: 'never',
        maxThreads: MAX_THREADS,
        logLevel: m.LlamaLogLevel.warn,
        logger: (level, message) => {
          if (level === m.LlamaLogLevel.error || level === m.LlamaLogLevel.fatal) {
            llamaErrors.push(message.trim());
            if (llamaErrors.length > 20) llamaErrors.shift();
          }
        },
      });
    })().catch((e: unknown) => {
      llamaLoads.delete(gpu);
      throw e instanceof LocalModelError ? e : new LocalModelError(`llama.cpp cannot start: ${(e as Error).message}`);
    });
    llamaLoads.set(gpu, load);
  }
  return load;
}

/** What the loading line says of where the model runs. */
async function whereItRuns(ll: Llama, gpu: GpuChoice): Promise<string> {
  if (ll.gpu === false) return gpu === 'cpu' ? 'on the CPU (gpu: "cpu")' : 'on the CPU (no GPU that llama.cpp can use was found)';
  const devices = await ll.getGpuDeviceNames().catch(() => [] as string[]);
  return `on the GPU (${ll.gpu}${devices.length ? `: ${devices.join(', ')}` : ''})`;
}

const runtimes = new Map<string, LocalRuntime>();

/** The sequences (KV caches) of a runtime's context: as given, else DEFAULT_LOCAL_SEQUENCES; at least one. */
const sequencesOf = (o: Pick<LocalRuntimeOptions, 'sequences'>) => Math.max(1, o.sequences ?? DEFAULT_LOCAL_SEQUENCES);

/** The process's runtime of `file` (loaded on first use, shared by every caller with the same settings). */
export function localRuntime(o: LocalRuntimeOptions): LocalRuntime {
  // The default number of sequences and the same number given are one runtime (one copy of the model in memory).
  const key = `${o.file}\0${o.contextSize ?? ''}\0${sequencesOf(o)}\0${o.gpu ?? 'auto'}`;
  let r = runtimes.get(key);
  if (!r) runtimes.set(key, (r = new LocalRuntime(o, () => runtimes.delete(key))));
  return r;
}

/** Releases every loaded local model of the process (tests, shutdown). */
export async function disposeLocalRuntimes(): Promise<void> {
  await Promise.all([...runtimes.values()].map(r => r.dispose()));
}

const mb = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MiB`;

/** What the fix of a file that lies is. */
const DAMAGED = 'the file is damaged or was altered: download it again, or choose another model file';

/**
 * Checks the file before llama.cpp reads it: it exists, is GGUF, its header and tensor table hold together inside the
 * file, and the hyper-parameters llama.cpp asserts on are in range. Returns its size and shape; throws a
 * LocalModelError naming the file, the field and the fix.
 */
export function checkModelFile(file: string): { bytes: number; shape: ModelShape } {
  let bytes: number;
  try {
    const st = statSync(file);
    if (!st.isFile()) throw new LocalModelError(`${file}: not a file: give the path of a .gguf model file (--model-file / art.model.file)`);
    bytes = st.size;
  } catch (e) {
    if (e instanceof LocalModelError) throw e;
    throw new LocalModelError(
      `${file}: no such model file: give the path of a .gguf file (--model-file / art.model.file), or provision the default one with \`node --import tsx scripts/model.mjs\``,
    );
  }
  try {
    return { bytes, shape: checkGguf(readGgufFile(file)) };
  } catch (e) {
    if (!(e instanceof GgufError))
      throw new LocalModelError(`${file}: the model file cannot be read (${(e as Error).message}): check its permissions`);
    if (e.field === 'magic')
      throw new LocalModelError(`${file}: not a GGUF model file (it does not start with "GGUF"): give a .gguf file, e.g. one converted by llama.cpp`);
    throw new LocalModelError(`${file}: ${e.message}: ${DAMAGED}`);
  }
}

/**
 * The context a runtime creates (`contextSize` per sequence, else the model's own capped), refused when it is longer
 * than the model was trained for or when it and the model do not fit the free memory: the KV cache counted, not only
 * the file (llama.cpp would allocate it, or be killed trying).
 */
export function checkContext(
  file: string,
  bytes: number,
  shape: ModelShape,
  o: Pick<LocalRuntimeOptions, 'contextSize' | 'sequences'>,
  free = freemem(),
): number {
  const trained = shape.trainedContext;
  const contextSize = o.contextSize ?? Math.min(trained ?? DEFAULT_LOCAL_CONTEXT, DEFAULT_LOCAL_CONTEXT);
  if (trained !== undefined && contextSize > trained)
    throw new LocalModelError(
      `${file}: a context of ${contextSize} tokens is longer than the ${trained} the model was trained for: set a context size of at most ${trained} (art.model.contextSize / --context-size)`,
    );
  const sequences = sequencesOf(o);
  const kv = (shape.kvBytesPerToken ?? 0) * contextSize * sequences;
  if (bytes + kv > free)
    throw new LocalModelError(
      `${file}: the model (${mb(bytes)}) and its context of ${contextSize} tokens${sequences > 1 ? ` x ${sequences} sequences` : ''} (${mb(kv)} of KV cache) need ${mb(bytes + kv)}, more than the free memory (${mb(free)}): set a smaller context size (art.model.contextSize / --context-size), close other programs or choose a smaller model`,
    );
  return contextSize;
}

/** A load under way or done: its promise, its cancel, the callers waiting that may still give up. */
interface Loading {
  promise: Promise<{ model: LlamaModel; context: LlamaContext }>;
  cancel: AbortController;
  waiting: number;
  settled: boolean;
}

/** One model file loaded in llama.cpp with one context of several sequences. */
export class LocalRuntime {
  private loading: Loading | undefined;
  private free: LlamaContextSequence[] = [];
  private busy = 0;
  private waiting: (() => void)[] = [];
  private idle: NodeJS.Timeout | undefined;
  /** Keeps the process alive while a request decodes or waits (llama.cpp's work in its threads holds no handle). */
  private keepAlive: NodeJS.Timeout | undefined;
  private readonly grammars = new Map<string, Promise<LlamaGrammar>>();
  private disposed = false;
  /** Milliseconds the last load took. */
  loadMs = 0;
  /** What every client of this model evaluated (LocalModel.stats adds up one client's). */
  readonly totals = { requests: 0, promptTokens: 0, evaluatedPromptTokens: 0, generatedTokens: 0 };

  constructor(
    readonly options: LocalRuntimeOptions,
    private readonly onDispose: () => void,
  ) {}

  get name(): string {
    return basename(this.options.file);
  }

  /**
   * The model and context, loaded once (with progress in the log). `signal` gives up this caller's wait; the load
   * itself (the probe's child, llama.cpp's load) is cancelled when every caller waiting for it has given up.
   */
  load(signal?: AbortSignal): Promise<{ model: LlamaModel; context: LlamaContext }> {
    this.disposed = false;
    if (signal?.aborted) return Promise.reject(abortError(signal));
    if (!this.loading) {
      // llama.cpp loads in its own threads, which hold no handle: a process whose runs all wait for the load (the
      // samples of self-consistency) would otherwise end with their promises pending.
      const hold = setInterval(() => {}, 1 << 30);
      const cancel = new AbortController();
      const loading = this.open(cancel.signal)
        .finally(() => clearInterval(hold))
        .catch((e: unknown) => {
          if (this.loading?.promise === loading) this.loading = undefined;
          throw e;
        });
      this.loading = { promise: loading, cancel, waiting: 0, settled: false };
      const current = this.loading;
      loading.then(
        () => (current.settled = true),
        () => (current.settled = true),
      );
    }
    const current = this.loading;
    if (!signal) {
      // A caller that cannot cancel keeps the load going.
      current.waiting = Infinity;
      return current.promise;
    }
    current.waiting++;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        reject(abortError(signal));
        if (--current.waiting === 0 && !current.settled) {
          current.cancel.abort(abortError(signal));
          if (this.loading === current) this.loading = undefined;
        }
      };
      signal.addEventListener('abort', onAbort, { once: true });
      current.promise.then(
        v => {
          signal.removeEventListener('abort', onAbort);
          current.waiting--;
          resolve(v);
        },
        (e: unknown) => {
          signal.removeEventListener('abort', onAbort);
          current.waiting--;
          reject(e as Error);
        },
      );
    });
  }

  private async open(signal: AbortSignal): Promise<{ model: LlamaModel; context: LlamaContext }> {
    const o = this.options;
    const gpu = o.gpu ?? 'auto';
    const { bytes, shape } = checkModelFile(o.file);
    const contextSize = checkContext(o.file, bytes, shape, o);
    const ll = await llama(gpu);
    const aborted = () => {
      if (signal.aborted) throw abortError(signal);
    };
    aborted();
    const before = fileIdentity(o.file, ll.gpu);
    const verdict = await probeModelFile(o.file, {
      gpu: ll.gpu,
      signal,
      onStart: () => o.log?.(`local model: checking ${this.name} in a separate process before loading it (once per file)…`),
    });
    if (!verdict.ok) throw new LocalModelError(probeFailure(o.file, verdict, shape.architecture));
    // A file replaced since its check is not loaded unchecked.
    if (fileIdentity(o.file, ll.gpu) !== before)
      throw new LocalModelError(`${o.file}: the file changed while it was being checked: run again to check and load the new file`);
    const started = Date.now();
    o.log?.(`local model: loading ${this.name} (${mb(bytes)}) ${await whereItRuns(ll, gpu)}…`);
    let model: LlamaModel;
    let last = 0;
    try {
      llamaErrors.length = 0;
      model = await ll.loadModel({
        modelPath: o.file,
        gpuLayers: ll.gpu === false ? 0 : 'auto',
        loadSignal: signal,
        onLoadProgress: p => {
          const step = Math.floor(p * 4);
          if (step > last && step < 4) o.log?.(`local model: loading ${this.name}: ${step * 25}%`);
          last = Math.max(last, step);
        },
      });
    } catch (e) {
      aborted();
      throw new LocalModelError(loadFailure(o.file, llamaErrors.join(' ') || (e as Error).message, shape.architecture));
    }
    let context: LlamaContext;
    try {
      aborted();
      context = await model.createContext({
        contextSize,
        sequences: sequencesOf(o),
        threads: Math.min(MAX_THREADS, ll.cpuMathCores || MAX_THREADS),
        flashAttention: false,
        // Gemma 3 and others attend through a sliding window: a cache of the whole window lets a request keep any prefix.
        swaFullCache: true,
        createSignal: signal,
      });
      aborted();
    } catch (e) {
      await model.dispose();
      aborted();
      throw new LocalModelError(
        `${o.file}: a context of ${contextSize} tokens does not fit (${(e as Error).message}): set a smaller context size (art.model.contextSize / --context-size)`,
      );
    }
    this.loadMs = Date.now() - started;
    o.log?.(`local model: ${this.name} loaded in ${(this.loadMs / 1000).toFixed(1)} s (context ${context.contextSize} tokens)`);
    this.free = [];
    for (let i = 0; i < context.totalSequences; i++) this.free.push(context.getSequence());
    return { model, context };
  }

  /** A sequence for one request: the free one whose tokens share the longest prefix with `tokens`; waits when none is free. */
  async lease(tokens: readonly Token[], signal?: AbortSignal): Promise<Lease> {
    clearTimeout(this.idle);
    // Before the load too: llama.cpp loads in its own threads, which hold no handle, and a process whose runs all wait
    // for the load (the samples of self-consistency) would otherwise end with their promises pending.
    this.keepAlive ??= setInterval(() => {}, 1 << 30);
    try {
      await this.load(signal);
    } catch (e) {
      if (!this.busy && !this.waiting.length) this.idleNow();
      throw e;
    }
    while (!this.free.length) {
      if (signal?.aborted) {
        if (!this.busy && !this.waiting.length) this.idleNow();
        throw signal.reason instanceof Error ? signal.reason : new Error('The operation was cancelled.');
      }
      await new Promise<void>(resolve => this.waiting.push(resolve));
    }
    let best = 0;
    let bestLength = -1;
    this.free.forEach((s, i) => {
      const n = s.compareContextTokens(tokens as Token[]).firstDifferentIndex;
      if (n > bestLength) [best, bestLength] = [i, n];
    });
    const sequence = this.free.splice(best, 1)[0];
    this.busy++;
    let released = false;
    return {
      sequence,
      runtime: this,
      release: () => {
        if (released) return;
        released = true;
        this.busy--;
        if (!this.disposed) this.free.push(sequence);
        this.waiting.shift()?.();
        if (!this.busy && !this.waiting.length) this.idleNow();
      },
    };
  }

  /** The grammar of a GBNF text, compiled once; a grammar llama.cpp cannot parse is an error with status 400. */
  grammar(gbnf: string): Promise<LlamaGrammar> {
    let g = this.grammars.get(gbnf);
    if (!g) {
      g = llama(this.options.gpu ?? 'auto').then(ll =>
        ll.createGrammar({ grammar: gbnf }).catch((e: unknown) => {
          this.grammars.delete(gbnf);
          throw Object.assign(new Error(`llama.cpp rejected the grammar: ${(e as Error).message}`), { status: 400 });
        }),
      );
      this.grammars.set(gbnf, g);
      if (this.grammars.size > 256) this.grammars.delete(this.grammars.keys().next().value!);
    }
    return g;
  }

  /** Nothing decodes or waits: the process may exit, and the model is released after the idle time. */
  private idleNow(): void {
    clearInterval(this.keepAlive);
    this.keepAlive = undefined;
    this.scheduleRelease();
  }

  private scheduleRelease(): void {
    const ms = this.options.idleReleaseMs ?? DEFAULT_IDLE_RELEASE_MS;
    clearTimeout(this.idle);
    this.idle = setTimeout(() => void this.dispose(), ms);
    this.idle.unref();
  }

  /** Unloads the model (a later request loads it again). */
  async dispose(): Promise<void> {
    clearTimeout(this.idle);
    clearInterval(this.keepAlive);
    this.keepAlive = undefined;
    this.disposed = true;
    const loading = this.loading?.promise;
    this.loading = undefined;
    this.free = [];
    this.grammars.clear();
    this.onDispose();
    if (!loading) return;
    try {
      const { model, context } = await loading;
      await context.dispose();
      await model.dispose();
    } catch {
      // A load that failed has nothing to release.
    }
  }
}

/** The one line of a load that llama.cpp refused, from what it said. */
function loadFailure(file: string, why: string, architecture: string | undefined): string {
  if (/not within the file bounds|corrupted or incomplete|unexpectedly reached end of file|failed to read/i.test(why))
    return `${file}: the file is truncated or corrupted (${why.match(/tensor '[^']+'[^.]*|[^:]+$/)?.[0]?.trim() ?? 'llama.cpp could not read it'}): download it again`;
  const arch = /unknown (?:model )?architecture:? '?([^'\s]+)/i.exec(why);
  if (arch) return `${file}: its architecture "${arch[1]}" is unknown to this llama.cpp: use a model of a supported architecture`;
  // llama.cpp said nothing more precise: both causes it cannot tell apart are named.
  return `${file}: llama.cpp could not load the model (${why}): the file is truncated or damaged, or its architecture${architecture ? ` "${architecture}"` : ''} is unknown to this llama.cpp: download it again, or use a model of a supported architecture`;
}

/** The one line of a probe that did not end well: an abort, a crash or a limit is the file's doing. */
function probeFailure(file: string, v: Exclude<ProbeVerdict, { ok: true }>, architecture: string | undefined): string {
  const where = 'in the separate process that checks a model file, which ended';
  switch (v.kind) {
    case 'refused':
      return loadFailure(file, v.reason, architecture);
    case 'aborted':
      return `${file}: llama.cpp aborted loading it (${v.reason}) ${where}: ${DAMAGED}`;
    case 'crashed':
      return `${file}: llama.cpp crashed loading it (${v.reason}) ${where}: ${DAMAGED}`;
    case 'memory':
      return `${file}: llama.cpp ran past the memory a file of its size needs (${v.reason}) ${where}: ${DAMAGED}`;
    case 'time':
      return `${file}: llama.cpp did not finish loading it (${v.reason}) ${where}: ${DAMAGED}, or try again on a less busy machine`;
  }
}
