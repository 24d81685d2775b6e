// The local model client (core/model/localModel.ts) on the real default model: what holds for any model. Streams,
// stops honoured (nothing past one), real token counts, log-probabilities of what it wrote and the score of a given
// text, a request that extends the last evaluating only its new tokens, a grammar that holds, Stop within 100 ms,
// and one line naming the file and the fix for each bad file.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, openSync, readFileSync, writeFileSync, closeSync, readSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalModel } from '../../core/model/localModel';
import { disposeLocalRuntimes } from '../../core/model/localRuntime';
import { rerankByNll } from '../../core/tools/rerank';
import { localModelPath } from '../support/localModel';

const file = localModelPath();
const model = new LocalModel({ file, contextSize: 2048 });
after(() => disposeLocalRuntimes());

const PROMPT = 'Q: What is 2 + 3?\nA: 5\nQ: What is 4 + 4?\nA: 8\nQ: What is 1 + 6?\nA:';

describe('the local model: continuation', () => {
  test('streams a continuation, stops at a stop sequence with nothing past it, counts real tokens', async () => {
    const chunks: string[] = [];
    const it = model.stream({ prompt: PROMPT, stop: ['\n'], maxTokens: 24, temperature: 0, logprobs: true });
    let r = await it.next();
    while (!r.done) {
      chunks.push(r.value.text);
      r = await it.next();
    }
    const result = r.value;
    assert.equal(result.text, chunks.join(''));
    assert.ok(!result.text.includes('\n'), 'nothing at or past the stop sequence');
    assert.ok(result.usage!.promptTokens > 20 && result.usage!.completionTokens >= 1);
    assert.equal(result.tokenLogprobs!.length, result.usage!.completionTokens);
    assert.ok(result.tokenLogprobs!.every(x => Number.isFinite(x) && x <= 0));
  });

  test('temperature 0 is repeatable; maxTokens bounds the completion (finish reason length)', async () => {
    const a = await model.complete({ prompt: 'Once upon a time', maxTokens: 8, temperature: 0 });
    const b = await model.complete({ prompt: 'Once upon a time', maxTokens: 8, temperature: 0 });
    assert.equal(a.text, b.text);
    assert.equal(a.usage!.completionTokens, 8);
    assert.equal(a.finishReason, 'length');
  });

  test('a request that extends the last one evaluates only its new tokens (prefix reuse)', async () => {
    const first = await model.complete({ prompt: PROMPT, stop: ['\n'], maxTokens: 8, temperature: 0 });
    const next = await model.complete({ prompt: `${PROMPT}${first.text}\nQ: What is 2 + 2?\nA:`, stop: ['\n'], maxTokens: 8, temperature: 0 });
    // All but the last few prompt tokens (a multiple of four is kept: core/model/localModel.ts, EXACT_GROUP).
    assert.ok(next.usage!.cachedPromptTokens! >= first.usage!.promptTokens - 4, JSON.stringify(next.usage));
  });

  test('a GBNF grammar holds while decoding', async () => {
    const r = await model.complete({
      prompt: 'The answer is',
      maxTokens: 12,
      temperature: 0,
      extraBody: { grammar: 'root ::= " [" [a-z]+ "] " [0-9]+ "\\n"\n' },
    });
    assert.match(r.text, /^ \[[a-z]+\] [0-9]*\n?$/);
  });

  test('Stop ends decoding within 100 ms', async () => {
    const ac = new AbortController();
    const it = model.stream({ prompt: 'Once upon a time there was', maxTokens: 400, temperature: 0, signal: ac.signal });
    await it.next();
    const t0 = performance.now();
    ac.abort();
    await assert.rejects(async () => {
      for (let r = await it.next(); !r.done; r = await it.next());
    }, /cancel|abort/i);
    const ms = performance.now() - t0;
    assert.ok(ms < 100, `${ms.toFixed(0)} ms`);
  });
});

describe('the local model: scores', () => {
  test("a prompt's score: one log-probability per token after the first, finite and at most 0", async () => {
    const r = await model.complete({ prompt: 'Paris is the capital of France.', maxTokens: 0, logprobs: true, temperature: 0 });
    assert.equal(r.tokenLogprobs!.length, r.usage!.promptTokens);
    assert.ok(r.tokenLogprobs!.slice(1).every(x => Number.isFinite(x) && x <= 0));
  });

  test('--rerank orders passages by the real scores', async () => {
    const passages = ['Bananas are yellow fruit.', 'Paris is the capital of France.'];
    const r = await rerankByNll(model, 'What is the capital of France?', passages, p => p, new AbortController().signal);
    assert.ok(r.reranked, r.reranked ? '' : r.reason);
    if (!r.reranked) return;
    assert.deepEqual([...r.items].sort(), [...passages].sort());
    assert.ok(r.scores.every(Number.isFinite));
    assert.deepEqual(
      r.scores,
      [...r.scores].sort((a, b) => a - b),
      'best (lowest NLL) first',
    );
  });
});

describe('the local model: bad files and prompts, one line each naming the file and the fix', () => {
  const dir = mkdtempSync(join(tmpdir(), 'art-local-'));
  const fails = async (path: string, pattern: RegExp) => {
    const m = new LocalModel({ file: path });
    const e = await m.complete({ prompt: 'x', maxTokens: 1 }).then(
      () => assert.fail('loaded'),
      (err: Error) => err,
    );
    assert.ok(!e.message.includes('\n'), e.message);
    assert.ok(e.message.includes(path), e.message);
    assert.match(e.message, pattern);
  };

  test('a missing file', () => fails(join(dir, 'none.gguf'), /no such model file.*--model-file/));
  test('a file that is not GGUF', () => {
    writeFileSync(join(dir, 'text.gguf'), 'not a model at all\n');
    return fails(join(dir, 'text.gguf'), /not a GGUF model file/);
  });
  test('a truncated file', () => {
    const whole = readFileSync(file);
    writeFileSync(join(dir, 'cut.gguf'), whole.subarray(0, Math.floor(whole.length / 2)));
    return fails(join(dir, 'cut.gguf'), /truncated.*download it again/);
  });
  test('an architecture llama.cpp does not know', () => {
    const path = join(dir, 'arch.gguf');
    copyFileSync(file, path);
    // The architecture name is in the header: rename it (same length) so llama.cpp does not know it.
    const head = Buffer.alloc(1 << 16);
    const fd = openSync(path, 'r+');
    try {
      readSync(fd, head, 0, head.length, 0);
      const at = head.indexOf('gemma3');
      assert.ok(at > 0);
      writeSync(fd, Buffer.from('zzzzz9'), 0, 6, at);
    } finally {
      closeSync(fd);
    }
    return fails(path, /architecture.*zzzzz9|unknown.*architecture|llama\.cpp could not load/);
  });
  test('a prompt past the context: the sizes named', async () => {
    const small = new LocalModel({ file, contextSize: 64 });
    await assert.rejects(
      small.complete({ prompt: 'word '.repeat(3000), maxTokens: 4 }),
      (e: Error) => /the prompt is \d+ tokens, past the local model's context of \d+ tokens/.test(e.message) && !e.message.includes('\n'),
    );
  });
});
