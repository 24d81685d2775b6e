// Local model files: the models folder outside any workspace, the GGUF files in it, and getting one (`art model pull`,
// the editor's *Download a Local Model…*): `hf:owner/repo/file.gguf` and `hf:owner/repo:quant` URIs or plain https
// URLs, with progress and cancellation, fetched by core/model/download.ts (which bounds what a hostile mirror can do:
// the token, the parts, the sizes, the names, the progress files). A download is written in the folder's `.partial/`
// and moved beside the other models only once it is whole (and, for the default model, its SHA-256 checked), never
// over a file already there; a pull cancelled, failed or whose process was killed leaves its progress file in
// `.partial/`, and the same pull resumes it (the files already whole are not fetched again). The hub is `HF_ENDPOINT`
// or `MODEL_ENDPOINT` when set (a mirror), else huggingface.co; `hubEndpoint` overrides it (the tests' local server).
// The token is HF_TOKEN, else the file huggingface-cli writes (HF_TOKEN_PATH, else HF_HOME/token, else
// ~/.cache/huggingface/token), and goes to the hub's origin only.
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { makeOwnedFolder, moveOwnedFile, OwnedFileError, linkProblem } from '../common/ownedFiles';
import { Redactor, urlSecrets } from '../common/redact';
import { DEFAULT_LOCAL_MODEL } from './defaultModel';
import { bytesText, DownloadError, downloadPart, looksGguf, resolveModel, type HubAccess, type ModelPart } from './download';

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
  /** Where HF_ENDPOINT, MODEL_ENDPOINT and the token are read (default: the process's environment). */
  env?: NodeJS.ProcessEnv;
  /** The most a file whose server announces no length may hold (default 64 GB: core/model/download.ts). */
  maxBytes?: number;
  /** How long a server may send nothing before the pull gives up (default 60 s: core/model/download.ts). */
  idleMs?: number;
  onProgress?: (p: PullProgress) => void;
  /** A line for the log (a progress file not resumed). */
  log?: (line: string) => void;
  signal?: AbortSignal;
}

/** A pull that did not give a model file: the message is one line naming the URI and what to do. */
export class PullError extends Error {}

