// The ModelClient over a chat model that has no stop sequences, logprobs or prefill (core/model/chatContinuation.ts,
// what VS Code's Language Model API gives): the continuation is asked for in user messages, the reply made bare,
// stop sequences applied here with the backend's stream given up at the first one, the local budget kept.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ChatContinuationModel, continuationMessages, type ChatBackend, type ChatMessage } from '../../../core/model/chatContinuation';
import type { CompletionChunk } from '../../../core/model/types';

/** A backend that replies with `parts`, recording what it was sent and whether its stream was given up early. */
function scripted(parts: string[]) {
  const sent: ChatMessage[][] = [];
  const state = { delivered: 0, aborted: false };
  const backend: ChatBackend = {
    id: 'test:scripted',
    async *send(messages, opts) {
      sent.push(messages);
      opts.signal.addEventListener('abort', () => (state.aborted = true));
      for (const p of parts) {
        state.delivered++;
        yield p;
      }
    },
  };
  return { backend, sent, state };
}

async function collect(model: ChatContinuationModel, prompt: string, stop?: string[], maxTokens?: number) {
  const it = model.stream({ prompt, stop, maxTokens });
  const chunks: CompletionChunk[] = [];
  for (;;) {
    const r = await it.next();
    if (r.done) return { chunks, result: r.value };
    chunks.push(r.value);
  }
}

describe('ChatContinuationModel', () => {
  test('asks for the exact continuation in user messages and honours no stop sequence itself', async () => {
    const { backend, sent } = scripted([' 18\nQ3: [EOQ]\nAns: 18']);
    const model = new ChatContinuationModel(backend);
    assert.equal(model.honoursStop, false);
    assert.equal(model.id, 'test:scripted');
    const { result } = await collect(model, 'Q2: [code execute]\n#2:');
    assert.deepEqual(sent, [continuationMessages('Q2: [code execute]\n#2:')]);
    assert.deepEqual(
      sent[0].map(m => m.role),
      ['user', 'user'],
    );
    assert.equal(result.text, ' 18\nQ3: [EOQ]\nAns: 18');
    assert.equal(result.tokenLogprobs, undefined, 'no log-probabilities');
  });

  test('stops at the first stop sequence, split across parts, and gives up the stream there', async () => {
    const { backend, state } = scripted(['Q1: [search] x\n#', '1: made up\nQ2:', ' more', ' and more']);
    const { chunks, result } = await collect(new ChatContinuationModel(backend), 'Input: x\n', ['\n#1:']);
    assert.equal(result.text, 'Q1: [search] x');
    assert.equal(chunks.map(c => c.text).join(''), 'Q1: [search] x');
    assert.equal(result.finishReason, 'stop');
    assert.equal(state.delivered, 2, 'nothing read past the stop');
    assert.equal(state.aborted, true);
  });

  test('a reply that restates the text or wraps it in a fence becomes the bare continuation, each repair reported', async () => {
    const prompt = 'Description: d\nInput: i\nQ1:';
    const { chunks, result } = await collect(new ChatContinuationModel(scripted(['Q1: [EOQ]\nAns: 4']).backend), prompt, ['\n----']);
    assert.equal(result.text, ' [EOQ]\nAns: 4');
    assert.ok(chunks.some(c => c.repairs?.some(r => r.kind === 'echo')));
    const fenced = await collect(new ChatContinuationModel(scripted(['Sure, here it is:\n```\n [EOQ]\nAns: 4\n```\n']).backend), prompt);
    assert.equal(fenced.result.text.trimEnd(), ' [EOQ]\nAns: 4');
    assert.ok(fenced.result.repairs?.some(r => r.kind === 'wrapper'));
  });

  test('cuts a reply past the local budget with finish reason length', async () => {
    const { result } = await collect(new ChatContinuationModel(scripted(['x'.repeat(20_000)]).backend), 'p', undefined, 1);
    assert.equal(result.finishReason, 'length');
    assert.ok(result.text.length < 20_000 && result.text.length > 0);
  });

  test("the caller's abort ends the completion with an abort error", async () => {
    const ctrl = new AbortController();
    const backend: ChatBackend = {
      id: 't',
      async *send() {
        yield 'a';
        ctrl.abort(new Error('stopped by the test'));
        yield 'b';
      },
    };
    await assert.rejects(new ChatContinuationModel(backend).complete({ prompt: 'p', signal: ctrl.signal }), /abort|stopped/i);
  });
});
