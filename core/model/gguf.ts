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

/** An array value: what its elements are and how many; a short array of numbers keeps them (per-layer hyper-parameters). */
export interface GgufArray {
  readonly array: GgufValueType;
  readonly length: number;
  /** The elements of a numeric array of at most MAX_KEPT_ELEMENTS (a per-layer head count); none for the others. */
  readonly values?: readonly number[];
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
/** A numeric array this short keeps its elements (LLAMA_MAX_LAYERS is 512: per-layer values fit). */
const MAX_KEPT_ELEMENTS = 1024;
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

  /** A u64 that must fit a safe integer and `max` (`limit` says what `max` is). */
  count(field: string, max: number, limit = `a file of ${this.size} bytes can hold`): number {
    const v = this.take(8, field).readBigUInt64LE(0);
    if (v > BigInt(max)) throw new GgufError(field, `${field} is ${v}, more than ${limit}`);
    return Number(v);
  }

  string(field: string, max = this.size): string {
    const left = this.size - this.pos - 8;
    const n = max < left ? this.count(`${field} length`, max, `the ${max} bytes allowed`) : this.count(`${field} length`, left);
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
      if (fixed !== undefined && element !== 'bool' && length <= MAX_KEPT_ELEMENTS) {
        const values: number[] = [];
        for (let i = 0; i < length; i++) values.push(Number(readValue(r, element, field, depth + 1)));
        return { array: element, length, values };
      }
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
  return withReader(file, readHeader);
}

/** One tensor of the file, as its info describes it (the data is not read). */
export interface GgufTensorInfo {
  readonly name: string;
  /** Elements along each dimension, innermost first (ggml's ne), each at most 2^53. */
  readonly dims: readonly number[];
  /** The ggml type number (ggml_type). */
  readonly type: number;
  /** Where its data starts, from the start of the data section. */
  readonly offset: number;
}

export interface GgufFile extends GgufHeader {
  readonly tensors: readonly GgufTensorInfo[];
  /** `general.alignment`, else 32: tensor data offsets are multiples of it. */
  readonly alignment: number;
  /** Where the data section starts in the file (the end of the tensor infos, aligned). */
  readonly dataStart: number;
}

/** ggml's GGML_MAX_DIMS and GGML_MAX_NAME (a tensor name is shorter). */
const MAX_DIMS = 4;
const MAX_TENSOR_NAME = 64;

/**
 * Reads a GGUF file's header and its tensor infos (names, shapes, types, offsets), every count and length bounded as
 * in the header. Says nothing yet of whether the shapes and offsets agree with each other (core/model/ggufCheck.ts).
 */
export function readGgufFile(file: string): GgufFile {
  return withReader(file, r => {
    const header = readHeader(r);
    r.pos = header.metadataEnd;
    const tensors: GgufTensorInfo[] = [];
    for (let i = 0; i < header.tensorCount; i++) {
      const field = `tensor ${i}`;
      const name = r.string(`${field} name`, MAX_TENSOR_NAME - 1);
      const at = name ? `tensor ${name}` : field;
      const n = r.u32(`${at} dimension count`);
      if (n < 1 || n > MAX_DIMS) throw new GgufError(`${at} dimension count`, `${at} has ${n} dimensions; ggml tensors have 1 to ${MAX_DIMS}`);
      const dims: number[] = [];
      for (let d = 0; d < n; d++) dims.push(r.count(`${at} dimension ${d}`, Number.MAX_SAFE_INTEGER));
      const type = r.u32(`${at} type`);
      const offset = r.count(`${at} offset`, Number.MAX_SAFE_INTEGER);
      tensors.push({ name, dims, type, offset });
    }
    const alignment = alignmentOf(header.metadata.get('general.alignment'));
    return { ...header, tensors, alignment, dataStart: Math.ceil(r.pos / alignment) * alignment };
  });
}

function alignmentOf(v: GgufValue | undefined): number {
  if (v === undefined) return 32;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || (v & (v - 1)) !== 0)
    throw new GgufError('general.alignment', `general.alignment is ${JSON.stringify(typeof v === 'bigint' ? String(v) : v)}, not a power of 2`);
  return v;
}

function withReader<T>(file: string, read: (r: Reader) => T): T {
  const fd = openSync(file, 'r');
  try {
    return read(new Reader(fd, fstatSync(fd).size));
  } finally {
    closeSync(fd);
  }
}

function readHeader(r: Reader): GgufHeader {
  if (r.size < 4 || r.take(4, 'magic').toString('latin1') !== 'GGUF') throw new GgufError('magic', 'the file does not start with "GGUF"');
  const version = r.u32('version');
  if (version < 2 || version > 3) throw new GgufError('version', `GGUF version ${version} is not one llama.cpp reads (2 or 3)`);
  const tensorCount = r.count('tensor count', Math.floor(r.size / MIN_TENSOR_INFO_BYTES));
  const kvCount = r.count('metadata count', Math.floor((r.size - r.pos - 8) / MIN_KV_BYTES));
  const metadata = new Map<string, GgufValue>();
  for (let i = 0; i < kvCount; i++) {
    const key = r.string(`metadata key ${i}`, MAX_KEY_BYTES);
    if (metadata.has(key)) throw new GgufError(key, `the key ${key} appears twice`);
    metadata.set(key, readValue(r, valueType(r, key), key, 0));
  }
  if (tensorCount * MIN_TENSOR_INFO_BYTES > r.size - r.pos)
    throw new GgufError('tensor count', `tensor count is ${tensorCount}, more than the ${r.size - r.pos} bytes after the metadata can describe`);
  return { version, tensorCount, metadata, metadataEnd: r.pos, fileBytes: r.size };
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