/** The hub and its token, as `env` says. */
function hubAccess(opts: PullOptions, env: NodeJS.ProcessEnv): HubAccess {
  const given = [opts.hubEndpoint, env.HF_ENDPOINT, env.MODEL_ENDPOINT].find(u => {
    try {
      return !!u && /^https?:$/.test(new URL(u).protocol);
    } catch {
      return false;
    }
  });
  const hub = given ? given.replace(/\/*$/, '/') : 'https://huggingface.co/';
  return { hub, token: hubToken(env) };
}

/** HF_TOKEN, else the token file huggingface-cli writes. */
function hubToken(env: NodeJS.ProcessEnv): string | undefined {
  if (env.HF_TOKEN) return env.HF_TOKEN;
  const file = env.HF_TOKEN_PATH || join(env.HF_HOME || join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'huggingface'), 'token');
  try {
    if (statSync(file).size > 4096) return undefined;
    return readFileSync(file, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Downloads a model into the models folder and returns its path. The default model keeps its own file name and its
 * SHA-256 is checked (a file whose digest differs is refused and removed). The default model already there with its
 * digest is not downloaded again; any other file already there under a name the pull would write is never replaced.
 * `signal` cancels: PullError 'cancelled', and no file under a model's name.
 */
export async function pullModel(opts: PullOptions = {}): Promise<string> {
  const uri = opts.uri?.trim() || DEFAULT_LOCAL_MODEL.uri;
  const dir = opts.dir ?? modelsFolder();
  const isDefault = uri === DEFAULT_LOCAL_MODEL.uri;
  const access = hubAccess(opts, opts.env ?? process.env);
  // No line shows the token (a mirror may echo it), nor a password or query of the hub's URL or the URI (fetch names
  // a URL with credentials in its error; a signed URL's signature sits in its query).
  const hide = new Redactor([access.token, ...urlSecrets(access.hub), ...urlSecrets(uri)]);
  const fail = (why: string) => new PullError(hide.redact(`${uri}: ${why}`));
  const cancelled = () => fail(`cancelled; nothing was added to ${dir} (the part downloaded is kept: the same pull resumes it)`);
  try {
    makeOwnedFolder(join(dir, '.partial'), { base: dir });
  } catch (e) {
    if (e instanceof OwnedFileError) throw fail(e.message);
    throw e;
  }
  const defaultThere = join(dir, DEFAULT_LOCAL_MODEL.file);
  if (
    isDefault &&
    existsSync(defaultThere) &&
    statSync(defaultThere).size === DEFAULT_LOCAL_MODEL.bytes &&
    (await fileSha256(defaultThere)) === DEFAULT_LOCAL_MODEL.sha256
  )
    return defaultThere;
  let parts: ModelPart[];
  try {
    parts = await resolveModel(uri, access, opts.signal, opts.idleMs);
  } catch (e) {
    if (opts.signal?.aborted) throw cancelled();
    if (e instanceof DownloadError) throw fail(e.message);
    const cause = (e as { cause?: { code?: string } }).cause?.code ?? (e as Error).message;
    throw fail(
      `cannot resolve the model (${cause}): check the URI (hf:owner/repo/file.gguf, hf:owner/repo:quant or an https URL) and the network; HF_ENDPOINT sets a mirror`,
    );
  }
  // A model file is never replaced under another model's name (a hub may name its file as any other): only the
  // default model's own file, whose digest is wrong (checked above), is replaced by a pull of the default model.
  for (const p of parts) {
    const there = join(dir, p.name);
    if ((existsSync(there) || linkProblem(there)) && !(isDefault && there === defaultThere))
      throw fail(`${there} exists already: art model pull replaces no file in the models folder; remove or move it, then pull again`);
  }
  const sizes = new Map<string, number>();
  let downloaded = 0;
  const report = () => opts.onProgress?.({ downloadedBytes: downloaded, totalBytes: [...sizes.values()].reduce((a, b) => a + b, 0) });
  const partials: string[] = [];
  for (const part of parts) {
    if (opts.signal?.aborted) throw cancelled();
    try {
      partials.push(
        await downloadPart({
          part,
          dir,
          access,
          signal: opts.signal,
          maxBytes: opts.maxBytes,
          idleMs: opts.idleMs,
          log: opts.log,
          onBytes: (added, size) => {
            downloaded += added;
            if (size !== undefined) sizes.set(part.name, size);
            report();
          },
        }),
      );
    } catch (e) {
      if (opts.signal?.aborted) throw cancelled();
      if (e instanceof DownloadError || e instanceof OwnedFileError) throw fail(e.message);
      throw e;
    }
  }
  if (opts.signal?.aborted) throw cancelled();
  const notGguf = partials.find(p => !looksGguf(p));
  if (notGguf) {
    const size = bytesText(statSize(notGguf));
    rmSync(notGguf, { force: true });
    throw fail(`the file downloaded (${size}) is not a GGUF file; it was removed: check the URI and the hub (HF_ENDPOINT)`);
  }
  if (isDefault) {
    const digest = await fileSha256(partials[0]);
    if (digest !== DEFAULT_LOCAL_MODEL.sha256) {
      rmSync(partials[0], { force: true });
      throw fail(
        `the file downloaded has SHA-256 ${digest}, not ${DEFAULT_LOCAL_MODEL.name}'s (${DEFAULT_LOCAL_MODEL.file}, ${DEFAULT_LOCAL_MODEL.sha256}); it was removed: check the hub (HF_ENDPOINT) and pull again`,
      );
    }
    // The default model's own file with a wrong digest (a download cut by an older version) gives way to it.
    rmSync(defaultThere, { force: true });
  }
  // Every file of the model beside the others (a split model's parts load from its first), the first one last.
  try {
    for (let i = parts.length - 1; i >= 0; i--) {
      moveOwnedFile(partials[i], join(dir, parts[i].name), { base: dir });
      rmSync(`${partials[i]}.json`, { force: true });
    }
  } catch (e) {
    if (e instanceof OwnedFileError) throw fail(e.message);
    throw e;
  }
  return join(dir, parts[0].name);
}

function statSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
