// The GGUF header reader (core/model/gguf.ts): what a well-formed header says, and one error naming the field for a
// header that lies about its sizes, read without allocating or looping for the size of the lie.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GgufError, readGgufFile, readGgufHeader, summarizeGguf } from '../../../core/model/gguf';

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};
const u64 = (n: bigint | number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return b;
};
const str = (s: string) => Buffer.concat([u64(Buffer.byteLength(s)), Buffer.from(s)]);
const kvString = (k: string, v: string) => Buffer.concat([str(k), u32(8), str(v)]);
const kvU32 = (k: string, v: number) => Buffer.concat([str(k), u32(4), u32(v)]);
const kvStrings = (k: string, vs: string[]) => Buffer.concat([str(k), u32(9), u32(8), u64(vs.length), ...vs.map(str)]);
const kvU32s = (k: string, vs: number[]) => Buffer.concat([str(k), u32(9), u32(4), u64(vs.length), ...vs.map(u32)]);
/** A tensor info: name, dimensions, ggml type, data offset. */
const tensor = (name: string, dims: (number | bigint)[], type: number, offset: number | bigint) =>
  Buffer.concat([str(name), u32(dims.length), ...dims.map(u64), u32(type), u64(offset)]);
const header = (tensors: number | bigint, kvs: Buffer[]) => Buffer.concat([Buffer.from('GGUF'), u32(3), u64(tensors), u64(kvs.length), ...kvs]);

function withFile<T>(bytes: Buffer, f: (file: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'gguf-'));
  try {
    const file = join(dir, 'm.gguf');
    writeFileSync(file, bytes);
    return f(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const fails = (bytes: Buffer, field: RegExp) =>
  withFile(bytes, file =>
    assert.throws(
      () => readGgufHeader(file),
      (e: unknown) => e instanceof GgufError && field.test(e.field),
    ),
  );

test('a well-formed header gives its metadata, and the summary names architecture, quantization and name', () => {
  const bytes = header(0, [
    kvString('general.architecture', 'qwen2'),
    kvString('general.name', 'Qwen2.5 Coder 1.5B Instruct GGUF'),
    kvU32('general.file_type', 15),
    kvString('general.size_label', '1.5B'),
    kvU32('qwen2.context_length', 32768),
    kvStrings('tokenizer.ggml.tokens', ['a', 'bc', 'def']),
  ]);
  withFile(bytes, file => {
    const h = readGgufHeader(file);
    assert.equal(h.version, 3);
    assert.equal(h.tensorCount, 0);
    assert.deepEqual(h.metadata.get('tokenizer.ggml.tokens'), { array: 'string', length: 3 });
    assert.equal(h.metadataEnd, bytes.length);
    assert.deepEqual(summarizeGguf(h), {
      name: 'Qwen2.5 Coder 1.5B Instruct GGUF',
      architecture: 'qwen2',
      quantization: 'Q4_K_M',
      sizeLabel: '1.5B',
      trainedContext: 32768,
    });
  });
});

test('a key count of 2^62 in a 24-byte file is refused at the count, not looped over', () => {
  fails(Buffer.concat([Buffer.from('GGUF'), u32(3), u64(0), u64(2n ** 62n)]), /^metadata count$/);
});

test('a tensor count past what the file can describe is refused', () => {
  fails(header(2n ** 40n, [kvString('general.architecture', 'llama')]), /^tensor count$/);
  fails(header(1000, [kvString('general.architecture', 'llama')]), /^tensor count$/);
});

test('a string or an array longer than the rest of the file is refused, naming its key', () => {
  const long = Buffer.concat([Buffer.from('GGUF'), u32(3), u64(0), u64(1), str('general.name'), u32(8), u64(2n ** 50n), Buffer.from('x')]);
  fails(long, /^general\.name length$/);
  const array = Buffer.concat([Buffer.from('GGUF'), u32(3), u64(0), u64(1), str('tokens'), u32(9), u32(4), u64(2n ** 40n)]);
  fails(array, /^tokens length$/);
});

test('a value of a type GGUF does not define, a bad magic and an unknown version are each one error', () => {
  fails(Buffer.concat([Buffer.from('GGUF'), u32(3), u64(0), u64(1), str('k'), u32(99), u32(0)]), /^k type$/);
  fails(Buffer.from('GGML and more bytes here'), /^magic$/);
  fails(Buffer.concat([Buffer.from('GGUF'), u32(9), u64(0), u64(0)]), /^version$/);
});

test('a header cut short is truncated at the field it ends in', () => {
  const whole = header(0, [kvString('general.architecture', 'gemma3'), kvU32('general.file_type', 15)]);
  fails(whole.subarray(0, whole.length - 2), /^general\.file_type$/);
});

test('the tensor infos: names, dimensions, types and offsets, the data section aligned after them', () => {
  const infos = [tensor('token_embd.weight', [8, 4], 0, 0), tensor('blk.0.attn_q.weight', [8, 8], 1, 128)];
  const bytes = Buffer.concat([header(2, [kvString('general.architecture', 'llama'), kvU32s('llama.attention.head_count', [2])]), ...infos]);
  withFile(Buffer.concat([bytes, Buffer.alloc(512)]), file => {
    const f = readGgufFile(file);
    assert.deepEqual(f.tensors, [
      { name: 'token_embd.weight', dims: [8, 4], type: 0, offset: 0 },
      { name: 'blk.0.attn_q.weight', dims: [8, 8], type: 1, offset: 128 },
    ]);
    assert.equal(f.alignment, 32);
    assert.equal(f.dataStart, Math.ceil(bytes.length / 32) * 32);
    assert.deepEqual(
      f.metadata.get('llama.attention.head_count'),
      { array: 'u32', length: 1, values: [2] },
      'a short numeric array keeps its values',
    );
  });
});

test('a tensor info that lies is one error naming the tensor and the field', () => {
  const kv = [kvString('general.architecture', 'llama')];
  const file = (t: Buffer, extra: Buffer[] = []) => Buffer.concat([header(1, [...kv, ...extra]), t, Buffer.alloc(64)]);
  const readFails = (bytes: Buffer, field: RegExp) =>
    withFile(bytes, f =>
      assert.throws(
        () => readGgufFile(f),
        (e: unknown) => e instanceof GgufError && field.test(e.field),
      ),
    );
  readFails(file(tensor('t', [1, 1, 1, 1, 1], 0, 0)), /^tensor t dimension count$/);
  readFails(file(tensor('t', [], 0, 0)), /^tensor t dimension count$/);
  readFails(file(tensor('x'.repeat(64), [1], 0, 0)), /^tensor 0 name length$/);
  readFails(file(tensor('t', [2n ** 60n], 0, 0)), /^tensor t dimension 0$/);
  readFails(file(tensor('t', [1], 0, 2n ** 60n)), /^tensor t offset$/);
  readFails(file(tensor('t', [1], 0, 0), [kvU32('general.alignment', 24)]), /^general\.alignment$/);
});

test('a key given twice is refused', () => {
  fails(header(0, [kvU32('llama.block_count', 2), kvU32('llama.block_count', 600)]), /^llama\.block_count$/);
});
