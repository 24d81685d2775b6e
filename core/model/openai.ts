// A ModelClient over the `openai` package for any OpenAI-compatible endpoint (OpenAI, Azure's v1 API, vLLM,
// llama.cpp server, Ollama, LM Studio, ...).
//
// Two APIs:
// - `completions` (default): the prompt is the program so far and the model continues it exactly; stop sequences
//   are sent and honoured by the endpoint.
// - `chat`, for endpoints or models without the completions API. A partial program is continued like this: a
//   system message tells the model to reply with nothing but the exact continuation of the text; the text so far
//   goes either in the user message (default) or, with `chatPrefill`, in a final assistant message that the
//   server continues in place (llama.cpp server and Ollama do so by themselves; vLLM needs
//   `extraBody: { continue_final_message: true, add_generation_prompt: false }`). The reply is made a bare
//   continuation before it is given (chatReply.ts): a restatement of the text so far, a chat wrapper (a preamble
//   and a fenced block) and `<think>` blocks are taken out, each change reported once as a chunk's `repairs`.
//   Reasoning (`<think>` blocks, `reasoning_content`/`reasoning` fields) is given as chunks' `reasoning`, never as
//   text; the reasoning tokens of the usage are counted where the endpoint reports them.
//
// - `tools`: the chat API with the tool library offered as functions (toolsApi.ts): the model's part of the text so
//   far becomes assistant turns and `tool` messages, and a function call the model streams is given as the text
//   of a tool step (the program language writes it: ToolProgram.callText), so the caller sees text only.
//
// Whatever the API, stop sequences are also applied here (text is released only when no stop can start in it,
// and the request is aborted at the first stop), so an endpoint that ignores `stop` (set `honoursStop: false`)
// still never hands text past a stop to the caller.
//
// A stream that breaks off mid-way (dropped connection, stall longer than `idleTimeoutMs`) is resumed: the text
// received so far is appended to the prompt and the request is sent again, so nothing is lost or duplicated.
// Requests that fail before streaming (429, 5xx, timeouts) are retried with exponential backoff, honouring
// Retry-After. The API key is given by the caller; it is never logged, never part of `id`, and scrubbed from
// every message that leaves this client: retry reasons, errors inside the stream, final errors.
//
// Bounds, whatever the endpoint does: a completion stops at a local budget of LOCAL_CHARS_PER_TOKEN characters per
// requested token (max tokens × 4 characters a token × 2 for margin, plus 1,000; 4,096 tokens when none is
// requested) and ends with finish reason `length`, so a server that streams forever is cut off; so do more events
// than that number of characters (whatever they carry: empty deltas, logprobs alone) and more reasoning; logprobs
// are kept only when asked for. Only progress resets the idle timer, and a request (retries included) ends at
// `requestTimeoutMs` with one line saying so. Bodies are bounded while they are read (bounds.ts): an error body kept
// in a message is cut at MAX_ERROR_BODY_CHARS (the rest counted, never stored); a single SSE line over
// MAX_EVENT_BYTES and a response over MAX_BODY_BYTES (a stream in all, or a whole non-streamed reply) fail the
// request with one line saying so.
import OpenAI, { APIError } from 'openai';
import type { CompletionChunk, CompletionRequest, CompletionResult, ModelClient, RetryInfo, Usage } from './types';
import { streamResult } from './types';
import { DEFAULT_RETRY, StreamInterruptedError, abortError, backoffDelay, isAbortError, retryReason, sleep, type RetryPolicy } from './retry';
import { StopScanner } from './stops';
import { Assembly, DEFAULT_BUDGET_TOKENS } from './assembly';
import { ChatReplyNormalizer } from './chatReply';
import { DEFAULT_REQUEST_TIMEOUT_MS, MAX_ERROR_BODY_CHARS, RequestTimeoutError, ResponseTooLargeError, boundedFetch, idle } from './bounds';
import {
  FunctionNames,
  TOOLS_SYSTEM_PROMPT,
  ToolCallAccumulator,
  instructionOf,
  toolDefinitions,
  toolMessages,
  type StreamedCall,
  type ToolProgram,
} from './toolsApi';
import { publicURL } from './url';

