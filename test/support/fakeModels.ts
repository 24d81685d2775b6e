// The kit of fake models: one small function per habit a test needs of a model that runs in-process, with no server.
// A test that needs the real endpoint client takes the scripted server instead (scriptedServer.ts, the model zoo).
//   answeringModel(answer)        answers each request with answer(req) (a text, or a result with log-probabilities)
//   chunkedModel(chunks)          sends the same chunks as they are, whatever it is asked
//   characterModel(start, target) writes `target` on from where the prompt ends, one character a chunk
//   failingModel(message)         fails every request with `message` (a request the endpoint refused)
//   hangingModel()                never answers: a request ends only when its signal aborts
//   recordingModel(model)         a wrapper that keeps every request it passes on and every result (and so counts them)
//   scriptedChatBackend(replies)  a chat model (core/model/chatContinuation.ts's ChatBackend) that replies in order
// Each that answers keeps the contract every ModelClient keeps (test/support/modelContract.ts; they join it in
// test/core/model/contract.test.ts under FAKE_CAPABILITIES): the chunks are the result's text, complete() gives what
// stream() gives, a stop sequence the request carries ends the text before it, an aborted request ends at once, and
// none makes up usage, log-probabilities or retries.
import type { ModelCapabilities } from '../../core/launch/modelSources';
import type { ChatBackend, ChatFunction, ChatMessage, ChatPart } from '../../core/model/chatContinuation';
import { StopScanner } from '../../core/model/stops';
import { streamResult, type CompletionChunk, type CompletionRequest, type CompletionResult, type ModelClient } from '../../core/model/types';

/** What the kit's fakes declare of themselves in the contract suite: stops as told, no log-probabilities or usage. */
export const FAKE_CAPABILITIES = (honoursStop: boolean): Pick<ModelCapabilities, 'stopSequences' | 'generatedLogprobs' | 'tokenCounts'> => ({
  stopSequences: honoursStop,
  generatedLogprobs: false,
  tokenCounts: false,
});

/** A fake model that remembers the requests it was sent, in order. */
export type FakeModel = ModelClient & { requests: CompletionRequest[] };

interface FakeOptions {
  /** The model's id in traces. Default: the habit's name. */
  id?: string;
  /**
   * Whether the model says it honours stop sequences (default true). Either way a stop sequence a request carries
   * ends its text, as every client does; the runner sends none to a model that does not honour them.
   */
  honoursStop?: boolean;
  /**
   * An endpoint that ignores the stop sequences it is sent (some do): the text goes on past them, and what the caller
   * does with it is tested (a tool's own cut).
   */
  ignoresStops?: boolean;
}

const aborted = (signal: AbortSignal | undefined) =>
  signal?.aborted ? Object.assign(new Error(`aborted: ${String(signal.reason)}`), { name: 'AbortError' }) : undefined;

/**
 * Streams `pieces` (given one by one, each after the previous was read) as a client does: the stop sequences of `req`
 * applied, an abort ending the stream at once, the result's text the chunks' text; `extra` adds to the result.
 */
async function* streamPieces(
  req: CompletionRequest,
  pieces: Iterable<string>,
  extra: Partial<CompletionResult> = {},
): AsyncGenerator<CompletionChunk, CompletionResult, void> {
  const scanner = new StopScanner(req.stop);
  let text = '';
  for (const piece of pieces) {
    const error = aborted(req.signal);
    if (error) throw error;
    const { release, stopped } = scanner.push(piece);
    if (release) {
      text += release;
      yield { text: release };
    }
    if (stopped) return { ...extra, text, finishReason: 'stop' };
  }
  const error = aborted(req.signal);
  if (error) throw error;
  const rest = scanner.flush();
  if (rest) yield { text: rest };
  return { finishReason: 'stop', ...extra, text: text + rest };
}

function fake(id: string, opts: FakeOptions, habit: (req: CompletionRequest) => AsyncGenerator<CompletionChunk, CompletionResult, void>): FakeModel {
  const stream = (req: CompletionRequest) => habit(opts.ignoresStops ? { ...req, stop: undefined } : req);
  const requests: CompletionRequest[] = [];
  const model: FakeModel = {
    id: opts.id ?? id,
    honoursStop: opts.honoursStop ?? true,
    requests,
    // The habit runs when the stream is first read, as a request goes out then: what it throws is the request's failure.
    stream: req => {
      requests.push(req);
      return (async function* () {
        return yield* stream(req);
      })();
    },
    complete: req => streamResult(model.stream(req)),
  };
  return model;
}

/**
 * A model that answers every request with `answer(req)`: a text, or a result (its log-probabilities, finish reason);
 * the text streamed a word at a time.
 */
export function answeringModel(answer: (req: CompletionRequest) => Partial<CompletionResult> | string, opts: FakeOptions = {}): FakeModel {
  return fake('fake:answering', opts, req => {
    const a = answer(req);
    const { text = '', ...extra } = typeof a === 'string' ? { text: a } : a;
    return streamPieces(req, text.match(/\s*\S+|\s+$/g) ?? [], extra);
  });
}

