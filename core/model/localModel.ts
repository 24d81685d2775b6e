// A ModelClient over a local GGUF model, in-process (llama.cpp through node-llama-cpp, localRuntime.ts): the prompt
// continued as raw text, streamed as it decodes, the stop sequences honoured here (decoding ends at the token that
// completes one: nothing past it is decoded or kept), real token counts, the log-probability of each generated token
// and the score of a prompt (`maxTokens: 0` with `logprobs`: each prompt token's log-probability after the tokens
// before it, as an echoing completions endpoint gives them), and a request's GBNF grammar (`extraBody.grammar`, the
// llama.cpp dialect of core/protocols/constraints.ts) enforced while decoding.
//
// Prefix reuse: a request evaluates only the tokens its sequence does not already hold (the KV cache is kept
// between the requests of a run and between samples); `usage.cachedPromptTokens` says how many it reused. What it
// reuses is only what a fresh evaluation of its prompt would have computed the same way (EXACT_GROUP), so at
// temperature 0 a request's text depends on its prompt alone, never on what the sequence held before.
// Cancellation is checked between tokens and between chunks of the prompt, so Stop ends decoding within one token.
import { basename } from 'node:path';
import type { LlamaContextSequence, LlamaGrammarEvaluationState, LlamaModel, Token } from 'node-llama-cpp';
import { LocalModelError, llamaModule, localRuntime, type Lease, type LocalRuntime, type LocalRuntimeOptions } from './localRuntime';
import { abortError } from './retry';
import { StopScanner } from './stops';
import { DEFAULT_MAX_TOKENS, type CompletionChunk, type CompletionRequest, type CompletionResult, type ModelClient, streamResult } from './types';

/** Prompt tokens evaluated between two checks of the cancellation signal (a multiple of EXACT_GROUP). */
const PROMPT_CHUNK = 32;

/**
 * llama.cpp's CPU kernels multiply the (repacked) quantized weights by a batch's tokens four at a time; the tokens left
 * over, and every token generated, take another path whose rounding differs. So a token's KV state, and every logit
 * after it, depends on how the batches that held it were cut: measured on Gemma 3 270M, the same prompt evaluated
 * after a request that shared 130 of its tokens gave " [" a probability of 0.90074 against 0.90108 fresh, enough to
 * change a step at temperature 0. Batches that start on a multiple of four give the fresh evaluation's state
 * whatever their size (32, 64, 12 then 32, all at once: identical), so a request reuses a prefix only up to a
 * multiple of four, and only the part its sequence evaluated that way (`exactPrefix`): never the tokens it generated
 * or the last few of a prompt, which it evaluates again. Two requests decoded in one batch on two sequences at once
 * share the grouping, and are not covered.
 */
const EXACT_GROUP = 4;

/** Per sequence: how many leading tokens it holds as a fresh evaluation of them computes them (a multiple of EXACT_GROUP). */
const exactPrefix = new WeakMap<LlamaContextSequence, number>();

export interface LocalModelOptions extends LocalRuntimeOptions {
  /** The sampling seed with a temperature above 0 (each request adds its number, so a run is repeatable). */
  seed?: number;
}

/** What a local model evaluated: prompt tokens given, prompt tokens evaluated (not reused), tokens generated. */
export interface LocalModelStats {
  requests: number;
  promptTokens: number;
  evaluatedPromptTokens: number;
  generatedTokens: number;
}

export class LocalModel implements ModelClient {
  readonly id: string;
  readonly honoursStop = true;
  private readonly runtime: LocalRuntime;
  readonly stats: LocalModelStats = { requests: 0, promptTokens: 0, evaluatedPromptTokens: 0, generatedTokens: 0 };
  /** Keep what the sequence holds between requests (false evaluates every prompt whole: the benchmark's baseline). */
  prefixReuse = true;

  constructor(private readonly opts: LocalModelOptions) {
    this.runtime = localRuntime(opts);
    this.id = `local:${basename(opts.file)}`;
  }

  /** The number of tokens of a text (with the BOS token a prompt starts with). */
  async countTokens(text: string): Promise<number> {
    const { model } = await this.runtime.load();
    return tokenize(model, text).length;
  }