export { publicURL };

export interface OpenAIModelOptions {
  /** Base URL of the OpenAI-compatible API, e.g. `http://127.0.0.1:8000/v1`. */
  baseURL: string;
  model: string;
  /** The caller reads it from SecretStorage or an environment variable; absent for local servers. */
  apiKey?: string;
  api?: 'completions' | 'chat' | 'tools';
  /** Tools API: the tools offered and how the program language reads and writes calls (toolsApi.ts). */
  toolProgram?: ToolProgram;
  /** Whether the endpoint honours `stop`; when false, stops are not sent and are applied by aborting. Default true. */
  honoursStop?: boolean;
  /** Chat API: put the text so far in a final assistant message for the server to continue (see above). */
  chatPrefill?: boolean;
  /** Chat API: the instruction that asks for an exact continuation. */
  chatSystemPrompt?: string;
  /** Extra JSON fields for every request body (server-specific switches). */
  extraBody?: Record<string, unknown>;
  /** Extra HTTP headers (e.g. an Azure `api-key` header), never shown anywhere. */
  headers?: Record<string, string>;
  /** Query parameters for every request (e.g. Azure's `api-version`), never shown anywhere. */
  query?: Record<string, string>;
  /** Ask for `stream_options: {include_usage: true}` (some old servers reject it). Default true. */
  streamUsage?: boolean;
  /** Default max tokens per request when the request gives none. */
  maxTokens?: number;
  /** Time to wait for the response to start, per attempt. Default 60 s. */
  timeoutMs?: number;
  /** Longest time without progress (text, reasoning, a call, the finish) before a stream is treated as dropped. Default 60 s. */
  idleTimeoutMs?: number;
  /** The longest one request may take, from its start to its last byte, retries included. Default 5 minutes. */
  requestTimeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Called before each retry (the runner shows it and writes it to the trace). */
  onRetry?: (info: RetryInfo) => void;
  /** Called when a local bound cut a completion. */
  onLimit?: (message: string) => void;
}

export type { RetryInfo };

export { LOCAL_CHARS_PER_TOKEN, localBudgetChars } from './assembly';
export { MAX_BODY_BYTES, MAX_ERROR_BODY_CHARS, MAX_EVENT_BYTES, DEFAULT_REQUEST_TIMEOUT_MS } from './bounds';

export const CHAT_CONTINUE_SYSTEM_PROMPT =
  'You continue documents. Reply with only the exact continuation of the given text, starting precisely where it ' +
  'ends: no preamble, no repetition of the text, no commentary, no code fences of your own.';
const CHAT_PREFILL_USER_PROMPT = 'Continue the document.';

/** An error from the model endpoint, with a message safe to show (no key) and whether a retry could help. */
export class ModelError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    readonly retryable = false,
  ) {
    super(message);
    this.name = 'ModelError';
  }
}

export class OpenAIModel implements ModelClient {
  readonly id: string;
  readonly honoursStop: boolean;
  private readonly client: OpenAI;
  private readonly retry: RetryPolicy;
  private readonly secrets: string[];
  private readonly retryListeners = new Set<(info: RetryInfo) => void>();
  private readonly names: FunctionNames | undefined;

  /** `client`: the SDK client of a sibling (see `sibling`); a new one otherwise. */
  constructor(
    private readonly opts: OpenAIModelOptions,
    client?: OpenAI,
  ) {
    this.honoursStop = opts.honoursStop ?? true;
    this.retry = { ...DEFAULT_RETRY, ...opts.retry };
    if (opts.api === 'tools' && !opts.toolProgram) throw new ModelError('the tools API needs the tools to offer (toolProgram)');
    this.names = opts.toolProgram ? new FunctionNames(opts.toolProgram.tools) : undefined;
    this.secrets = [opts.apiKey, ...Object.values(opts.headers ?? {}), ...Object.values(opts.query ?? {})].filter(
      (s): s is string => !!s && s.length >= 4,
    );
    this.id = `openai-${opts.api ?? 'completions'}:${opts.model}@${publicURL(opts.baseURL)}`;
    this.client =
      client ??
      new OpenAI({
        baseURL: opts.baseURL,
        // Never fall back to OPENAI_API_KEY implicitly: the caller decides where the key comes from.
        apiKey: opts.apiKey || 'no-key',
        organization: null,
        project: null,
        defaultHeaders: opts.headers,
        defaultQuery: opts.query,
        maxRetries: 0, // retries are ours: they resume streams and are reported to the runner
        timeout: opts.timeoutMs ?? 60_000,
        fetch: boundedFetch,
        logLevel: 'off',
      });
  }

