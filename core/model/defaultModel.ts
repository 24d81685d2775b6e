// The default local model, named once (and the local runtime's defaults, which the run options' declaration reads
// without loading the runtime): what `npm start`, the test line's real-model tier, `art model pull` and the
// editor's *Download a Local Model…* fetch when no model is given. Plain data, no I/O.

/** The context size when none is set: the model's own, capped (a larger one costs memory a short program never uses). */
export const DEFAULT_LOCAL_CONTEXT = 8192;
/** Milliseconds an unused model stays loaded (art.model.idleReleaseMs). */
export const DEFAULT_IDLE_RELEASE_MS = 5 * 60_000;
/** KV caches of one context: concurrent requests of an evaluation take one each (measured: docs/performance.md). */
export const DEFAULT_LOCAL_SEQUENCES = 2;

/** Where llama.cpp runs a local model: "auto" the GPU its binary has (Metal, CUDA, Vulkan) when one is usable, else the CPU. */
export const GPU_CHOICES = ['auto', 'cpu'] as const;
export type GpuChoice = (typeof GPU_CHOICES)[number];

export type { LocalModelSource } from './catalog';

/** The model a new user meets when none is given (`npm start`, `art model pull` with no name). */
export { GEMMA_3_270M as DEFAULT_LOCAL_MODEL } from './catalog';