  /** Loads the model now (with progress in the log) instead of at the first request. */
  async load(): Promise<void> {
    await this.runtime.load();
  }

  async *stream(req: CompletionRequest): AsyncGenerator<CompletionChunk, CompletionResult, void> {
    const signal = req.signal;
    if (signal?.aborted) throw abortError(signal);
    const { model, context } = await this.runtime.load(signal);
    const tokens = tokenize(model, req.prompt);
    const maxTokens = Math.max(0, req.maxTokens ?? DEFAULT_MAX_TOKENS);
    if (tokens.length + (maxTokens > 0 ? 1 : 0) > context.contextSize)
      throw new LocalModelError(
        `the prompt is ${tokens.length} tokens, past the local model's context of ${context.contextSize} tokens (${this.runtime.name}): set a larger context size (art.model.contextSize / --context-size) or shorten the program`,
      );
    const seed = (this.opts.seed ?? 0) + this.count('requests', 1);
    const grammar = typeof req.extraBody?.grammar === 'string' ? await this.grammarState(model, req.extraBody.grammar) : undefined;
    const lease = await this.runtime.lease(tokens, signal);
    try {
      if (maxTokens === 0) return await this.score(lease, tokens, req);
      return yield* this.generate(lease, tokens, req, Math.min(maxTokens, context.contextSize - tokens.length), seed, grammar);
    } finally {
      lease.release();
    }
  }

  async complete(req: CompletionRequest): Promise<CompletionResult> {
    return streamResult(this.stream(req));
  }

  /** `n` completions of one request, one after the other on the same sequence: the prompt is evaluated once. */
  async completeMany(req: CompletionRequest, n: number): Promise<CompletionResult[]> {
    const out: CompletionResult[] = [];
    for (let i = 0; i < n; i++) out.push(await this.complete(req));
    return out;
  }

  /** Adds to this client's stats and the runtime's totals; returns the client's count before. */
  private count(key: keyof LocalModelStats, n: number): number {
    const before = this.stats[key];
    this.stats[key] += n;
    this.runtime.totals[key] += n;
    return before;
  }

  /** Nothing to release per client: the runtime is shared and released when idle (disposeLocalRuntimes). */
  dispose(): void {}

  private async grammarState(model: LlamaModel, gbnf: string): Promise<LlamaGrammarEvaluationState> {
    const grammar = await this.runtime.grammar(gbnf);
    const m = await llamaModule();
    return new m.LlamaGrammarEvaluationState({ model, grammar });
  }

  /**
   * Keeps the tokens the sequence shares with `tokens` and holds exactly (at least one is left to evaluate, for its
   * logits), a multiple of EXACT_GROUP; returns how many.
   */
  private async reuse(lease: Lease, tokens: readonly Token[]): Promise<number> {
    const s = lease.sequence;
    const shared = !this.prefixReuse ? 0 : s.compareContextTokens(tokens as Token[]).firstDifferentIndex;
    const keep = exactGroups(Math.min(shared, exactPrefix.get(s) ?? 0, tokens.length - 1));
    exactPrefix.set(s, keep);
    if (keep < s.nextTokenIndex) await s.eraseContextTokenRanges([{ start: keep, end: s.nextTokenIndex }]);
    this.count('promptTokens', tokens.length);
    this.count('evaluatedPromptTokens', tokens.length - keep);
    return keep;
  }

  /** Evaluates tokens[from, to) in chunks, checking the signal between them. */
  private async evaluate(lease: Lease, tokens: readonly Token[], from: number, to: number, signal?: AbortSignal): Promise<void> {
    for (let i = from; i < to; i += PROMPT_CHUNK) {
      if (signal?.aborted) throw abortError(signal);
      await lease.sequence.evaluateWithoutGeneratingNewTokens(tokens.slice(i, Math.min(to, i + PROMPT_CHUNK)) as Token[]);
    }
  }