  /**
   * A model for the same endpoint with retry listeners of its own (one per run, so each run reports only its own
   * retries), sharing this one's SDK client: making a client costs more than the request of a short step.
   */
  sibling(): OpenAIModel {
    return new OpenAIModel(this.opts, this.client);
  }

  /** A local bound cut the completion: said (redacted) through onLimit. */
  private reportLimit(message: string): void {
    this.opts.onLimit?.(this.redact(message));
  }

  /** Subscribes to retries (the runner reports them as events); returns the unsubscribe function. */
  addRetryListener(fn: (info: RetryInfo) => void): () => void {
    this.retryListeners.add(fn);
    return () => this.retryListeners.delete(fn);
  }

  private reportRetry(raw: RetryInfo): void {
    const info = { ...raw, reason: this.redact(capText(raw.reason)) };
    this.opts.onRetry?.(info);
    for (const fn of this.retryListeners) fn(info);
  }

  async *stream(req: CompletionRequest): AsyncGenerator<CompletionChunk, CompletionResult, void> {
    const t = this.deadline(req);
    try {
      return yield* this.streamAttempts({ ...req, signal: t.signal });
    } catch (err) {
      throw t.timedOut() ? this.toModelError(new RequestTimeoutError(t.ms), 0) : err;
    } finally {
      t.dispose();
    }
  }

  /** The request's deadline (requestTimeoutMs): a signal that aborts at it or with the caller's. */
  private deadline(req: CompletionRequest): { signal: AbortSignal; ms: number; timedOut(): boolean; dispose(): void } {
    const ms = this.opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const ctrl = new AbortController();
    const timer = setTimeout(() => ctrl.abort(), ms);
    return {
      signal: req.signal ? AbortSignal.any([req.signal, ctrl.signal]) : ctrl.signal,
      ms,
      timedOut: () => ctrl.signal.aborted && !req.signal?.aborted,
      dispose: () => clearTimeout(timer),
    };
  }

