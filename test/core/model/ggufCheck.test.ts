// The checks before llama.cpp reads a model file (core/model/ggufCheck.ts), on files crafted from the real default
// model (test/support/hostileGguf.ts): the real file passes and gives its shape; each hyper-parameter llama.cpp aborts
// on, and each lie of the tensor table, is one GgufError naming the field.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GgufError, readGgufFile, type GgufFile } from '../../../core/model/gguf';
import { checkGguf } from '../../../core/model/ggufCheck';
import { craftedModel, tokenOffset } from '../../support/hostileGguf';
import { localModelPath } from '../../support/localModel';

const dir = mkdtempSync(join(tmpdir(), 'art-gguf-check-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const refused = (f: GgufFile | string, field: string, message: RegExp) =>
  assert.throws(
    () => checkGguf(typeof f === 'string' ? readGgufFile(f) : f),
    (e: unknown) => e instanceof GgufError && e.field === field && message.test(e.message) && !e.message.includes('\n'),
  );

test('the real model passes, with its shape: layers, vocabulary, trained context and KV bytes per token', () => {
  const shape = checkGguf(readGgufFile(localModelPath()));
  // Gemma 3 270M: 18 layers of 1 KV head of 256 (keys and values, f16).
  assert.deepEqual(shape, { architecture: 'gemma3', layers: 18, vocabulary: 262144, trainedContext: 32768, kvBytesPerToken: 18 * 2 * 256 * 2 });
});

test('attention.head_count 0 and head_count_kv 0 are refused: the layers have attention tensors', () => {
  refused(
    craftedModel(dir, 'h0.gguf', { 'gemma3.attention.head_count': { u32: 0 } }),
    'gemma3.attention.head_count',
    /is 0, but block 0 has attention tensors/,
  );
  refused(craftedModel(dir, 'kv0.gguf', { 'gemma3.attention.head_count_kv': { u32: 0 } }), 'gemma3.attention.head_count_kv', /is 0, but block 0/);
  refused(
    craftedModel(dir, 'kv9.gguf', { 'gemma3.attention.head_count_kv': { u32: 9 } }),
    'gemma3.attention.head_count_kv',
    /more than .*head_count \(4\)/,
  );
});

test('block_count 0xFFFFFFFF, 0, and fewer blocks than the tensors have are refused', () => {
  refused(craftedModel(dir, 'b.gguf', { 'gemma3.block_count': { u32: 0xffffffff } }), 'gemma3.block_count', /4294967295; .*from 1 to 512/);
  refused(craftedModel(dir, 'b0.gguf', { 'gemma3.block_count': { u32: 0 } }), 'gemma3.block_count', /is 0; .*from 1 to 512/);
  refused(craftedModel(dir, 'b17.gguf', { 'gemma3.block_count': { u32: 17 } }), 'gemma3.block_count', /is 17, but the file has tensors for block 17/);
});

test('an embedding, feed-forward, key or value length of 0, a trained context of 0, heads whose size wraps 32 bits', () => {
  refused(craftedModel(dir, 'e0.gguf', { 'gemma3.embedding_length': { u32: 0 } }), 'gemma3.embedding_length', /is 0; .*from 1/);
  refused(
    craftedModel(dir, 'f0.gguf', { 'gemma3.feed_forward_length': { u32: 0 } }),
    'gemma3.feed_forward_length',
    /is 0, but block 0 has feed-forward tensors/,
  );
  refused(craftedModel(dir, 'k0.gguf', { 'gemma3.attention.key_length': { u32: 0 } }), 'gemma3.attention.key_length', /is 0; /);
  refused(craftedModel(dir, 'v0.gguf', { 'gemma3.attention.value_length': { u32: 0 } }), 'gemma3.attention.value_length', /is 0; /);
  refused(
    craftedModel(dir, 'wrap.gguf', { 'gemma3.attention.head_count': { u32: 2 ** 24 }, 'gemma3.attention.head_count_kv': { u32: 1 } }),
    'gemma3.attention.head_count',
    /overflows ggml's 32-bit sizes/,
  );
  refused(craftedModel(dir, 'c0.gguf', { 'gemma3.context_length': { u32: 0 } }), 'gemma3.context_length', /is 0; /);
});

test('a BOS token past the vocabulary, when every prompt starts with it, is refused', () => {
  refused(
    craftedModel(dir, 'bos.gguf', { 'tokenizer.ggml.bos_token_id': { u32: 262144 } }),
    'tokenizer.ggml.bos_token_id',
    /outside the vocabulary of 262144 tokens/,
  );
});

test('the tensor table: a tensor moved, of a type ggml does not read, or past the end of the file is refused', () => {
  const real = readGgufFile(localModelPath());
  const [first, second] = real.tensors;
  const moved = { ...real, tensors: [first, { ...second, offset: second.offset + 32 }, ...real.tensors.slice(2)] };
  refused(moved, `tensor ${second.name} offset`, /starts at data offset \d+, but the tensors before it end at \d+/);
  const typed = { ...real, tensors: [{ ...first, type: 31 }, ...real.tensors.slice(1)] };
  refused(typed, `tensor ${first.name} type`, /ggml type 31, which this llama.cpp does not read/);
  const cut = { ...real, fileBytes: real.fileBytes - 1 };
  refused(cut, `tensor ${real.tensors.at(-1)!.name} data`, /past the end of the file .*truncated/);
  // A Q4_K tensor (ggml type 12) whose rows are not whole 256-element blocks.
  const q = real.tensors.findIndex(t => t.type === 12);
  const tensors = [...real.tensors];
  tensors[q] = { ...tensors[q], dims: [tensors[q].dims[0] + 1, ...tensors[q].dims.slice(1)] };
  refused(
    { ...real, tensors },
    `tensor ${tensors[q].name} dimension 0`,
    /\(q4_K\) has rows of \d+ elements, not a whole number of 256-element blocks/,
  );
});

test('what llama.cpp refuses with an error of its own is left to it: an architecture it does not know, a duplicate token', () => {
  // No key of the renamed architecture: nothing to check, llama.cpp names the architecture.
  const shape = checkGguf(readGgufFile(craftedModel(dir, 'arch.gguf', { 'general.architecture': { string: 'zzzzz9' } })));
  assert.equal(shape.architecture, 'zzzzz9');
  assert.equal(shape.layers, undefined);
  // A duplicate token aborts llama.cpp, but the tokens are not read here: the probe's case (modelProbe.test.ts).
  const dup = craftedModel(dir, 'dup.gguf', {}, [{ at: tokenOffset('<eos>') + 8, data: Buffer.from('<pad>') }]);
  assert.equal(checkGguf(readGgufFile(dup)).layers, 18);
});