/**
 * A model that sends `chunks` as they are to every request (the text of a response however the network cut it). With
 * `honoursStop` it stands for an endpoint that applies the stop sequences (the text ends before the first, finish
 * reason `stop`); without, the runner sends none and must give up the stream itself.
 */
export function chunkedModel(chunks: readonly string[], opts: FakeOptions = {}): FakeModel {
  return fake('fake:chunked', opts, req => streamPieces(req, chunks));
}

/**
 * A model that writes `target` (the whole generated text) on from where the prompt ends, the prompt being `start`
 * and what was written of `target` so far; one character a chunk. It says it honours no stop sequences.
 */
export function characterModel(start: string, target: string, opts: FakeOptions = {}): FakeModel {
  return fake('fake:one-character', { honoursStop: false, ...opts }, req => {
    const written = req.prompt.slice(start.length);
    if (!req.prompt.startsWith(start) || !target.startsWith(written))
      throw new Error(`characterModel: the prompt does not go on from a prefix of the target: ${JSON.stringify(req.prompt.slice(-40))}`);
    return streamPieces(req, target.slice(written.length));
  });
}

/** A model whose every request fails with `message` (an endpoint that refuses: a rate limit, a server error). */
export function failingModel(message: string, opts: FakeOptions = {}): FakeModel {
  return fake('fake:failing', opts, () => {
    throw new Error(message);
  });
}

/** A model that never answers: each request waits until its signal aborts, then ends with an abort error. */
export function hangingModel(opts: FakeOptions = {}): FakeModel {
  // eslint-disable-next-line require-yield
  return fake('fake:hanging', opts, async function* (req) {
    await new Promise<void>(resolve => {
      if (req.signal?.aborted) resolve();
      req.signal?.addEventListener('abort', () => resolve(), { once: true });
    });
    throw aborted(req.signal) ?? new Error('hangingModel: a request without a signal never ends');
  });
}

/**
 * `model` with every request it is sent kept in `requests`, in order, and the result of each that ended in `results`
 * (a model counted, its prompts read, its last usage); pass the lists to keep those of several wrapped models (one
 * run's each) in one place.
 */
export function recordingModel(
  model: ModelClient,
  requests: CompletionRequest[] = [],
  results: CompletionResult[] = [],
): FakeModel & { results: CompletionResult[] } {
  const kept = async (r: Promise<CompletionResult>) => {
    const result = await r;
    results.push(result);
    return result;
  };
  return {
    id: model.id,
    honoursStop: model.honoursStop,
    requests,
    results,
    stream: req => {
      requests.push(req);
      const inner = model.stream(req);
      return (async function* () {
        return await kept(Promise.resolve(yield* inner));
      })();
    },
    complete: req => (requests.push(req), kept(model.complete(req))),
    ...(model.completeMany && { completeMany: (req: CompletionRequest, n: number) => (requests.push(req), model.completeMany!(req, n)) }),
    ...(model.recordedAnswer && { recordedAnswer: (instruction: string) => model.recordedAnswer!(instruction) }),
    ...(model.addRetryListener && {
      addRetryListener: (fn: Parameters<NonNullable<ModelClient['addRetryListener']>>[0]) => model.addRetryListener!(fn),
    }),
    ...(model.dispose && { dispose: () => model.dispose!() }),
  };
}

/** What a scripted chat backend was sent, and how far its replies went. */
export interface ChatBackendLog {
  /** Each request's messages and the functions offered with it, in order. */
  sent: { messages: ChatMessage[]; functions?: ChatFunction[] }[];
  /** Parts handed out in all. */
  delivered: number;
  /** Whether a request's signal aborted (the reply was given up). */
  aborted: boolean;
}

/**
 * A chat model (the ChatBackend of core/model/chatContinuation.ts, what VS Code's Language Model API gives) whose
 * i-th request gets `replies[i]` part by part (the last reply again once they run out), each part after a turn of the
 * event loop; it stops at an abort. `callsFunctions`: it is offered the tools as functions.
 */
export function scriptedChatBackend(
  replies: readonly (readonly ChatPart[])[],
  opts: { id?: string; callsFunctions?: boolean } = {},
): { backend: ChatBackend; log: ChatBackendLog } {
  const log: ChatBackendLog = { sent: [], delivered: 0, aborted: false };
  const backend: ChatBackend = {
    id: opts.id ?? 'test:scripted-chat',
    ...(opts.callsFunctions && { callsFunctions: true }),
    async *send(messages, o) {
      log.sent.push({ messages, functions: o.functions });
      o.signal.addEventListener('abort', () => (log.aborted = true));
      for (const part of replies[Math.min(log.sent.length, replies.length) - 1] ?? []) {
        await new Promise(setImmediate);
        if (o.signal.aborted) return;
        log.delivered++;
        yield part;
      }
    },
  };
  return { backend, log };
}