  private async *streamAttempts(req: CompletionRequest): AsyncGenerator<CompletionChunk, CompletionResult, void> {
    const maxTokens = req.maxTokens ?? this.opts.maxTokens;
    const whole = new Assembly(maxTokens, message => this.reportLimit(message));
    const budget = whole.budget;
    let chunks = 0;
    let attempt = 0;
    const usage: Usage = { promptTokens: 0, completionTokens: 0 };
    let sawUsage = false;
    const logprobs: number[] = [];
    // Every event counts, whatever it carries (empty deltas, logprobs alone): at most one per budgeted character.
    let events = 0;
    for (;;) {
      if (req.signal?.aborted) throw abortError(req.signal);
      const ctrl = new AbortController();
      const onAbort = () => ctrl.abort(req.signal?.reason);
      req.signal?.addEventListener('abort', onAbort, { once: true });
      // Stop sequences and the local budget; a chat reply is made a bare continuation of the text it continues (chatReply.ts).
      const at = whole.attempt(req.stop, this.isChat ? req.prompt : undefined);
      try {
        const remaining = maxTokens === undefined ? undefined : Math.max(1, maxTokens - chunks);
        const stream = await this.openStream(req, req.prompt + whole.received, remaining, ctrl.signal);
        for await (const ev of idle(stream, this.opts.idleTimeoutMs ?? 60_000, ctrl, isProgress)) {
          // Events already received when the caller aborted are not handed on: the abort ends the stream at once.
          if (req.signal?.aborted) throw abortError(req.signal);
          if (++events > budget || whole.reasoning.length > budget) {
            at.cut(
              events > budget
                ? `the endpoint sent more than ${budget} events (the local budget for ${maxTokens ?? DEFAULT_BUDGET_TOKENS} tokens)`
                : `the endpoint sent more than the local budget of ${budget} characters of reasoning`,
            );
            break;
          }
          if (ev.usage) {
            usage.promptTokens += ev.usage.promptTokens;
            usage.completionTokens += ev.usage.completionTokens;
            if (ev.usage.reasoningTokens !== undefined) usage.reasoningTokens = (usage.reasoningTokens ?? 0) + ev.usage.reasoningTokens;
            sawUsage = true;
          }
          // Kept only when asked for, and no more than the budget.
          if (req.logprobs && ev.logprobs && logprobs.length < budget) logprobs.push(...ev.logprobs.slice(0, budget - logprobs.length));
          if (ev.reasoning) yield at.reasoningChunk(ev.reasoning);
          if (ev.text) {
            chunks++;
            yield* at.text(ev.text);
            if (at.done) break;
          }
          if (ev.call) {
            // A function call: what the reply held back, then the call written as program text; the request ends.
            const call = ev.call;
            yield* at.call(received => this.callText(req.prompt + received, call));
            break;
          }
          if (ev.finishReason) at.finishReason = ev.finishReason;
        }
        if (!at.finishReason) throw new StreamInterruptedError('the stream ended before the model finished');
        yield* at.end();
        return {
          ...whole.result(),
          usage: sawUsage ? usage : undefined,
          tokenLogprobs: req.logprobs && logprobs.length ? logprobs : undefined,
          finishReason: at.finishReason,
        };
      } catch (err) {
        if (req.signal?.aborted) throw abortError(req.signal);
        const reason = retryReason(err);
        if (reason === null || attempt >= this.retry.maxRetries) throw this.toModelError(err, attempt);
        attempt++;
        const delayMs = backoffDelay(attempt, this.retry, err);
        this.reportRetry({ attempt, delayMs, reason, resumedAfter: whole.received.length || undefined });
        await sleep(delayMs, req.signal);
      } finally {
        // Runs on success, error, and when the consumer stops iterating: the HTTP request never outlives us.
        req.signal?.removeEventListener('abort', onAbort);
        ctrl.abort();
      }
    }
  }

  private get isChat(): boolean {
    return this.opts.api === 'chat' || this.opts.api === 'tools';
  }

  /** A function call as program text continuing `text` (tools API). */
  private callText(text: string, call: StreamedCall): string {
    const program = this.opts.toolProgram!;
    return program.callText(text, this.names!.toolOf(call.name), instructionOf(call.arguments));
  }

  /** The messages of a chat request for `text`, and with the tools API the tools offered. */
  private chatRequest(text: string): Pick<OpenAI.Chat.ChatCompletionCreateParams, 'messages' | 'tools' | 'tool_choice'> & { tooled: boolean } {
    const program = this.opts.api === 'tools' ? this.opts.toolProgram : undefined;
    const dialogue = program?.dialogue(text);
    if (!program || !dialogue) return { messages: this.chatMessages(text), tooled: false };
    return {
      messages: toolMessages(this.opts.chatSystemPrompt ?? TOOLS_SYSTEM_PROMPT, dialogue, this.names!),
      tools: toolDefinitions(program.tools, this.names!),
      tool_choice: 'auto',
      tooled: true,
    };
  }

  async complete(req: CompletionRequest): Promise<CompletionResult> {
    return streamResult(this.stream(req));
  }

  /**
   * `n` samples of one prompt in one request (self-consistency); stop sequences applied to each. An endpoint that
   * refuses that many in one request (a 400: llama-server bounds `n` by its slots) is asked for them one at a time,
   * said once as a retry.
   */
  async completeMany(req: CompletionRequest, n: number): Promise<CompletionResult[]> {
    const t = this.deadline(req);
    try {
      const r = { ...req, signal: t.signal };
      try {
        return await this.completeManyAttempts(r, n);
      } catch (err) {
        if (n <= 1 || !(err instanceof ModelError) || err.status !== 400 || req.signal?.aborted) throw err;
        this.reportRetry({ attempt: 1, delayMs: 0, reason: `${err.message}; asking for the ${n} samples one at a time` });
        const out: CompletionResult[] = [];
        for (let i = 0; i < n; i++) out.push(...(await this.completeManyAttempts(r, 1)));
        const usage = out.reduce<Usage | undefined>(
          (u, x) =>
            x.usage
              ? {
                  promptTokens: (u?.promptTokens ?? 0) + x.usage.promptTokens,
                  completionTokens: (u?.completionTokens ?? 0) + x.usage.completionTokens,
                }
              : u,
          undefined,
        );
        return out.map((x, i) => ({ ...x, usage: i === 0 ? usage : undefined }));
      }
    } catch (err) {
      throw t.timedOut() ? this.toModelError(new RequestTimeoutError(t.ms), 0) : err;
    } finally {
      t.dispose();
    }
  }

