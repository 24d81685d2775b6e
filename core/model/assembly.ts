// How a streamed reply becomes a completion, for every client (openai.ts's endpoint, chatContinuation.ts's chat
// model): a chat reply made a bare continuation first (chatReply.ts: its reasoning and repairs given as chunks of
// their own), then stop sequences applied (stops.ts) and the local budget kept, and a function call written as the
// program's tool step. One Assembly lasts the whole completion (what was received, the reasoning, the repairs, continued
// across attempts); each attempt of a request (openai.ts retries a broken stream, continuing what was received) has an
// AttemptAssembly of its own, with a new stop scanner and reply normalizer.
import type { CompletionChunk } from './types';
import { ChatReplyNormalizer, type ReplyPiece, type ReplyRepair } from './chatReply';
import { StopScanner } from './stops';

/** Tokens a completion may take when its request sets no limit: the local budget's basis. */
export const DEFAULT_BUDGET_TOKENS = 4096;
/** Local budget: characters accepted per requested token (about 4 a token, doubled for margin). */
export const LOCAL_CHARS_PER_TOKEN = 8;

/** The most characters a completion of `maxTokens` may bring before it is cut here. */
export const localBudgetChars = (maxTokens: number | undefined) => (maxTokens ?? DEFAULT_BUDGET_TOKENS) * LOCAL_CHARS_PER_TOKEN + 1000;

export class Assembly {
  received = '';
  reasoning = '';
  readonly repairs: ReplyRepair[] = [];
  readonly budget: number;

  /** `onLimit`: told when the local budget cuts the completion. */
  constructor(
    readonly maxTokens: number | undefined,
    readonly onLimit: (message: string) => void = () => {},
  ) {
    this.budget = localBudgetChars(maxTokens);
  }

  /** One attempt of the request; `chatPrompt`: the text a chat reply continues (none for a completions stream). */
  attempt(stop: string[] | undefined, chatPrompt?: string): AttemptAssembly {
    return new AttemptAssembly(this, new StopScanner(stop), chatPrompt === undefined ? null : new ChatReplyNormalizer(chatPrompt + this.received));
  }

  /** The parts of a result the assembly knows. */
  result(): { text: string; reasoning?: string; repairs?: ReplyRepair[] } {
    return {
      text: this.received,
      ...(this.reasoning ? { reasoning: this.reasoning } : {}),
      ...(this.repairs.length ? { repairs: this.repairs } : {}),
    };
  }
}

export class AttemptAssembly {
  /** Whether the completion is over: a stop sequence, the budget, a function call. */
  done = false;
  /** Why this attempt finished, as far as the assembly knows: `stop`, `length`, `tool_calls`. */
  finishReason: string | undefined;

  constructor(
    private readonly a: Assembly,
    private readonly scanner: StopScanner,
    private readonly reply: ChatReplyNormalizer | null,
  ) {}

  /** Text through the stop scanner and the budget: what the caller may have. */
  private release(text: string): string {
    const { release: out, stopped } = this.scanner.push(text);
    const room = this.a.budget - this.a.received.length;
    if (out.length > room) {
      this.cut(`the endpoint sent more than the local budget of ${this.a.budget} characters for ${this.a.maxTokens ?? DEFAULT_BUDGET_TOKENS} tokens`);
      const kept = out.slice(0, Math.max(0, room));
      this.a.received += kept;
      this.done = true;
      return kept;
    }
    this.a.received += out;
    if (stopped) {
      this.finishReason = 'stop';
      this.done = true;
    }
    return out;
  }

  /** Cuts the completion (the endpoint sends more than it was asked for: `what`), saying so through onLimit. */
  cut(what: string): void {
    this.finishReason = 'length';
    this.done = true;
    this.a.onLimit(`${what}: the completion was cut there`);
  }

  /** A normalised piece of a chat reply: its reasoning and repairs as a chunk of their own, then its text. */
  private *piece(p: ReplyPiece): Generator<CompletionChunk> {
    if (p.reasoning || p.repairs.length) {
      this.a.reasoning += p.reasoning;
      this.a.repairs.push(...p.repairs);
      yield { text: '', ...(p.reasoning ? { reasoning: p.reasoning } : {}), ...(p.repairs.length ? { repairs: p.repairs } : {}) };
    }
    const out = this.release(p.text);
    if (out) yield { text: out };
    // The model ended its turn in its text (a turn marker): the completion is over, as at a stop sequence.
    if (this.reply?.turnEnded && !this.done) {
      const rest = this.scanner.flush();
      if (rest) {
        this.a.received += rest;
        yield { text: rest };
      }
      this.finishReason = 'stop';
      this.done = true;
    }
  }

  /** Reasoning the endpoint streamed in a field of its own. */
  reasoningChunk(reasoning: string): CompletionChunk {
    this.a.reasoning += reasoning;
    return { text: '', reasoning };
  }

  /** Text the model streamed. */
  *text(text: string): Generator<CompletionChunk> {
    if (this.reply) yield* this.piece(this.reply.push(text));
    else {
      const out = this.release(text);
      if (out) yield { text: out };
    }
  }

  /** The reply ended: what the normalizer held back, then what the stop scanner held back. */
  *end(): Generator<CompletionChunk> {
    if (!this.done && this.reply) yield* this.piece(this.reply.end());
    const rest = this.done ? '' : this.scanner.flush();
    if (rest) {
      this.a.received += rest;
      yield { text: rest };
    }
  }

  /**
   * A function call ends the reply: what the normalizer held back, then the call written as program text continuing
   * the text so far (`callText` is given the text received up to the call).
   */
  *call(callText: (received: string) => string): Generator<CompletionChunk> {
    if (this.reply) yield* this.piece(this.reply.end());
    if (!this.done) {
      const out = this.release(callText(this.a.received));
      if (out) yield { text: out };
      this.finishReason ??= 'tool_calls';
    }
    this.done = true;
  }
}
