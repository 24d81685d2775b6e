// What a GGUF file must say before llama.cpp reads it (core/model/gguf.ts reads it, bounded): its tensors lie inside
// the file where ggml expects them, and the hyper-parameters llama.cpp asserts on are in range. llama.cpp refuses most
// bad files with an error the runtime turns into one line; these checks are for what it does not refuse but aborts on
// (GGML_ASSERT ends the whole process: the editor's extension host, `art mcp`, the debug adapter), read from its
// sources (llama-model.cpp's load_hparams, llama-model-loader.cpp's create_tensor, ggml's gguf.cpp, llama-vocab.cpp):
//
// - block_count outside 1..512 (LLAMA_MAX_LAYERS), nextn_predict_layers past it;
// - a layer with attention tensors whose head count, key/value head count or head size is 0, or whose products wrap
//   ggml's 32-bit sizes (create_tensor asserts every dimension it computes is at least 1);
// - a layer with feed-forward tensors and a feed-forward length of 0; an embedding length of 0;
// - expert counts past LLAMA_MAX_EXPERTS or out of step with each other; an unknown rope scaling type;
// - a BOS, EOS or separator token id past the vocabulary that the file asks to add to every prompt (the tokenizer
//   asserts on it at the first prompt).
//
// What is left (a shape llama.cpp asserts on deeper in an architecture's graph) is the probe's: the file is loaded
// once in a child process before the editor's or the server's process loads it (core/model/modelProbe.ts). Each
// refusal is a GgufError naming the field; the runtime adds the file and the fix. The same header gives what the
// runtime's memory check needs: the KV cache's bytes per token of context.
import { GgufError, type GgufFile, type GgufValue } from './gguf';

/** ggml's types that a GGUF file may hold: name, elements per block, bytes per block (ggml.c's type_traits). */
const GGML_TYPES: Readonly<Record<number, readonly [name: string, block: number, bytes: number]>> = {
  0: ['f32', 1, 4],
  1: ['f16', 1, 2],
  2: ['q4_0', 32, 18],
  3: ['q4_1', 32, 20],
  6: ['q5_0', 32, 22],
  7: ['q5_1', 32, 24],
  8: ['q8_0', 32, 34],
  9: ['q8_1', 32, 36],
  10: ['q2_K', 256, 84],
  11: ['q3_K', 256, 110],
  12: ['q4_K', 256, 144],
  13: ['q5_K', 256, 176],
  14: ['q6_K', 256, 210],
  15: ['q8_K', 256, 292],
  16: ['iq2_xxs', 256, 66],
  17: ['iq2_xs', 256, 74],
  18: ['iq3_xxs', 256, 98],
  19: ['iq1_s', 256, 50],
  20: ['iq4_nl', 32, 18],
  21: ['iq3_s', 256, 110],
  22: ['iq2_s', 256, 82],
  23: ['iq4_xs', 256, 136],
  24: ['i8', 1, 1],
  25: ['i16', 1, 2],
  26: ['i32', 1, 4],
  27: ['i64', 1, 8],
  28: ['f64', 1, 8],
  29: ['iq1_m', 256, 56],
  30: ['bf16', 1, 2],
  34: ['tq1_0', 256, 54],
  35: ['tq2_0', 256, 66],
  39: ['mxfp4', 32, 17],
  40: ['nvfp4', 64, 36],
  41: ['q1_0', 128, 18],
  42: ['q2_0', 64, 18],
};

/** llama.cpp's LLAMA_MAX_LAYERS and LLAMA_MAX_EXPERTS. */
const MAX_LAYERS = 512;
const MAX_EXPERTS = 1024;
/** ggml computes head sizes and their products in 32-bit unsigned integers: a product past this wraps. */
const MAX_PRODUCT = 2 ** 31;
const ROPE_SCALING_TYPES = ['none', 'linear', 'yarn', 'longrope'];
/** Bytes of one cached key or value element (llama.cpp's default KV cache type, f16). */
const KV_ELEMENT_BYTES = 2;

/**
 * What the checks found out that the runtime uses. A key the file lacks is not refused here: llama.cpp refuses a
 * missing key (or an architecture it does not know) with an error, not an abort, and the runtime says that in one line.
 */