  private async completeManyAttempts(req: CompletionRequest, n: number): Promise<CompletionResult[]> {
    const maxTokens = req.maxTokens ?? this.opts.maxTokens;
    for (let attempt = 0; ; attempt++) {
      try {
        const options = { signal: req.signal };
        const out: CompletionResult[] = [];
        if ((this.opts.api ?? 'completions') === 'completions') {
          const r = await this.client.completions.create(
            {
              ...this.opts.extraBody,
              ...req.extraBody,
              model: this.opts.model,
              prompt: req.prompt,
              n,
              stop: this.stopParam(req.stop),
              max_tokens: maxTokens,
              temperature: req.temperature,
              logprobs: req.logprobs ? 1 : undefined,
              stream: false,
            },
            options,
          );
          for (const c of [...r.choices].sort((a, b) => a.index - b.index))
            out.push(applyStops({ text: c.text, finishReason: c.finish_reason, tokenLogprobs: completionLogprobs(c.logprobs) }, req.stop));
          if (r.usage && out[0]) out[0].usage = usageOf(r.usage);
        } else {
          const { tooled: _tooled, ...chat } = this.chatRequest(req.prompt);
          const r = await this.client.chat.completions.create(
            {
              ...this.opts.extraBody,
              ...req.extraBody,
              model: this.opts.model,
              ...chat,
              n,
              stop: this.stopParam(req.stop),
              max_tokens: maxTokens,
              temperature: req.temperature,
              logprobs: req.logprobs || undefined,
              stream: false,
            },
            options,
          );
          for (const c of [...r.choices].sort((a, b) => a.index - b.index)) {
            const reply = normaliseReply(req.prompt, c.message.content ?? '', reasoningOf(c.message));
            const call = c.message.tool_calls?.find(t => t.type === 'function');
            if (call?.type === 'function' && this.names)
              reply.text += this.callText(req.prompt + reply.text, { name: call.function.name, arguments: call.function.arguments });
            out.push(applyStops({ ...reply, finishReason: c.finish_reason, tokenLogprobs: c.logprobs?.content?.map(t => t.logprob) }, req.stop));
          }
          if (r.usage && out[0]) out[0].usage = usageOf(r.usage);
        }
        return out;
      } catch (err) {
        if (req.signal?.aborted) throw abortError(req.signal);
        const reason = retryReason(err);
        if (reason === null || attempt >= this.retry.maxRetries) throw this.toModelError(err, attempt);
        const delayMs = backoffDelay(attempt + 1, this.retry, err);
        this.reportRetry({ attempt: attempt + 1, delayMs, reason });
        await sleep(delayMs, req.signal);
      }
    }
  }

  private stopParam(stop: string[] | undefined): string[] | undefined {
    // The OpenAI API takes at most 4 stop sequences; the rest are still applied on our side.
    return this.honoursStop && stop?.length ? stop.slice(0, 4) : undefined;
  }

  private chatMessages(text: string): OpenAI.Chat.ChatCompletionMessageParam[] {
    const system = { role: 'system' as const, content: this.opts.chatSystemPrompt ?? CHAT_CONTINUE_SYSTEM_PROMPT };
    return this.opts.chatPrefill
      ? [system, { role: 'user', content: CHAT_PREFILL_USER_PROMPT }, { role: 'assistant', content: text }]
      : [system, { role: 'user', content: text }];
  }

