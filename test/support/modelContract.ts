// The contract every ModelClient keeps, as one suite a client joins with one line (test/core/model/contract.test.ts):
//   modelContract('the endpoint client, completions API', async () => ({ model, capabilities, prompt, ... }))
// It checks what the runner relies on: the streamed chunks are the result's text; `complete` gives what `stream`
// gives; a stop sequence ends the text before it (whether the endpoint honours it or the client gives up the stream),
// and a source that declares it honours stops is sent them; usage counts tokens where the source says it has real
// counts; log-probabilities come when asked for, or are absent where the source says it has none; an abort ends a
// stream at once and a request aborted beforehand sends nothing;
// a retried request is reported to the retry listeners and still answers. Where a client differs by design, the
// suite reads the source's declared capabilities (core/launch/modelSources.ts) and checks that the client says so.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ModelCapabilities } from '../../core/launch/modelSources';
import type { CompletionChunk, CompletionRequest, CompletionResult, ModelClient, RetryInfo } from '../../core/model/types';

export interface ContractSubject {
  model: ModelClient;
  /** What the client's source declares (capabilitiesOf of its options). */
  capabilities: Pick<ModelCapabilities, 'stopSequences' | 'generatedLogprobs' | 'tokenCounts'>;
  /** A prompt the model continues, at temperature 0, with text of several tokens. */
  prompt: string;
  /** Tokens each request may generate (a real model's few). Default 32. */
  maxTokens?: number;
  /**
   * Makes the next request fail once the way a retried request fails (a 503): the client must report the retry to its
   * listeners. Absent: the client makes no retries of its own, and must then offer no retry listener.
   */
  failNextRequest?: () => void;
  /**
   * The stop sequences the source itself was sent with the last request (what went over the wire). Given: a source
   * that declares it honours stops must have been sent the request's stops, not only have them applied by the client.
   */
  sentStops?: () => readonly string[];
  close?: () => Promise<void>;
}

async function drain(it: AsyncGenerator<CompletionChunk, CompletionResult, void>): Promise<{ chunks: CompletionChunk[]; result: CompletionResult }> {
  const chunks: CompletionChunk[] = [];
  for (;;) {
    const r = await it.next();
    if (r.done) return { chunks, result: r.value };
    chunks.push(r.value);
  }
}

/** Runs the contract suite over the client `setup` makes (once, for the whole suite). */
export function modelContract(name: string, setup: () => Promise<ContractSubject>): void {
  describe(`ModelClient contract: ${name}`, () => {
    let s: ContractSubject;
    let whole: CompletionResult;
    const request = (extra: Partial<CompletionRequest> = {}): CompletionRequest => ({
      prompt: s.prompt,
      maxTokens: s.maxTokens ?? 32,
      temperature: 0,
      ...extra,
    });

    before(async () => {
      s = await setup();
    });
    after(async () => {
      await s?.model.dispose?.();
      await s?.close?.();
    });

    test('streams: the chunks are the text of the result, in more than one piece, and complete() gives the same', async () => {
      const { chunks, result } = await drain(s.model.stream(request()));
      whole = result;
      assert.ok(result.text.length > 1, `the model wrote ${JSON.stringify(result.text)}: the suite needs a prompt it continues`);
      assert.equal(chunks.map(c => c.text).join(''), result.text);
      assert.ok(chunks.filter(c => c.text).length > 1, `the text came in ${chunks.length} chunk(s), not streamed`);
      assert.equal((await s.model.complete(request())).text, result.text);
    });

    test('stops: the text ends before the first stop sequence, and the client says whether the model honours stops', async () => {
      // A source that does not promise stops (chat endpoints may ignore them): the subject's model ignores them, and
      // the client must still end the text at the stop, by giving up the stream.
      if (s.capabilities.stopSequences) assert.equal(s.model.honoursStop, true, 'the source honours stops, the client says not');
      const text = whole.text;
      // A stop inside the text, after its first character: its first occurrence is where the text must end.
      const from = Math.max(1, Math.floor(text.length / 2));
      const stop = text.slice(from, from + 2);
      const at = text.indexOf(stop, 1);
      const { chunks, result } = await drain(s.model.stream(request({ stop: ['\u0000never\u0000', stop] })));
      assert.equal(result.text, text.slice(0, at), `stop ${JSON.stringify(stop)} in ${JSON.stringify(text)}`);
      assert.equal(chunks.map(c => c.text).join(''), result.text, 'no chunk carried text past the stop');
      if (s.capabilities.stopSequences && s.sentStops)
        assert.ok(
          s.sentStops().includes(stop),
          `the source declares stops but was sent ${JSON.stringify(s.sentStops())}, not ${JSON.stringify(stop)}`,
        );
    });

    test('usage: real token counts where the source has them', async () => {
      if (s.capabilities.tokenCounts) {
        assert.ok(whole.usage, 'no usage');
        assert.ok(whole.usage.promptTokens > 0 && whole.usage.completionTokens > 0, JSON.stringify(whole.usage));
      } else {
        // An estimate or nothing, but never a claim of zero tokens spent on a reply that has text.
        if (whole.usage) assert.ok(whole.usage.completionTokens > 0, JSON.stringify(whole.usage));
      }
    });

    test('log-probabilities when asked for, or their absence where the source says it has none', async () => {
      const r = await s.model.complete(request({ logprobs: true }));
      if (s.capabilities.generatedLogprobs) {
        assert.ok(r.tokenLogprobs && r.tokenLogprobs.length > 0, 'the source gives log-probabilities; the result has none');
        assert.ok(
          r.tokenLogprobs.every(p => Number.isFinite(p) && p <= 0),
          `not log-probabilities: ${r.tokenLogprobs.join(', ')}`,
        );
      } else {
        assert.equal(r.tokenLogprobs, undefined, 'the source declares no log-probabilities; the client must not make them up');
      }
    });

    test('cancellation: an abort ends the stream; a request aborted beforehand yields nothing', async () => {
      const ctrl = new AbortController();
      const it = s.model.stream(request({ signal: ctrl.signal }));
      const first = await it.next();
      assert.equal(first.done, false);
      ctrl.abort(new Error('contract: cancelled'));
      await assert.rejects(drain(it));

      const gone = new AbortController();
      gone.abort(new Error('contract: cancelled before'));
      const before = s.model.stream(request({ signal: gone.signal }));
      await assert.rejects(before.next());
      // The client is still usable after both.
      assert.equal((await s.model.complete(request())).text, whole.text);
    });

    test('retries: reported to the retry listeners, the request still answered; none offered by a client that makes none', async () => {
      if (!s.failNextRequest) {
        assert.equal(s.model.addRetryListener, undefined, 'the client offers a retry listener, but the suite was given no way to fail a request');
        return;
      }
      assert.ok(s.model.addRetryListener, 'the client makes retries but offers no retry listener');
      const seen: RetryInfo[] = [];
      const off = s.model.addRetryListener(info => seen.push(info));
      try {
        s.failNextRequest();
        assert.equal((await s.model.complete(request())).text, whole.text);
      } finally {
        off();
      }
      assert.equal(seen.length, 1, JSON.stringify(seen));
      assert.equal(seen[0].attempt, 1);
      assert.match(seen[0].reason, /503/);
    });
  });
}
