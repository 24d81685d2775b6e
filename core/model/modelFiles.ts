// Local model files: the models folder outside any workspace, the GGUF files in it, and getting one (`art model pull`,
// the editor's *Download a Local Model…*) with node-llama-cpp's own resolver: `hf:owner/repo/file.gguf` and
// `hf:owner/repo:quant` URIs or plain https URLs, with progress and cancellation. A download is written in the
// folder's `.partial/` and moved beside the other models only once it is whole (and, for the default model, its
// SHA-256 checked): node-llama-cpp 3.21.1 names a download cancelled in-process as if it were finished (its progress
// file renamed, trailer and all), so a cancelled pull gives that file its progress name back (`*.ipull`) and never
// leaves a file under a model's name. A pull cancelled, failed or whose process was killed leaves the downloader's
// progress file in `.partial/`, and the same pull resumes it (the parts already whole are not fetched again). The hub is
// `HF_ENDPOINT` or `MODEL_ENDPOINT` when set (a mirror), else huggingface.co; `hubEndpoint` overrides it (the tests'
// local server).
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_LOCAL_MODEL } from './defaultModel';
import { llamaModule, type LlamaModule } from './localRuntime';

/** The models folder: $ART_MODELS_DIR, else $XDG_CACHE_HOME/art-studio/models, else ~/.cache/art-studio/models. */
export function modelsFolder(env: NodeJS.ProcessEnv = process.env): string {
  if (env.ART_MODELS_DIR) return env.ART_MODELS_DIR;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'art-studio', 'models');
}

export interface LocalModelFile {
  /** The file name, e.g. gemma-3-270m-q4_k_m.gguf. */
  name: string;
  path: string;
  bytes: number;
  /** When it was written (ISO). */
  modified: string;
  /** The default model's name when this is its file. */
  known?: string;
}

/** The GGUF files of `dir` (none when it does not exist), by name. Partial downloads are not listed. */
export function listModelFiles(dir: string): LocalModelFile[] {
  if (!existsSync(dir)) return [];
  return (
    readdirSync(dir, { withFileTypes: true })
      // A split model (NAME-00001-of-00003.gguf, ...) is loaded from its first part: the others are not listed.
      .filter(e => e.isFile() && e.name.toLowerCase().endsWith('.gguf') && !/-(?!0*1-of)\d+-of-\d+\.gguf$/i.test(e.name))
      .map(e => {
        const path = join(dir, e.name);
        const st = statSync(path);
        return {
          name: e.name,
          path,
          bytes: st.size,
          modified: st.mtime.toISOString(),
          ...(e.name === DEFAULT_LOCAL_MODEL.file ? { known: DEFAULT_LOCAL_MODEL.name } : {}),
        };
      })
      .sort((a, b) => a.name.localeCompare(b.name))
  );
}

/** A file's SHA-256 (hex), streamed. */
export async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export interface PullProgress {
  downloadedBytes: number;
  totalBytes: number;
}

export interface PullOptions {
  /** What to get (default: the default model's URI). */
  uri?: string;
  /** Where to put it (default: modelsFolder()). */
  dir?: string;
  /** The hub for `hf:` URIs (default: HF_ENDPOINT, MODEL_ENDPOINT, else huggingface.co). */
  hubEndpoint?: string;
  onProgress?: (p: PullProgress) => void;
  signal?: AbortSignal;
}

/** A pull that did not give a model file: the message is one line naming the URI and what to do. */
export class PullError extends Error {}

/**
 * Downloads a model into the models folder and returns its path. The default model keeps its own file name and its
 * SHA-256 is checked (a file whose digest differs is refused and removed). The default model already there with its
 * digest is not downloaded again. `signal` cancels: PullError 'cancelled', and no file under a model's name.
 */