export interface ModelShape {
  architecture?: string;
  layers?: number;
  /** Tokens of the vocabulary. */
  vocabulary?: number;
  /** `ARCH.context_length`: the context the model was trained for. */
  trainedContext?: number;
  /** Bytes the KV cache takes per token of context, over all layers (f16 keys and values). */
  kvBytesPerToken?: number;
}

/** Checks the tensors' layout and the hyper-parameters; throws a GgufError naming the first field that is wrong. */
export function checkGguf(f: GgufFile): ModelShape {
  checkTensorLayout(f);
  return checkHyperParameters(f);
}

/**
 * Every tensor has a type ggml knows, a row that is whole blocks, and its data where gguf.cpp expects it (right after
 * the tensor before it, aligned) and inside the file.
 */
export function checkTensorLayout(f: GgufFile): void {
  const names = new Set<string>();
  let expected = 0n;
  const align = BigInt(f.alignment);
  for (const t of f.tensors) {
    const at = `tensor ${t.name}`;
    if (names.has(t.name)) throw new GgufError(`${at} name`, `${at} appears twice`);
    names.add(t.name);
    const type = GGML_TYPES[t.type];
    if (!type) throw new GgufError(`${at} type`, `${at} has ggml type ${t.type}, which this llama.cpp does not read`);
    const [typeName, block, bytes] = type;
    if (t.dims[0] % block !== 0)
      throw new GgufError(
        `${at} dimension 0`,
        `${at} (${typeName}) has rows of ${t.dims[0]} elements, not a whole number of ${block}-element blocks`,
      );
    const elements = t.dims.reduce((n, d) => n * BigInt(d), 1n);
    const size = (elements / BigInt(block)) * BigInt(bytes);
    if (BigInt(t.offset) !== expected)
      throw new GgufError(`${at} offset`, `${at} starts at data offset ${t.offset}, but the tensors before it end at ${expected}`);
    const end = BigInt(f.dataStart) + expected + size;
    if (end > BigInt(f.fileBytes))
      throw new GgufError(
        `${at} data`,
        `${at} (${t.dims.join(' x ')} ${typeName}) ends at byte ${end}, past the end of the file (${f.fileBytes} bytes): the file is truncated`,
      );
    expected += ((size + align - 1n) / align) * align;
  }
}

const int = (v: GgufValue | undefined): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) ? v : typeof v === 'bigint' && v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= 0n ? Number(v) : undefined;

const shown = (v: GgufValue | undefined): string =>
  typeof v === 'object' ? `an array of ${v.length} ${v.array}` : typeof v === 'string' ? JSON.stringify(v.slice(0, 40)) : String(v);

