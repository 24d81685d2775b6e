// A GGUF file's header, read with every count and length bounded by the file's size before anything is allocated or
// skipped: the magic, the version, the tensor and key counts, and the metadata's scalar and string values (arrays are
// named with their element type and length, not kept). A header that lies (a key count of 2^62 in a 24-byte file, a
// string longer than what follows it) is a `GgufError` naming the field, never a loop or an allocation the size of
// the lie. What it returns is what the product says of a model (its architecture, quantization and name) and what the
// checks before llama.cpp reads the file look at. Reads through one file descriptor in windows; no dependency.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** A GGUF header that cannot be read: `field` names what was wrong. */
export class GgufError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'GgufError';
  }
}

/** An array value: its elements are not kept, only what they are and how many. */
export interface GgufArray {
  readonly array: GgufValueType;
  readonly length: number;
}

export type GgufValue = number | bigint | boolean | string | GgufArray;

export type GgufValueType = 'u8' | 'i8' | 'u16' | 'i16' | 'u32' | 'i32' | 'f32' | 'bool' | 'string' | 'array' | 'u64' | 'i64' | 'f64';

const TYPES: readonly GgufValueType[] = ['u8', 'i8', 'u16', 'i16', 'u32', 'i32', 'f32', 'bool', 'string', 'array', 'u64', 'i64', 'f64'];
const FIXED: Partial<Record<GgufValueType, number>> = { u8: 1, i8: 1, u16: 2, i16: 2, u32: 4, i32: 4, f32: 4, bool: 1, u64: 8, i64: 8, f64: 8 };

export interface GgufHeader {
  readonly version: number;
  readonly tensorCount: number;
  readonly metadata: ReadonlyMap<string, GgufValue>;
  /** Where the tensor infos start (the header's key-value section ends). */
  readonly metadataEnd: number;
  /** The file's size in bytes. */
  readonly fileBytes: number;
}

/** Bytes a key-value takes at the least (an empty key's length, the type, a one-byte value): bounds the key count. */
const MIN_KV_BYTES = 8 + 4 + 1;
/** Bytes a tensor info takes at the least (an empty name's length, one dimension, the type, the offset). */
const MIN_TENSOR_INFO_BYTES = 8 + 4 + 8 + 4 + 8;
/** A key longer than this is not a key. */
const MAX_KEY_BYTES = 1 << 16;
/** Nested arrays deeper than this are refused (GGUF writers nest at most once). */
const MAX_ARRAY_DEPTH = 2;
const WINDOW = 1 << 20;

class Reader {
  private window = Buffer.alloc(0);
  private windowAt = 0;
  pos = 0;
  constructor(
    private readonly fd: number,
    readonly size: number,
  ) {}

  /** `n` bytes at the current position (at most WINDOW), or a GgufError naming `field` when the file ends first. */
  take(n: number, field: string): Buffer {
    if (n > this.size - this.pos) throw truncated(field, this.pos, n, this.size);
    if (this.pos < this.windowAt || this.pos + n > this.windowAt + this.window.length) {
      const length = Math.min(Math.max(n, WINDOW), this.size - this.pos);
      this.window = Buffer.alloc(length);
      readSync(this.fd, this.window, 0, length, this.pos);
      this.windowAt = this.pos;
    }
    const start = this.pos - this.windowAt;
    this.pos += n;
    return this.window.subarray(start, start + n);
  }

  skip(n: number, field: string): void {
    if (n > this.size - this.pos) throw truncated(field, this.pos, n, this.size);
    this.pos += n;
  }

  u32(field: string): number {
    return this.take(4, field).readUInt32LE(0);
  }

  /** A u64 that must fit a safe integer and `max`. */
  count(field: string, max: number): number {
    const v = this.take(8, field).readBigUInt64LE(0);
    if (v > BigInt(max)) throw new GgufError(field, `${field} is ${v}, more than a file of ${this.size} bytes can hold`);
    return Number(v);
  }

  string(field: string, max = this.size): string {
    const n = this.count(`${field} length`, Math.min(max, this.size - this.pos - 8));
    if (n <= WINDOW) return this.take(n, field).toString('utf8');
    const out: Buffer[] = [];
    for (let left = n; left > 0; left -= WINDOW) out.push(Buffer.from(this.take(Math.min(WINDOW, left), field)));
    return Buffer.concat(out).toString('utf8');
  }
}

const truncated = (field: string, at: number, n: number, size: number) =>
  new GgufError(field, `${field} needs ${n} bytes at offset ${at}, past the end of the file (${size} bytes): the file is truncated`);

function valueType(r: Reader, field: string): GgufValueType {
  const t = r.u32(`${field} type`);
  const type = TYPES[t];
  if (!type) throw new GgufError(`${field} type`, `${field} has type ${t}, which GGUF does not define`);
  return type;
}