  /** Opens one streaming request and normalises its events across both APIs. */
  private async openStream(
    req: CompletionRequest,
    prompt: string,
    maxTokens: number | undefined,
    signal: AbortSignal,
  ): Promise<AsyncIterable<StreamEvent>> {
    const streamOptions = this.opts.streamUsage === false ? undefined : { include_usage: true };
    if ((this.opts.api ?? 'completions') === 'completions') {
      const s = await this.client.completions.create(
        {
          ...this.opts.extraBody,
          ...req.extraBody,
          model: this.opts.model,
          prompt,
          stop: this.stopParam(req.stop),
          max_tokens: maxTokens,
          temperature: req.temperature,
          logprobs: req.logprobs ? 1 : undefined,
          stream: true,
          stream_options: streamOptions,
        },
        { signal },
      );
      return (async function* () {
        for await (const c of s) {
          const choice = c.choices?.[0];
          yield {
            text: choice?.text ?? '',
            finishReason: choice?.finish_reason ?? undefined,
            logprobs: completionLogprobs(choice?.logprobs),
            usage: c.usage ? usageOf(c.usage) : undefined,
          };
        }
      })();
    }
    const { tooled, ...chat } = this.chatRequest(prompt);
    const s = await this.client.chat.completions.create(
      {
        ...this.opts.extraBody,
        ...req.extraBody,
        model: this.opts.model,
        ...chat,
        stop: this.stopParam(req.stop),
        max_tokens: maxTokens,
        temperature: req.temperature,
        logprobs: req.logprobs || undefined,
        stream: true,
        stream_options: streamOptions,
      },
      { signal },
    );
    return (async function* () {
      const calls = tooled ? new ToolCallAccumulator() : null;
      for await (const c of s) {
        const choice = c.choices?.[0];
        const deltas = choice?.delta?.tool_calls;
        const call = (calls && deltas?.length ? calls.push(deltas) : null) ?? (calls && choice?.finish_reason ? calls.finish() : null);
        yield {
          text: choice?.delta?.content ?? '',
          reasoning: choice?.delta ? reasoningOf(choice.delta) : undefined,
          finishReason: choice?.finish_reason ?? undefined,
          logprobs: choice?.logprobs?.content?.map(t => t.logprob) ?? undefined,
          usage: c.usage ? usageOf(c.usage) : undefined,
          call: call ?? undefined,
          callPiece: !!deltas?.length,
        };
      }
      const last = calls?.finish();
      if (last) yield { text: '', call: last };
    })();
  }

  /** A precise message without the key: which endpoint, what status, what it said. */
  private toModelError(err: unknown, retries: number): Error {
    if (isAbortError(err)) return err as Error;
    const where = `model endpoint ${publicURL(this.opts.baseURL)}`;
    const after = retries ? ` (after ${retries} ${retries === 1 ? 'retry' : 'retries'})` : '';
    let message: string;
    let status: number | undefined;
    if (err instanceof APIError && err.status !== undefined) {
      status = err.status;
      const said = capText((err.error as { message?: string } | undefined)?.message ?? err.message);
      const hint = status === 401 ? ' (check the API key)' : status === 404 ? ` ${this.notFoundHint()}` : '';
      message = `The ${where} answered ${status}${hint}${after}: ${said}`;
    } else if (err instanceof RequestTimeoutError) {
      message = `The ${where}: ${err.message}`;
    } else if (err instanceof ResponseTooLargeError || (err as Error)?.cause instanceof ResponseTooLargeError) {
      const e = err instanceof ResponseTooLargeError ? err : ((err as Error).cause as Error);
      message = `The ${where} sent ${e.message}`;
    } else if (err instanceof StreamInterruptedError) {
      message = `The ${where} stream broke off${after}: ${capText(err.message)}`;
    } else {
      const said = capText(err instanceof Error ? err.message : String(err));
      message = `Could not reach the ${where}${after}: ${said}`;
    }
    return new ModelError(this.redact(message), status, retryReason(err) !== null);
  }

