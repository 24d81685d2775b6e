// The local model's runtime: node-llama-cpp (llama.cpp in-process) loaded lazily, one model per process and file,
// shared by every run that uses it, released when idle and on dispose.
//
// node-llama-cpp is an ES module with native binaries: it is imported with a dynamic `import()` the first time a
// local model is used, so nothing else pays for it; the bundles keep it external (scripts/build.mjs) and dist/ finds
// it in node_modules. Its context holds `sequences` KV caches: a request leases the free one whose tokens share the
// longest prefix with its own (so the requests of a run, the samples of self-consistency and the runs of an
// evaluation over the same demonstrations evaluate only what is new), and waits when all are busy.
//
// Bad input is refused before llama.cpp sees it, one line naming the file and the fix: a missing file, a file that is
// not GGUF, a truncated one, an architecture llama.cpp does not know, a model larger than the free memory.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { freemem } from 'node:os';
import { basename } from 'node:path';
import { DEFAULT_IDLE_RELEASE_MS, DEFAULT_LOCAL_CONTEXT, DEFAULT_LOCAL_SEQUENCES } from './defaultModel';
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
let llamaLoad: Promise<Llama> | undefined;
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

async function llama(): Promise<Llama> {
  return (llamaLoad ??= (async () => {
    const m = await llamaModule();
    return m.getLlama({
      gpu: false,
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
    llamaLoad = undefined;
    throw e instanceof LocalModelError ? e : new LocalModelError(`llama.cpp cannot start: ${(e as Error).message}`);
  }));
}

const runtimes = new Map<string, LocalRuntime>();

/** The sequences (KV caches) of a runtime's context: as given, else DEFAULT_LOCAL_SEQUENCES; at least one. */
const sequencesOf = (o: LocalRuntimeOptions) => Math.max(1, o.sequences ?? DEFAULT_LOCAL_SEQUENCES);

/** The process's runtime of `file` (loaded on first use, shared by every caller with the same settings). */
export function localRuntime(o: LocalRuntimeOptions): LocalRuntime {
  // The default number of sequences and the same number given are one runtime (one copy of the model in memory).
  const key = `${o.file}\0${o.contextSize ?? ''}\0${sequencesOf(o)}`;
  let r = runtimes.get(key);
  if (!r) runtimes.set(key, (r = new LocalRuntime(o, () => runtimes.delete(key))));
  return r;
}

/** Releases every loaded local model of the process (tests, shutdown). */
export async function disposeLocalRuntimes(): Promise<void> {
  await Promise.all([...runtimes.values()].map(r => r.dispose()));
}

/** Checks the file before llama.cpp reads it: it exists, is GGUF, is whole. Throws a LocalModelError. */
export function checkModelFile(file: string): number {
  let size: number;
  try {
    const st = statSync(file);
    if (!st.isFile()) throw new LocalModelError(`${file}: not a file: give the path of a .gguf model file (--model-file / art.model.file)`);
    size = st.size;
  } catch (e) {
    if (e instanceof LocalModelError) throw e;
    throw new LocalModelError(
      `${file}: no such model file: give the path of a .gguf file (--model-file / art.model.file), or provision the default one with \`node --import tsx scripts/model.mjs\``,
    );
  }
  const head = Buffer.alloc(4);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, head, 0, 4, 0);
  } finally {
    closeSync(fd);
  }
  if (head.toString('latin1') !== 'GGUF')
    throw new LocalModelError(`${file}: not a GGUF model file (it does not start with "GGUF"): give a .gguf file, e.g. one converted by llama.cpp`);
  return size;
}

const mb = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MiB`;

/** One model file loaded in llama.cpp with one context of several sequences. */
export class LocalRuntime {
  private loading: Promise<{ model: LlamaModel; context: LlamaContext }> | undefined;
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

  /** The model and context, loaded once (with progress in the log). */
  load(): Promise<{ model: LlamaModel; context: LlamaContext }> {
    this.disposed = false;
    if (this.loading) return this.loading;
    // llama.cpp loads in its own threads, which hold no handle: a process whose runs all wait for the load (the
    // samples of self-consistency) would otherwise end with their promises pending.
    const hold = setInterval(() => {}, 1 << 30);
    return (this.loading = this.open()
      .finally(() => clearInterval(hold))
      .catch((e: unknown) => {
        this.loading = undefined;
        throw e;
      }));
  }

  private async open(): Promise<{ model: LlamaModel; context: LlamaContext }> {
    const o = this.options;
    const bytes = checkModelFile(o.file);
    const m = await llamaModule();
    let architecture: string | undefined;
    try {
      const info = await m.readGgufFileInfo(o.file, { readTensorInfo: false, logWarnings: false });
      architecture = (info.metadata as { general?: { architecture?: string } } | undefined)?.general?.architecture;
    } catch (e) {
      throw new LocalModelError(
        `${o.file}: the GGUF header cannot be read (${(e as Error).message}): the file is truncated or damaged, download it again`,
      );
    }
    const free = freemem();
    if (bytes > free)
      throw new LocalModelError(
        `${o.file}: the model (${mb(bytes)}) is larger than the free memory (${mb(free)}): close other programs or choose a smaller (more quantised) model`,
      );
    const ll = await llama();
    const started = Date.now();
    o.log?.(`local model: loading ${this.name} (${mb(bytes)})…`);
    let model: LlamaModel;
    let last = 0;
    try {
      llamaErrors.length = 0;
      model = await ll.loadModel({
        modelPath: o.file,
        gpuLayers: 0,
        onLoadProgress: p => {
          const step = Math.floor(p * 4);
          if (step > last && step < 4) o.log?.(`local model: loading ${this.name}: ${step * 25}%`);
          last = Math.max(last, step);
        },
      });
    } catch (e) {
      throw new LocalModelError(loadFailure(o.file, e as Error, architecture));
    }
    const trained = model.trainContextSize;
    const contextSize = o.contextSize ?? Math.min(trained, DEFAULT_LOCAL_CONTEXT);
    let context: LlamaContext;
    try {
      context = await model.createContext({
        contextSize,
        sequences: sequencesOf(o),
        threads: Math.min(MAX_THREADS, ll.cpuMathCores || MAX_THREADS),
        flashAttention: false,
        // Gemma 3 and others attend through a sliding window: a cache of the whole window lets a request keep any prefix.
        swaFullCache: true,
      });
    } catch (e) {
      await model.dispose();
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
      await this.load();
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
      g = llama().then(ll =>
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
    const loading = this.loading;
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

/** The one line of a load that llama.cpp refused, from its logged reason. */
function loadFailure(file: string, e: Error, architecture: string | undefined): string {
  const why = llamaErrors.join(' ');
  if (/not within the file bounds|corrupted or incomplete|unexpectedly reached end of file|failed to read/i.test(why))
    return `${file}: the file is truncated or corrupted (${why.match(/tensor '[^']+'[^.]*|[^:]+$/)?.[0]?.trim() ?? 'llama.cpp could not read it'}): download it again`;
  const arch = /unknown (?:model )?architecture:? '?([^'\s]+)/i.exec(why);
  if (arch) return `${file}: its architecture "${arch[1]}" is unknown to this llama.cpp: use a model of a supported architecture`;
  // llama.cpp logged no reason (it does not always): both causes it cannot tell apart are named.
  return `${file}: llama.cpp could not load the model (${why || e.message}): the file is truncated or damaged, or its architecture${architecture ? ` "${architecture}"` : ''} is unknown to this llama.cpp: download it again, or use a model of a supported architecture`;
}
