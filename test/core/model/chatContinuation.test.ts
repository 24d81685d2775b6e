// The ModelClient over a chat model that has no stop sequences, logprobs or prefill (core/model/chatContinuation.ts,
// what VS Code's Language Model API gives): the continuation is asked for in user messages, the reply made bare,
// stop sequences applied here with the backend's stream given up at the first one, the local budget kept.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ChatContinuationModel, continuationMessages, type ChatBackend, type ChatPart } from '../../../core/model/chatContinuation';
import { artToolProgram } from '../../../core/protocols/artTools';
import type { CompletionChunk } from '../../../core/model/types';
import { scriptedChatBackend } from '../../support/fakeModels';

/** A backend that replies with `parts` to every request (the kit's scripted chat model). */
const scripted = (parts: string[]) => scriptedChatBackend([parts]);

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
    const { backend, log } = scripted([' 18\nQ3: [EOQ]\nAns: 18']);
    const model = new ChatContinuationModel(backend);
    assert.equal(model.honoursStop, false);
    assert.equal(model.id, 'test:scripted-chat');
    const { result } = await collect(model, 'Q2: [code execute]\n#2:');
    const sent = log.sent.map(s => s.messages);
    assert.deepEqual(sent, [continuationMessages('Q2: [code execute]\n#2:')]);
    assert.deepEqual(
      sent[0].map(m => m.role),
      ['user', 'user'],
    );
    assert.equal(result.text, ' 18\nQ3: [EOQ]\nAns: 18');
    assert.equal(result.tokenLogprobs, undefined, 'no log-probabilities');
  });

  test('stops at the first stop sequence, split across parts, and gives up the stream there', async () => {
    const { backend, log } = scripted(['Q1: [search] x\n#', '1: made up\nQ2:', ' more', ' and more']);
    const { chunks, result } = await collect(new ChatContinuationModel(backend), 'Input: x\n', ['\n#1:']);
    assert.equal(result.text, 'Q1: [search] x');
    assert.equal(chunks.map(c => c.text).join(''), 'Q1: [search] x');
    assert.equal(result.finishReason, 'stop');
    assert.equal(log.delivered, 2, 'nothing read past the stop');
    assert.equal(log.aborted, true);
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
    // One of a kind: the backend itself aborts the caller's signal between two parts, and does not heed it.
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

  describe('over function calling (a backend that calls functions)', () => {
    const program = artToolProgram([
      { name: 'calculator', description: 'Arithmetic.' },
      { name: 'code execute', description: 'Runs Python.' },
    ]);
    const LIB = 'Input: Ann has 2 pens and buys 5.\nQ1: [calculator] 2 + 5\n#1: 7\nQ2: [EOQ]\nAns: 7\n----\nInput: 21 plus 3?\nQ1:';
    /** A backend that calls functions, replying with `replies[i]` to its i-th request. */
    const caller = (replies: ChatPart[][]) => scriptedChatBackend(replies, { id: 'test:caller', callsFunctions: true });

    test('offers the tools as functions and writes a call as the tool step, through the answer marker', async () => {
      const { backend, log } = caller([[{ call: { name: 'calculator', arguments: '{"instruction": "21 + 3"}' } }]]);
      const { result } = await collect(new ChatContinuationModel(backend, program), LIB, ['\n#1:']);
      assert.equal(result.text, ' [calculator] 21 + 3');
      assert.deepEqual(
        log.sent[0].functions?.map(f => f.name),
        ['calculator', 'code_execute'],
      );
      assert.deepEqual(log.sent[0].functions?.[0].parameters.required, ['instruction']);
      assert.equal(log.sent[0].messages.at(-1)?.text, LIB, 'before the first call the text so far is the user message');
    });

    test("a tool step of the model's part goes back as the call and its result; text before a call is kept", async () => {
      const text = `${LIB} [calculator] 21 + 3\n#1: 24\nQ2:`;
      const { backend, log } = caller([[' [EOQ]\nAns: 24']]);
      const { result } = await collect(new ChatContinuationModel(backend, program), text, ['\n----']);
      assert.equal(result.text, ' [EOQ]\nAns: 24');
      const [instruction, prompt, call, output, ...rest] = log.sent[0].messages;
      assert.deepEqual([instruction.role, prompt.role, call.role, output.role], ['user', 'user', 'assistant', 'user']);
      assert.equal(prompt.text.endsWith('Input: 21 plus 3?\nQ1:'), true);
      assert.deepEqual(call.call, { id: 'art000001', name: 'calculator', arguments: '{"instruction":"21 + 3"}' });
      assert.deepEqual(output.result, { id: 'art000001', output: '24' });
      assert.deepEqual(
        rest.map(m => [m.role, m.text]),
        [['assistant', 'Q2:']],
      );
    });

    test('text before a call is released first; a call of an unknown function is written with its name', async () => {
      const { backend } = caller([[' [EOQ]', { call: { name: 'weather', arguments: '"Paris"' } }]]);
      const { result } = await collect(new ChatContinuationModel(backend, program), LIB);
      assert.equal(result.text, ' [EOQ]\nQ2: [weather] Paris\n#');
    });

    test('a backend that does not call functions gets the plain continuation request', async () => {
      const { backend, log } = scripted([' [calculator] 21 + 3\n#1:']);
      await collect(new ChatContinuationModel(backend, program), LIB, ['\n#1:']);
      assert.deepEqual(log.sent[0].messages, continuationMessages(LIB));
    });
  });
});
