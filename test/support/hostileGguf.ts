// Hostile GGUF files crafted from the real default model (issue 37 item 2), for the tests of what happens before and
// while llama.cpp reads a model file: the real file's header and tensor table, a value of it edited in place, the
// tensor data left as a sparse hole of the real size (no disk is spent, and nothing reads it before the edit is
// refused); and the 24-byte file whose key count is 2^62.
import { closeSync, openSync, readSync, statSync, writeFileSync, writeSync, ftruncateSync } from 'node:fs';
import { join } from 'node:path';
import { readGgufFile } from '../../core/model/gguf';
import { localModelPath } from './localModel';

/** The GGUF value types the edits write. */
type Edit = { u32: number } | { string: string };

/** A GGUF string: its u64 length, then its bytes. */
function ggufString(text: string): Buffer {
  const b = Buffer.alloc(8 + Buffer.byteLength(text));
  b.writeBigUInt64LE(BigInt(Buffer.byteLength(text)));
  b.write(text, 8);
  return b;
}

/** The real model's first `bytes` bytes. */
function realHead(bytes: number): Buffer {
  const head = Buffer.alloc(bytes);
  const fd = openSync(localModelPath(), 'r');
  try {
    readSync(fd, head, 0, bytes, 0);
  } finally {
    closeSync(fd);
  }
  return head;
}

/** Where a key's value starts in the header of `head` (its u64 length, the key, the u32 type, then the value). */
function valueAt(head: Buffer, key: string): { at: number; type: number } {
  const k = ggufString(key);
  const at = head.indexOf(k);
  if (at < 0) throw new Error(`the model's header has no key ${key}`);
  return { at: at + k.length + 4, type: head.readUInt32LE(at + k.length) };
}

/**
 * A copy of the real model at `dir/name`: its header and tensor infos as they are but for `edits` (a key's u32 value,
 * or the bytes of a string value of the same length; `bytes` replaces bytes at an offset), its data a hole of the
 * real size. Returns the path.
 */
export function craftedModel(dir: string, name: string, edits: Record<string, Edit> = {}, bytes: { at: number; data: Buffer }[] = []): string {
  const real = localModelPath();
  const head = realHead(readGgufFile(real).dataStart);
  for (const [key, edit] of Object.entries(edits)) {
    const { at, type } = valueAt(head, key);
    if ('u32' in edit) {
      if (type !== 4) throw new Error(`${key} is not a u32 (type ${type})`);
      head.writeUInt32LE(edit.u32, at);
    } else {
      const n = Number(head.readBigUInt64LE(at));
      if (type !== 8 || Buffer.byteLength(edit.string) !== n) throw new Error(`${key} is not a string of ${Buffer.byteLength(edit.string)} bytes`);
      head.write(edit.string, at + 8);
    }
  }
  for (const b of bytes) b.data.copy(head, b.at);
  const path = join(dir, name);
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, head, 0, head.length, 0);
    ftruncateSync(fd, statSync(real).size);
  } finally {
    closeSync(fd);
  }
  return path;
}

/** Where the token `token` (a string of the vocabulary) starts in the real model's header: its u64 length, then its bytes. */
export function tokenOffset(token: string): number {
  const at = realHead(1 << 20).indexOf(ggufString(token));
  if (at < 0) throw new Error(`no token ${token} in the model's first MiB`);
  return at;
}

/**
 * The hostile files of issue 37: attention.head_count 0 and block_count 0xFFFFFFFF (llama.cpp aborts on both), the
 * 24-byte file with 2^62 keys (node-llama-cpp's reader looped on it, its memory growing), and two tokens made the same
 * (llama.cpp aborts on a vocabulary with a duplicate; the checks before it do not look at tokens: the probe's case).
 */
export function hostileModels(dir: string): { headCount0: string; blockCount: string; keys2e62: string; duplicateToken: string } {
  const keys2e62 = join(dir, 'keys-2e62.gguf');
  const tiny = Buffer.alloc(24);
  tiny.write('GGUF');
  tiny.writeUInt32LE(3, 4);
  tiny.writeBigUInt64LE(0n, 8);
  tiny.writeBigUInt64LE(2n ** 62n, 16);
  writeFileSync(keys2e62, tiny);
  return {
    headCount0: craftedModel(dir, 'head-count-0.gguf', { 'gemma3.attention.head_count': { u32: 0 } }),
    blockCount: craftedModel(dir, 'block-count.gguf', { 'gemma3.block_count': { u32: 0xffffffff } }),
    keys2e62,
    duplicateToken: craftedModel(dir, 'duplicate-token.gguf', {}, [{ at: tokenOffset('<eos>') + 8, data: Buffer.from('<pad>') }]),
  };
}
