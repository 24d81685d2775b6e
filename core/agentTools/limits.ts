// What a caller of the agent tools may spend (docs/security.md, "What an MCP caller may spend"): the caps on the run
// options a caller gives (a local model's context and how long it stays loaded, the Python sandbox's memory, every
// time limit), on the examples an evaluation runs at once, and on the calls that run programs at once. Declared once:
// `art mcp` takes each as a flag (`--max-context-size N`, ...), the editor's language model tools use the defaults.
// A value a caller gives above its cap is lowered to it, and the answer's notes say so; a value the user set (art
// mcp's own flags, the editor's settings) is the user's and is not capped.
import type { RunOptionName } from '../launch/options';
import { DEFAULT_IDLE_RELEASE_MS, DEFAULT_LOCAL_CONTEXT } from '../model/defaultModel';
import { DEFAULT_LIMITS } from '../tools/sandbox';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../model/bounds';

export interface AgentLimitSpec {
  /** `art mcp --FLAG VALUE`. */
  flag: string;
  /** What the help shows after the flag. */
  arg: string;
  /** The cap when the user sets none: one that fits a laptop. */
  default: number;
  /** The smallest value the flag takes. */
  min: number;
  /** One sentence for `art mcp --help` and docs/mcp.md. */
  description: string;
  /** The inputs it caps, each with the factor from the flag's unit to the input's (seconds to milliseconds: 1000). */
  caps: Partial<Record<RunOptionName | ToolCountInput, number>>;
  /**
   * Any value a caller gives becomes the cap, below it too: a local model is loaded once per context size, so callers
   * that each asked for another size would each hold a copy of the model; given the cap, they share one.
   */
  pin?: boolean;
}

/** Inputs of the tools that are not run options but are capped: the examples an evaluation runs at once. */
export type ToolCountInput = 'concurrency';

export const AGENT_LIMITS = {
  contextSize: {
    flag: 'max-context-size',
    arg: 'N',
    default: DEFAULT_LOCAL_CONTEXT,
    min: 16,
    description: 'the context (tokens) a local model gets when a tool sets contextSize, at any size',
    caps: { contextSize: 1 },
    pin: true,
  },
  idleRelease: {
    flag: 'max-idle-release-s',
    arg: 'S',
    default: DEFAULT_IDLE_RELEASE_MS / 1000,
    min: 0,
    description: "the longest a tool's idleReleaseMs keeps a local model loaded unused",
    caps: { idleReleaseMs: 1000 },
  },
  pythonMemory: {
    flag: 'max-python-memory-mb',
    arg: 'MB',
    default: DEFAULT_LIMITS.memoryBytes / 2 ** 20,
    min: 16,
    description: "the most memory (MiB) a tool's pythonMemoryMb gives the Python sandbox",
    caps: { pythonMemoryMb: 1 },
  },
  timeout: {
    flag: 'max-timeout-s',
    arg: 'S',
    default: DEFAULT_REQUEST_TIMEOUT_MS / 1000,
    min: 1,
    description: 'the longest limit or wait a tool gives: Python, tools, requests, replay delay',
    caps: { pythonTimeoutMs: 1000, pythonCpuSeconds: 1, toolTimeoutMs: 1000, requestTimeoutMs: 1000, replayDelayMs: 1000 },
  },
  concurrency: {
    flag: 'max-concurrency',
    arg: 'N',
    default: 4,
    min: 1,
    description: 'the most programs one call runs at once (concurrency, samples)',
    caps: { concurrency: 1, samples: 1 },
  },
  runs: {
    flag: 'max-runs',
    arg: 'N',
    default: 2,
    min: 1,
    description: 'calls that run programs at once, server-wide; more wait their turn',
    caps: {},
  },
} satisfies Record<string, AgentLimitSpec>;

export type AgentLimitName = keyof typeof AGENT_LIMITS;

/** The caps in force, in each flag's unit. */
export type AgentLimits = Record<AgentLimitName, number>;

const limitEntries = () => Object.entries(AGENT_LIMITS) as [AgentLimitName, AgentLimitSpec][];

/** The caps when the user sets none (the editor's language model tools, `art mcp` without the flags). */
export function defaultLimits(): AgentLimits {
  return Object.fromEntries(limitEntries().map(([name, spec]) => [name, spec.default])) as AgentLimits;
}