  private async *generate(
    lease: Lease,
    tokens: readonly Token[],
    req: CompletionRequest,
    maxTokens: number,
    seed: number,
    grammar: LlamaGrammarEvaluationState | undefined,
  ): AsyncGenerator<CompletionChunk, CompletionResult, void> {
    const { signal } = req;
    const model = lease.sequence.model;
    const kept = await this.reuse(lease, tokens);
    await this.evaluate(lease, tokens, kept, tokens.length - 1, signal);
    // From a multiple of EXACT_GROUP in chunks of PROMPT_CHUNK: every full group is exact, the last few tokens are not.
    exactPrefix.set(lease.sequence, exactGroups(tokens.length - 1));
    const scanner = new StopScanner(req.stop);
    const generated: Token[] = [];
    const logprobs: number[] = [];
    let decoded = '';
    let text = '';
    let finishReason = 'stop';
    const temperature = req.temperature ?? 0;
    const it = lease.sequence.evaluateWithMetadata(
      [tokens[tokens.length - 1]],
      { confidence: true },
      { temperature, seed, grammarEvaluationState: grammar },
    );
    try {
      for (;;) {
        if (signal?.aborted) throw abortError(signal);
        if (generated.length >= maxTokens) {
          finishReason = 'length';
          break;
        }
        const next = await it.next();
        if (signal?.aborted) throw abortError(signal);
        if (next.done) break;
        generated.push(next.value.token);
        logprobs.push(Math.log(next.value.confidence));
        const all = model.detokenize(generated);
        // A token may end inside a multi-byte character: wait for the rest.
        if (all.endsWith('\uFFFD')) continue;
        const fresh = all.slice(decoded.length);
        decoded = all;
        const { release, stopped } = scanner.push(fresh);
        if (release) {
          text += release;
          yield { text: release };
        }
        if (stopped) break;
      }
    } finally {
      await it.return();
    }
    const rest = scanner.flush();
    if (rest) {
      text += rest;
      yield { text: rest };
    }
    this.count('generatedTokens', generated.length);
    return {
      text,
      usage: { promptTokens: tokens.length, completionTokens: generated.length, cachedPromptTokens: kept },
      tokenLogprobs: req.logprobs ? logprobs : undefined,
      finishReason,
    };
  }

  /** The prompt's token log-probabilities (the first token has none: NaN, as an echoing endpoint's null). */
  private async score(lease: Lease, tokens: readonly Token[], req: CompletionRequest): Promise<CompletionResult> {
    const usage = { promptTokens: tokens.length, completionTokens: 0 };
    if (!req.logprobs) return { text: '', usage, finishReason: 'length' };
    // Scoring needs the distribution after every prompt token, which the KV cache does not keep: all are evaluated.
    const s = lease.sequence;
    exactPrefix.delete(s);
    if (s.nextTokenIndex > 0) await s.eraseContextTokenRanges([{ start: 0, end: s.nextTokenIndex }]);
    this.count('promptTokens', tokens.length);
    this.count('evaluatedPromptTokens', tokens.length);
    const logprobs: number[] = [NaN];
    for (let i = 0; i < tokens.length - 1; i += PROMPT_CHUNK) {
      if (req.signal?.aborted) throw abortError(req.signal);
      const end = Math.min(tokens.length - 1, i + PROMPT_CHUNK);
      const out = await s.controlledEvaluate(tokens.slice(i, end).map(t => [t, { generateNext: { probabilities: true } }] as [Token, object]));
      out.forEach((o, j) => logprobs.push(Math.log(o?.next.probabilities?.get(tokens[i + j + 1]) ?? 0)));
    }
    return { text: '', usage, tokenLogprobs: logprobs, finishReason: 'length' };
  }
}

/** `n` rounded down to a multiple of EXACT_GROUP. */
const exactGroups = (n: number) => n - (n % EXACT_GROUP);

/** The model's tokens of a text, after its BOS token when the model wants one. */
function tokenize(model: LlamaModel, text: string): Token[] {
  const bos = model.tokens.bos;
  const body = model.tokenize(text);
  return bos !== null && model.tokens.shouldPrependBosToken ? [bos, ...body] : body;
}