function readValue(r: Reader, type: GgufValueType, field: string, depth: number): GgufValue {
  switch (type) {
    case 'u8':
      return r.take(1, field).readUInt8(0);
    case 'i8':
      return r.take(1, field).readInt8(0);
    case 'u16':
      return r.take(2, field).readUInt16LE(0);
    case 'i16':
      return r.take(2, field).readInt16LE(0);
    case 'u32':
      return r.take(4, field).readUInt32LE(0);
    case 'i32':
      return r.take(4, field).readInt32LE(0);
    case 'f32':
      return r.take(4, field).readFloatLE(0);
    case 'bool':
      return r.take(1, field).readUInt8(0) !== 0;
    case 'u64':
      return r.take(8, field).readBigUInt64LE(0);
    case 'i64':
      return r.take(8, field).readBigInt64LE(0);
    case 'f64':
      return r.take(8, field).readDoubleLE(0);
    case 'string':
      return r.string(field);
    case 'array': {
      if (depth >= MAX_ARRAY_DEPTH) throw new GgufError(field, `${field} nests arrays deeper than GGUF writers do`);
      const element = valueType(r, `${field} element`);
      const fixed = FIXED[element];
      // Each element takes at least a byte (a string its 8-byte length): the length is bounded by what is left.
      const length = r.count(`${field} length`, Math.floor((r.size - r.pos - 8) / (fixed ?? (element === 'string' ? 8 : 12))));
      if (fixed !== undefined) r.skip(fixed * length, field);
      else for (let i = 0; i < length; i++) skipValue(r, element, field, depth + 1);
      return { array: element, length };
    }
  }
}

function skipValue(r: Reader, type: GgufValueType, field: string, depth: number): void {
  if (type === 'string') r.skip(r.count(`${field} length`, r.size - r.pos - 8), field);
  else readValue(r, type, field, depth);
}

/** Reads a GGUF file's header (not its tensor infos). Throws a GgufError on a file that is not GGUF or lies. */
export function readGgufHeader(file: string): GgufHeader {
  const fd = openSync(file, 'r');
  try {
    const r = new Reader(fd, fstatSync(fd).size);
    if (r.size < 4 || r.take(4, 'magic').toString('latin1') !== 'GGUF') throw new GgufError('magic', 'the file does not start with "GGUF"');
    const version = r.u32('version');
    if (version < 2 || version > 3) throw new GgufError('version', `GGUF version ${version} is not one llama.cpp reads (2 or 3)`);
    const tensorCount = r.count('tensor count', Math.floor(r.size / MIN_TENSOR_INFO_BYTES));
    const kvCount = r.count('metadata count', Math.floor((r.size - r.pos - 8) / MIN_KV_BYTES));
    const metadata = new Map<string, GgufValue>();
    for (let i = 0; i < kvCount; i++) {
      const key = r.string(`metadata key ${i}`, MAX_KEY_BYTES);
      metadata.set(key, readValue(r, valueType(r, key), key, 0));
    }
    if (tensorCount * MIN_TENSOR_INFO_BYTES > r.size - r.pos)
      throw new GgufError('tensor count', `tensor count is ${tensorCount}, more than the ${r.size - r.pos} bytes after the metadata can describe`);
    return { version, tensorCount, metadata, metadataEnd: r.pos, fileBytes: r.size };
  } finally {
    closeSync(fd);
  }
}

/** llama.cpp's names of `general.file_type` (llama_ftype), as model files are named. */
const FILE_TYPES: Record<number, string> = {
  0: 'F32',
  1: 'F16',
  2: 'Q4_0',
  3: 'Q4_1',
  7: 'Q8_0',
  8: 'Q5_0',
  9: 'Q5_1',
  10: 'Q2_K',
  11: 'Q3_K_S',
  12: 'Q3_K_M',
  13: 'Q3_K_L',
  14: 'Q4_K_S',
  15: 'Q4_K_M',
  16: 'Q5_K_S',
  17: 'Q5_K_M',
  18: 'Q6_K',
  19: 'IQ2_XXS',
  20: 'IQ2_XS',
  21: 'Q2_K_S',
  22: 'IQ3_XS',
  23: 'IQ3_XXS',
  24: 'IQ1_S',
  25: 'IQ4_NL',
  26: 'IQ3_S',
  27: 'IQ3_M',
  28: 'IQ2_S',
  29: 'IQ2_M',
  30: 'IQ4_XS',
  31: 'IQ1_M',
  32: 'BF16',
};

/** What the product says of a model file: from its header, each field only when the header has it. */
export interface GgufSummary {
  /** `general.name`. */
  name?: string;
  /** `general.architecture` (llama, gemma3, qwen2, ...). */
  architecture?: string;
  /** The quantization from `general.file_type` (Q4_K_M, ...), or `type N` for a number llama.cpp names no more. */
  quantization?: string;
  /** `general.size_label` (270M, 1.5B, ...). */
  sizeLabel?: string;
  /** The context the model was trained for (`ARCH.context_length`). */
  trainedContext?: number;
}

const text = (v: GgufValue | undefined) => (typeof v === 'string' ? v : undefined);
const int = (v: GgufValue | undefined) =>
  typeof v === 'number' ? v : typeof v === 'bigint' && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : undefined;

export function summarizeGguf(h: GgufHeader): GgufSummary {
  const m = h.metadata;
  const architecture = text(m.get('general.architecture'));
  const fileType = int(m.get('general.file_type'));
  const out: GgufSummary = {};
  const name = text(m.get('general.name'));
  if (name) out.name = name;
  if (architecture) out.architecture = architecture;
  if (fileType !== undefined) out.quantization = FILE_TYPES[fileType] ?? `type ${fileType}`;
  const sizeLabel = text(m.get('general.size_label'));
  if (sizeLabel) out.sizeLabel = sizeLabel;
  const trained = architecture ? int(m.get(`${architecture}.context_length`)) : undefined;
  if (trained !== undefined) out.trainedContext = trained;
  return out;
}