/** The hyper-parameters llama.cpp asserts on, in range; returns the model's shape. */
export function checkHyperParameters(f: GgufFile): ModelShape {
  const m = f.metadata;
  const architecture = m.get('general.architecture');
  if (typeof architecture !== 'string' || !architecture) return {};
  const key = (k: string) => `${architecture}.${k}`;
  /** A whole number from `min` to `max`, or undefined when the key is absent. */
  const scalar = (k: string, min: number, max = MAX_PRODUCT - 1): number | undefined => {
    const v = m.get(key(k));
    if (v === undefined) return undefined;
    const n = int(v);
    if (n === undefined || n < min || n > max)
      throw new GgufError(key(k), `${key(k)} is ${shown(v)}; llama.cpp needs a whole number from ${min} to ${max}`);
    return n;
  };
  /** One value per layer: a scalar repeated, or an array of one per layer (llama.cpp's get_key_or_arr). */
  const perLayer = (k: string, layers: number): number[] | undefined => {
    const v = m.get(key(k));
    if (v === undefined) return undefined;
    if (typeof v === 'object') {
      if (v.length !== layers || !v.values)
        throw new GgufError(key(k), `${key(k)} is an array of ${v.length} ${v.array}; llama.cpp needs one number per layer (${layers})`);
      if (v.values.some(x => !Number.isInteger(x) || x < 0 || x >= MAX_PRODUCT))
        throw new GgufError(key(k), `${key(k)} holds a value that is not a whole number from 0 to ${MAX_PRODUCT - 1}`);
      return [...v.values];
    }
    const n = int(v);
    if (n === undefined || n < 0 || n >= MAX_PRODUCT)
      throw new GgufError(key(k), `${key(k)} is ${shown(v)}, not a whole number from 0 to ${MAX_PRODUCT - 1}`);
    return Array<number>(layers).fill(n);
  };

  const trainedContext = scalar('context_length', 1, Number.MAX_SAFE_INTEGER);
  const embedding = scalar('embedding_length', 1);
  const keyLength = scalar('attention.key_length', 1);
  const valueLength = scalar('attention.value_length', 1);
  const kvLoraRank = scalar('attention.kv_lora_rank', 1);
  const ropeDims = scalar('rope.dimension_count', 0) ?? 0;
  const scaling = m.get(key('rope.scaling.type'));
  if (scaling !== undefined && (typeof scaling !== 'string' || !ROPE_SCALING_TYPES.includes(scaling)))
    throw new GgufError(
      key('rope.scaling.type'),
      `${key('rope.scaling.type')} is ${shown(scaling)}; llama.cpp knows ${ROPE_SCALING_TYPES.join(', ')}`,
    );
  const vocabulary = checkVocabulary(f, scalar('vocab_size', 1));
  const layers = scalar('block_count', 1, MAX_LAYERS);
  if (layers === undefined) return { architecture, trainedContext, vocabulary };

  const blocks = blockTensors(f);
  const highest = Math.max(-1, ...blocks.keys());
  if (highest >= layers)
    throw new GgufError(key('block_count'), `${key('block_count')} is ${layers}, but the file has tensors for block ${highest} (blk.${highest}.*)`);
  scalar('nextn_predict_layers', 0, layers);
  checkExperts(scalar, perLayer, key, layers);
  const heads = perLayer('attention.head_count', layers) ?? Array<number>(layers).fill(0);
  const kvHeads = perLayer('attention.head_count_kv', layers) ?? heads;
  const ff = perLayer('feed_forward_length', layers);
  let kvBytesPerToken = 0;
  for (let l = 0; l < layers; l++) {
    const names = blocks.get(l) ?? [];
    /** The value of a per-layer key as the file gives it: the number, or the block's element of an array. */
    const valueOf = (k: string, n: number) => (typeof m.get(key(k)) === 'object' ? `${n} for block ${l}` : `${n}`);
    const attention = names.find(n => ATTENTION_TENSOR.test(n));
    if (attention) {
      const at = `block ${l} has attention tensors (blk.${l}.${attention})`;
      if (heads[l] < 1)
        throw new GgufError(key('attention.head_count'), `${key('attention.head_count')} is ${valueOf('attention.head_count', heads[l])}, but ${at}`);
      if (kvHeads[l] < 1)
        throw new GgufError(
          key('attention.head_count_kv'),
          `${key('attention.head_count_kv')} is ${valueOf('attention.head_count_kv', kvHeads[l])}, but ${at}`,
        );
      if (kvHeads[l] > heads[l])
        throw new GgufError(
          key('attention.head_count_kv'),
          `${key('attention.head_count_kv')} (${valueOf('attention.head_count_kv', kvHeads[l])}) is more than ${key('attention.head_count')} (${heads[l]})`,
        );
      // llama.cpp's head size: the key or value length when given, else the embedding split between the heads.
      const k = keyLength ?? Math.floor((embedding ?? 0) / heads[l]);
      const v = valueLength ?? Math.floor((embedding ?? 0) / heads[l]);
      if (embedding !== undefined && (k < 1 || v < 1))
        throw new GgufError(
          key('attention.head_count'),
          `${key('attention.head_count')} is ${valueOf('attention.head_count', heads[l])}, more than ${key('embedding_length')} (${embedding}): each head would have no dimensions`,
        );
      if (k * heads[l] >= MAX_PRODUCT || v * heads[l] >= MAX_PRODUCT)
        throw new GgufError(
          key('attention.head_count'),
          `${key('attention.head_count')} (${valueOf('attention.head_count', heads[l])}) times the head size (${Math.max(k, v)}) overflows ggml's 32-bit sizes`,
        );
      kvBytesPerToken += (kvLoraRank !== undefined ? kvLoraRank + ropeDims : (k + v) * kvHeads[l]) * KV_ELEMENT_BYTES;
    }
    const ffn = names.find(n => /^ffn_(up|gate|down)\.weight$/.test(n));
    if (ffn && ff && ff[l] < 1)
      throw new GgufError(
        key('feed_forward_length'),
        `${key('feed_forward_length')} is ${valueOf('feed_forward_length', ff[l])}, but block ${l} has feed-forward tensors (blk.${l}.${ffn})`,
      );
  }
  return { architecture, layers, vocabulary, trainedContext, kvBytesPerToken };
}

