// A model that answers from a recorded run first: a request identical to one recorded (same prompt, stop
// sequences, max tokens and temperature) gets the recorded completion, chunk by chunk, at no cost (`cached` on its
// chunks and result); any other request goes to the model behind it. Re-running a program after an edit thus pays
// only from the first request the edit changed. The recorded completions come from a trace
// (cacheEntries, below).
import { abortError } from '../model/retry';
import type { CompletionChunk, CompletionRequest, CompletionResult, ModelClient, RetryInfo } from '../model/types';
import type { RunProtocol } from '../protocols/runProtocol';
import type { TraceRecord } from '../trace/schema';
import { mainLine } from '../trace/trace';
import { protocolFromTrace } from './traceReplay';

/** One recorded request and what the model answered. */
export interface CachedCompletion {
  prompt: string;
  stop: string[];
  maxTokens?: number;
  temperature?: number;
  /** The completion as it streamed. */
  chunks: string[];
  finishReason?: string;
  tokenLogprobs?: number[];
}

/** What makes two requests the same request. */
function keyOf(r: { prompt: string; stop?: string[]; maxTokens?: number; temperature?: number }): string {
  return JSON.stringify([r.prompt, r.stop ?? [], r.maxTokens ?? null, r.temperature ?? null]);
}

export class CachedModel implements ModelClient {
  readonly id: string;
  readonly honoursStop: boolean;
  /** Requests answered from the recording, and sent to the model. */
  hits = 0;
  misses = 0;
  /** Recorded completions by request; identical requests recorded twice are served in their order. */
  private readonly entries = new Map<string, CachedCompletion[]>();

  constructor(
    /** The model for requests the recording does not have; none: such a request fails and says why. */
    readonly inner: ModelClient | undefined,
    entries: CachedCompletion[],
    opts: { honoursStop?: boolean } = {},
  ) {
    for (const e of entries) {
      const k = keyOf(e);
      const list = this.entries.get(k);
      if (list) list.push(e);
      else this.entries.set(k, [e]);
    }
    this.id = inner ? `${inner.id} (cached)` : 'cache';
    this.honoursStop = inner?.honoursStop ?? opts.honoursStop ?? true;
  }

  /** The retries of the requests it sends to the model (the runner reports them); none for what the recording serves. */
  addRetryListener(fn: (info: RetryInfo) => void): () => void {
    return this.inner?.addRetryListener?.(fn) ?? (() => {});
  }

  /** The recorded completion for `req`, taken from the cache (each recorded completion serves one request). */
  private take(req: CompletionRequest): CachedCompletion | undefined {
    const list = this.entries.get(keyOf(req));
    return list?.shift();
  }

  async *stream(req: CompletionRequest): AsyncGenerator<CompletionChunk, CompletionResult, void> {
    const hit = this.take(req);
    if (!hit) return yield* this.miss(req).stream(req);
    this.hits++;
    let text = '';
    for (const c of hit.chunks) {
      if (req.signal?.aborted) throw abortError(req.signal);
      text += c;
      yield { text: c, cached: true };
    }
    return this.result(hit, text, req);
  }

  async complete(req: CompletionRequest): Promise<CompletionResult> {
    const hit = this.take(req);
    if (!hit) return this.miss(req).complete(req);
    this.hits++;
    return this.result(hit, hit.chunks.join(''), req);
  }

  /** `n` samples (alternatives at a step): never from the recording, which holds one answer per request. */
  async completeMany(req: CompletionRequest, n: number): Promise<CompletionResult[]> {
    const inner = this.miss(req);
    if (inner.completeMany) return inner.completeMany(req, n);
    const out: CompletionResult[] = [];
    for (let i = 0; i < n; i++) out.push(await inner.complete(req));
    return out;
  }

  private miss(req: CompletionRequest): ModelClient {
    this.misses++;
    if (this.inner) return this.inner;
    throw new Error(
      `the recorded run has no completion for this request (${req.prompt.length} characters of prompt) and there is no model to ask: set a model endpoint (baseURL and model) to go on live`,
    );
  }

  private result(hit: CachedCompletion, text: string, req: CompletionRequest): CompletionResult {
    return {
      text,
      finishReason: hit.finishReason ?? 'stop',
      usage: { promptTokens: 0, completionTokens: 0 },
      tokenLogprobs: req.logprobs ? hit.tokenLogprobs : undefined,
      cached: true,
    };
  }
}

/**
 * The completions a re-run can take from a trace (for CachedModel): every request of the run and of its LLM-backed
 * tools, in every branch, but a completion the user paused in the middle of. With `until` (a step number), only the
 * main line's requests made before step `until` was complete (ART: requests whose program so far ends at an
 * earlier step; agents: at an earlier state), and the tools' requests among them.
 */
export function cacheEntries(records: TraceRecord[], until?: number): CachedCompletion[] {
  const out: CachedCompletion[] = [];
  const open = new Map<number, CachedCompletion>();
  const whole = new Set<CachedCompletion>();
  let protocol: RunProtocol | undefined;
  let source = records;
  if (until !== undefined) {
    source = mainLine(records);
    protocol = protocolFromTrace(source, { get: () => undefined });
  }
  for (const r of source) {
    if (r.t === 'request') {
      if (protocol) {
        const steps = protocol.steps(r.prompt.slice(protocol.prompt.length));
        if ((steps[steps.length - 1]?.number ?? 0) >= until!) break;
      }
      const e: CachedCompletion = { prompt: r.prompt, stop: r.stop, maxTokens: r.maxTokens, temperature: r.temperature, chunks: [] };
      open.set(r.n, e);
      out.push(e);
    } else if (r.t === 'chunk') open.get(r.n)?.chunks.push(r.text);
    else if (r.t === 'completion') {
      const e = open.get(r.n);
      if (e && !r.paused) {
        e.finishReason = r.finishReason;
        whole.add(e);
      }
      open.delete(r.n);
    } else if (r.t === 'toolRequest') {
      const e: CachedCompletion = {
        prompt: r.prompt,
        stop: r.stop,
        maxTokens: r.maxTokens,
        temperature: r.temperature,
        chunks: [r.text],
        finishReason: r.finishReason,
      };
      out.push(e);
      whole.add(e);
    }
  }
  // A request with no completion (the run stopped in it) or cut by a pause is not a whole answer.
  return out.filter(e => whole.has(e));
}