/** The inputs some cap bounds (their input schema takes any number at least their least: the cap lowers it). */
export function cappedInputs(): Set<string> {
  return new Set(limitEntries().flatMap(([, spec]) => Object.keys(spec.caps)));
}

/** The cap of one input, in the input's unit, with the flag that sets it; undefined when nothing caps it. */
function capOf(input: string, limits: AgentLimits): { max: number; flag: string; pin: boolean } | undefined {
  for (const [name, spec] of limitEntries()) {
    const factor = spec.caps[input as keyof typeof spec.caps];
    if (factor !== undefined) return { max: limits[name] * factor, flag: spec.flag, pin: spec.pin === true };
  }
  return undefined;
}

/**
 * The caller's values of `given` lowered to their caps (a new object), and a note for each one lowered, naming the
 * input, what it asked, what it got and the flag that sets the cap.
 */
export function capInputs(
  given: Record<string, unknown>,
  limits: AgentLimits,
  /** Where the cap comes from, for the note: `art mcp --max-timeout-s`. */
  setBy: (flag: string) => string,
): { values: Record<string, unknown>; notes: string[] } {
  const values = { ...given };
  const notes: string[] = [];
  for (const [input, v] of Object.entries(given)) {
    if (typeof v !== 'number') continue;
    const cap = capOf(input, limits);
    if (!cap || v === cap.max || (v < cap.max && !cap.pin)) continue;
    values[input] = cap.max;
    notes.push(
      v > cap.max
        ? `"${input}" ${v} is over what a caller may ask for: ${cap.max} is used (${setBy(cap.flag)})`
        : `"${input}" ${v}: every caller that sets it gets ${cap.max}, so that they share one loaded model (${setBy(cap.flag)})`,
    );
  }
  return { values, notes };
}

/** The help lines of the flags: `--max-context-size N` and what it caps, with its default. */
export function limitHelpLines(): [string, string][] {
  return limitEntries().map(([, spec]) => [`--${spec.flag} ${spec.arg}`, `${spec.description} (default ${spec.default})`]);
}

/** The caps from `art mcp`'s flags (their text, as parseArgs gives it), or the one line saying which flag is wrong. */
export function limitsFromFlags(values: Record<string, unknown>): AgentLimits | string {
  const limits = defaultLimits();
  for (const [name, spec] of limitEntries()) {
    const text = values[spec.flag];
    if (text === undefined) continue;
    const n = Number(text);
    if (typeof text !== 'string' || text.trim() === '' || !Number.isSafeInteger(n) || n < spec.min)
      return `--${spec.flag}: expected a whole number of at least ${spec.min}, not "${String(text)}"`;
    limits[name] = n;
  }
  return limits;
}

/**
 * The server-wide cap on calls that run programs: `acquire` resolves with the function that frees the place, at once
 * when one is free, else when one is handed on to it (in the order the calls came); a cancelled `signal` leaves the
 * queue at once.
 */
export class RunSlots {
  private running = 0;
  private readonly queue: (() => void)[] = [];

  constructor(readonly max: number) {}

  /** Calls that run now. */
  get inFlight(): number {
    return this.running;
  }

  /** Calls waiting for a place. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Waits for a place; `onWait` is told once when the call has to wait. */
  async acquire(signal?: AbortSignal, onWait?: () => void): Promise<() => void> {
    if (signal?.aborted) throw abortReason(signal);
    if (this.running < this.max) this.running++;
    else {
      onWait?.();
      // A place freed is handed on to the first waiter: `running` stays as it is, so no new call takes it first.
      await new Promise<void>((resolve, reject) => {
        const abort = () => {
          const i = this.queue.indexOf(go);
          if (i >= 0) this.queue.splice(i, 1);
          reject(abortReason(signal!));
        };
        const go = () => {
          signal?.removeEventListener('abort', abort);
          resolve();
        };
        signal?.addEventListener('abort', abort, { once: true });
        this.queue.push(go);
      });
    }
    let freed = false;
    return () => {
      if (freed) return;
      freed = true;
      const next = this.queue.shift();
      if (next) next();
      else this.running--;
    };
  }
}

const abortReason = (signal: AbortSignal): Error =>
  signal.reason instanceof Error ? signal.reason : new Error('The request was cancelled while it waited for a place to run.');