export async function pullModel(opts: PullOptions = {}): Promise<string> {
  const uri = opts.uri?.trim() || DEFAULT_LOCAL_MODEL.uri;
  const dir = opts.dir ?? modelsFolder();
  const isDefault = uri === DEFAULT_LOCAL_MODEL.uri;
  const staging = join(dir, '.partial');
  mkdirSync(staging, { recursive: true });
  if (isDefault) {
    const existing = join(dir, DEFAULT_LOCAL_MODEL.file);
    if (existsSync(existing) && statSync(existing).size === DEFAULT_LOCAL_MODEL.bytes && (await fileSha256(existing)) === DEFAULT_LOCAL_MODEL.sha256)
      return existing;
  }
  let createModelDownloader: LlamaModule['createModelDownloader'];
  try {
    ({ createModelDownloader } = await llamaModule());
  } catch (e) {
    throw new PullError(`${uri}: ${oneLine(e)}`);
  }
  let downloader: Awaited<ReturnType<LlamaModule['createModelDownloader']>>;
  try {
    // Resolving asks the hub for the file's size and parts; it takes no signal, so a cancel does not wait for it (an
    // unreachable hub answers only when the connection times out, minutes later).
    downloader = await untilAborted(
      createModelDownloader({
        modelUri: uri,
        dirPath: staging,
        ...(isDefault ? { fileName: DEFAULT_LOCAL_MODEL.file } : {}),
        ...(opts.hubEndpoint ? { endpoints: { huggingFace: opts.hubEndpoint } } : {}),
        deleteTempFileOnCancel: false,
        onProgress: s => opts.onProgress?.({ downloadedBytes: s.downloadedSize, totalBytes: s.totalSize }),
      }),
      opts.signal,
    );
  } catch (e) {
    if (opts.signal?.aborted) throw new PullError(`${uri}: cancelled; nothing was added to ${dir}`);
    throw new PullError(
      `${uri}: cannot resolve the model (${oneLine(e)}): check the URI (hf:owner/repo/file.gguf, hf:owner/repo:quant or an https URL) and the network; HF_ENDPOINT sets a mirror`,
    );
  }
  const cancelled = () => {
    // The downloader named each unfinished progress file as the model (every part of a split model): named back, the
    // next pull resumes it; a part already whole stays in `.partial/` and the next pull does not fetch it again.
    for (const f of downloader.filesInfo) if (f.downloadedSize < f.totalSize && existsSync(f.filePath)) renameSync(f.filePath, `${f.filePath}.ipull`);
    return new PullError(`${uri}: cancelled; nothing was added to ${dir} (the part downloaded is kept: the same pull resumes it)`);
  };
  if (opts.signal?.aborted) throw cancelled();
  let partial: string;
  try {
    partial = await downloader.download({ signal: opts.signal });
  } catch (e) {
    if (opts.signal?.aborted) throw cancelled();
    throw new PullError(`${uri}: the download failed (${oneLine(e)}): run the same pull again to resume it`);
  }
  if (opts.signal?.aborted) throw cancelled();
  if (isDefault) {
    const digest = await fileSha256(partial);
    if (digest !== DEFAULT_LOCAL_MODEL.sha256) {
      rmSync(partial, { force: true });
      throw new PullError(
        `${uri}: the file downloaded has SHA-256 ${digest}, not ${DEFAULT_LOCAL_MODEL.name}'s (${DEFAULT_LOCAL_MODEL.file}, ${DEFAULT_LOCAL_MODEL.sha256}); it was removed: check the hub (HF_ENDPOINT) and pull again`,
      );
    }
  }
  // Every file of the model beside the others (a split model's parts load from its first), the entry point last.
  const entry = basename(partial);
  for (const f of [...downloader.filesInfo].sort((a, b) => Number(a.fileName === entry) - Number(b.fileName === entry)))
    renameSync(f.filePath, join(dir, f.fileName));
  return join(dir, entry);
}

/** `work`, or a rejection as soon as `signal` aborts (the work itself goes on unobserved). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error('cancelled'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function oneLine(e: unknown): string {
  const s = e instanceof Error ? e.message : String(e);
  return s.split('\n')[0].slice(0, 200);
}