  /**
   * What a 404 says: the path called, and the three things that pick it (the base URL, the model, the API), with the
   * other API to try: a chat-only endpoint has no `/completions`, a completions-only one no `/chat/completions`.
   */
  private notFoundHint(): string {
    const chat = (this.opts.api ?? 'completions') !== 'completions';
    const path = `${publicURL(this.opts.baseURL)}/${chat ? 'chat/completions' : 'completions'}`;
    const other = chat ? 'completions' : 'chat';
    return `to POST ${path} (check the base URL, the model name "${this.opts.model}" and the API: the ${chat ? 'chat' : 'completions'} API was called; an endpoint without it needs "${other}": the setting art.model.api, or --api ${other})`;
  }

  private redact(text: string): string {
    let out = text;
    for (const s of this.secrets) out = out.split(s).join('***');
    // Some servers echo a masked key (`sk-abc***xyz`); drop what is left of it too.
    return out.replace(/\b(sk|key)-[A-Za-z0-9_*-]{6,}/g, '$1-***');
  }
}

/** `text` cut a little past MAX_ERROR_BODY_CHARS (room for what wraps a body already cut), saying how much was cut. */
export function capText(text: string, max = MAX_ERROR_BODY_CHARS + 200): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} characters cut)`;
}

/** Whether an event moves the stream on (resets the idle timer): text, reasoning, a call's pieces, the finish. */
const isProgress = (ev: StreamEvent) => !!(ev.text || ev.reasoning || ev.call || ev.callPiece || ev.finishReason);

interface StreamEvent {
  text: string;
  reasoning?: string;
  finishReason?: string;
  logprobs?: number[];
  usage?: Usage;
  /** Tools API: a function call, whole. */
  call?: StreamedCall;
  /** Tools API: the event carried a piece of a call. */
  callPiece?: boolean;
}

/**
 * The log-probabilities of a completions-API choice: OpenAI's legacy `token_logprobs`, or the chat API's form
 * `content: [{token, logprob}]`, which llama.cpp's server sends on the completions API too.
 */
function completionLogprobs(lp: unknown): number[] | undefined {
  const l = lp as { token_logprobs?: unknown; content?: unknown } | null | undefined;
  if (Array.isArray(l?.token_logprobs)) return l.token_logprobs.filter((x): x is number => typeof x === 'number');
  if (Array.isArray(l?.content)) return l.content.map(t => (t as { logprob?: unknown }).logprob).filter((x): x is number => typeof x === 'number');
  return undefined;
}

/** The endpoint's usage, with the reasoning tokens where it reports them (`completion_tokens_details`). */
function usageOf(u: OpenAI.CompletionUsage): Usage {
  const reasoning = u.completion_tokens_details?.reasoning_tokens;
  return {
    promptTokens: u.prompt_tokens,
    completionTokens: u.completion_tokens,
    ...(typeof reasoning === 'number' ? { reasoningTokens: reasoning } : {}),
  };
}

/**
 * The reasoning a chat message or delta carries beside its content: `reasoning_content` (DeepSeek, vLLM's
 * reasoning parsers) or `reasoning` (newer vLLM, Ollama, OpenRouter). Neither is in the SDK's types.
 */
function reasoningOf(m: object): string | undefined {
  const r = m as { reasoning_content?: unknown; reasoning?: unknown };
  const text = typeof r.reasoning_content === 'string' ? r.reasoning_content : typeof r.reasoning === 'string' ? r.reasoning : undefined;
  return text || undefined;
}

/** A whole chat reply (not streamed), normalised as a stream's is. */
function normaliseReply(textSoFar: string, content: string, reasoningField: string | undefined): CompletionResult {
  const n = new ChatReplyNormalizer(textSoFar);
  const a = n.push(content);
  const b = n.end();
  const reasoning = (reasoningField ?? '') + a.reasoning + b.reasoning;
  const repairs = [...a.repairs, ...b.repairs];
  return { text: a.text + b.text, ...(reasoning ? { reasoning } : {}), ...(repairs.length ? { repairs } : {}) };
}

function applyStops(r: CompletionResult, stop: string[] | undefined): CompletionResult {
  if (!stop?.length) return r;
  const s = new StopScanner(stop);
  const { release, stopped } = s.push(r.text);
  return stopped ? { ...r, text: release, finishReason: 'stop' } : r;
}