/** A block's tensors that make it an attention layer (separate, fused or low-rank projections). */
const ATTENTION_TENSOR = /^attn_(q|k|v|qkv|q_a|q_b|kv_a_mqa|kv_b|output)\.weight$/;

/** The tensor names of each block `blk.N.`, without the prefix. */
function blockTensors(f: GgufFile): Map<number, string[]> {
  const blocks = new Map<number, string[]>();
  for (const t of f.tensors) {
    const b = /^blk\.(\d{1,6})\.(.+)$/.exec(t.name);
    if (!b) continue;
    const n = Number(b[1]);
    const names = blocks.get(n) ?? [];
    names.push(b[2]);
    blocks.set(n, names);
  }
  return blocks;
}

/** llama.cpp's assertions on the experts of a mixture of experts (load_hparams), in its order. */
function checkExperts(
  scalar: (k: string, min: number, max?: number) => number | undefined,
  perLayer: (k: string, layers: number) => number[] | undefined,
  key: (k: string) => string,
  layers: number,
): void {
  const experts = scalar('expert_count', 0, MAX_EXPERTS) ?? 0;
  const used = Math.max(0, ...(perLayer('expert_used_count', layers) ?? []));
  const groups = scalar('expert_group_count', 0) ?? 0;
  const groupsUsed = scalar('expert_group_used_count', 0) ?? 0;
  const fail = (k: string, why: string) => {
    throw new GgufError(key(k), `${key(k)} ${why}`);
  };
  if (used > experts) fail('expert_used_count', `(${used}) is more than ${key('expert_count')} (${experts})`);
  if (experts > 0) {
    if (used === 0) fail('expert_used_count', `is 0, but the model has ${experts} experts`);
    if (groups >= experts) fail('expert_group_count', `(${groups}) is not less than ${key('expert_count')} (${experts})`);
    if (groups > 1) {
      if (experts % groups !== 0) fail('expert_group_count', `(${groups}) does not divide ${key('expert_count')} (${experts})`);
      if (groupsUsed < 1 || groupsUsed >= groups) fail('expert_group_used_count', `(${groupsUsed}) must be from 1 to ${groups - 1}`);
    }
  } else if (groups !== 0) fail('expert_group_count', `is ${groups}, but the model has no experts`);
}

/** The special tokens llama.cpp's tokenizer asserts on when the file asks for them to be added (llama-vocab.cpp). */
const SPECIAL_TOKENS = [
  ['bos_token_id', 'add_bos_token'],
  ['eos_token_id', 'add_eos_token'],
  ['seperator_token_id', 'add_sep_token'],
] as const;

/** The vocabulary's size (tokenizer.ggml.tokens, or ARCH.vocab_size), with the special tokens llama.cpp asserts on inside it. */
function checkVocabulary(f: GgufFile, vocabSize: number | undefined): number | undefined {
  const tokens = f.metadata.get('tokenizer.ggml.tokens');
  const n = typeof tokens === 'object' && tokens.array === 'string' ? tokens.length : vocabSize;
  if (n === undefined) return undefined;
  if (n < 1) throw new GgufError('tokenizer.ggml.tokens', 'tokenizer.ggml.tokens is empty: the model has no vocabulary');
  for (const [name, add] of SPECIAL_TOKENS) {
    const k = `tokenizer.ggml.${name}`;
    const v = f.metadata.get(k);
    if (v === undefined || f.metadata.get(`tokenizer.ggml.${add}`) !== true) continue;
    const id = int(v);
    if (id === undefined || id < 0 || id >= n)
      throw new GgufError(k, `${k} is ${shown(v)}, outside the vocabulary of ${n} tokens, and tokenizer.ggml.${add} asks for it in every prompt`);
  }
  return n;
}
