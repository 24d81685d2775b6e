// Getting a model's files over HTTP (`art model pull`, *Download a Local Model…*: core/model/modelFiles.ts), written
// here rather than left to node-llama-cpp's downloader, which a hostile mirror could steer: it re-sent the user's
// HF_TOKEN after a redirect to another origin, opened a socket per part of a split model of 5,000 parts and went on
// after SIGTERM, named the file as the server's Content-Disposition said, wrote through a planted progress file, and
// reported a download cut short as whole. Here:
// - the token goes only to the hub's own origin (scheme, host and port), never after a redirect leaves it
//   (core/model/fetch.ts); a URL of another origin gets none;
// - the files are named from the URI alone (a plain `.gguf` file name), never from the server's headers; a split model
//   has at most MAX_PARTS parts, fetched one after the other over one connection at a time;
// - every byte is checked against the size the server announced (a body shorter or longer is refused), a body without a
//   length must be chunked (so a cut is seen) and stops at the cap and the disk's free space; each file must begin as a
//   GGUF file does;
// - the signal ends the download at once (the CLI's SIGINT and SIGTERM, the editor's Cancel), as does a server that
//   sends nothing for IDLE_MS (the manifest, a few hundred bytes, must come whole within it);
// - the progress file (`.partial/NAME.ipull`, beside it `NAME.ipull.json` naming the URL, size and ETag it is of) is
//   written through core/common/ownedFiles.ts (no link followed); one that does not match is not resumed but started
//   over, one that is a link is refused.
import { closeSync, fstatSync, openSync, readSync, rmSync, statfsSync, statSync, writeSync } from 'node:fs';
import { basename } from 'node:path';
import { linkProblem, openOwnedFile, writeOwnedFile } from '../common/ownedFiles';
import { readTextFile, TextFileError } from '../common/textFile';
import { redirectingFetch } from './fetch';

/** The most parts a split model may have (the largest on the hub have a few dozen). */
export const MAX_PARTS = 128;
/** The most one file may hold when its server announces no length (and, announced, the most it may announce). */
export const MAX_FILE_BYTES = 64 * 2 ** 30;
/** A download never leaves less free space than this on the models folder's disk. */
const FREE_RESERVE = 256 * 2 ** 20;
/** A server that sends nothing for this long has stalled (PullOptions.idleMs). */
export const IDLE_MS = 60_000;
/** A manifest is a few hundred bytes. */
const MAX_MANIFEST_BYTES = 1 << 20;

/** Why a download did not give a file: one line (the caller puts the URI before it). */
export class DownloadError extends Error {}

/** Where `hf:` URIs resolve, and the token for it (HF_TOKEN), which goes to that origin only. */
export interface HubAccess {
  /** The hub's base URL, ending in `/`. */
  hub: string;
  token?: string;
}

/** One file of a model: where it is fetched from, and its name in the models folder. */
export interface ModelPart {
  url: string;
  name: string;
}

/** The message of a size: `1.2 GB`, `64 KB`. */
export function bytesText(n: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let i = 0;
  for (; n >= 1024 && i < units.length - 1; i++) n /= 1024;
  return `${i ? n.toFixed(n < 10 ? 1 : 0).replace(/\.0$/, '') : n} ${units[i]}`;
}

/** A URL as messages show it: no user, password or query. */
const shownUrl = (u: string) => {
  try {
    const url = new URL(u);
    return `${url.origin}${url.pathname}`;
  } catch {
    return '(not a URL)';
  }
};

/** A plain GGUF file name: no folder, no leading dot, nothing a shell or a file system reads as more. */
const PLAIN_NAME = /^[A-Za-z0-9_][A-Za-z0-9._+()[\]-]{0,199}\.gguf$/i;
/** The parts of a split model: NAME-00001-of-00003.gguf. */
const SPLIT = /^(.*)-(\d{5})-of-(\d{5})\.gguf$/i;

function plainName(name: string): string {
  if (!PLAIN_NAME.test(name))
    throw new DownloadError(
      `the file is named ${JSON.stringify(name.slice(0, 80))}, which is not a plain .gguf file name: give the URI of a .gguf file (hf:owner/repo/file.gguf)`,
    );
  return name;
}

/** Every part of the model whose (first) file is `url`, named `name`: one, or each part of a split model. */
function partsOf(url: string, name: string): ModelPart[] {
  const split = SPLIT.exec(plainName(name));
  if (!split) return [{ url, name }];
  const total = Number(split[3]);
  if (total < 1 || Number(split[2]) > total)
    throw new DownloadError(`the file ${name} names part ${split[2]} of ${split[3]}: not a split model's part`);
  if (total > MAX_PARTS)
    throw new DownloadError(
      `the model is split into ${total} parts, more than the ${MAX_PARTS} art model pull takes: check the URI and the hub (HF_ENDPOINT)`,
    );
  const at = url.lastIndexOf(encodeURIComponent(name));
  return Array.from({ length: total }, (_, i) => {
    const part = `${split[1]}-${String(i + 1).padStart(5, '0')}-of-${split[3]}${name.slice(-'.gguf'.length)}`;
    return { url: at < 0 ? url : `${url.slice(0, at)}${encodeURIComponent(part)}${url.slice(at + encodeURIComponent(name).length)}`, name: part };
  });
}

/** fetch with the token on the hub's origin only, following redirects without it (core/model/fetch.ts). */
function hubFetch(url: string, access: HubAccess, headers: Record<string, string>, signal?: AbortSignal): Promise<Response> {
  const toHub = access.token && new URL(url).origin === new URL(access.hub).origin;
  return redirectingFetch(
    url,
    { headers: { ...headers, ...(toHub ? { authorization: `Bearer ${access.token}` } : {}) }, signal },
    'without-credentials',
  );
}

/** The most of a failed answer's body that is read for its message (a hostile mirror's may never end). */
const MAX_REFUSAL_BYTES = 4096;

/**
 * What a failed answer says, in one line: its status and, when it is a short JSON error, its message (the body read
 * no further than MAX_REFUSAL_BYTES).
 */
async function refusal(res: Response): Promise<string> {
  let detail = '';
  try {
    const text = (await bodyUpTo(res, MAX_REFUSAL_BYTES)) ?? '';
    const json = JSON.parse(text) as { error?: unknown };
    const e = json.error;
    detail = typeof e === 'string' ? e : typeof (e as { message?: unknown })?.message === 'string' ? (e as { message: string }).message : '';
  } catch {
    // not a JSON error
  }
  detail = detail.replace(/\s+/g, ' ').trim().slice(0, 200);
  return `answered ${res.status}${detail ? ` (${detail})` : ''}`;
}

/**
 * `outer` that also aborts once `ms` pass with nothing coming: `still()` says something came, `stalled` whether that
 * is why it aborted, `done()` stops the timer.
 */
function idleSignal(ms: number, outer?: AbortSignal) {
  const idle = new AbortController();
  let timer = setTimeout(() => idle.abort(), ms);
  return {
    signal: outer ? AbortSignal.any([outer, idle.signal]) : idle.signal,
    get stalled() {
      return idle.signal.aborted;
    },
    still() {
      clearTimeout(timer);
      timer = setTimeout(() => idle.abort(), ms);
    },
    done: () => clearTimeout(timer),
  };
}

/** A time in the messages: `60 s`, `0.2 s`. */
const seconds = (ms: number) => `${ms / 1000} s`;

/** The hub's URL of `path` in `owner/repo` at `branch`, each segment encoded. */
function resolveUrl(hub: string, owner: string, repo: string, branch: string, path: string): string {
  const enc = (s: string) => s.split('/').map(encodeURIComponent).join('/');
  return `${hub}${enc(owner)}/${enc(repo)}/resolve/${encodeURIComponent(branch)}/${enc(path)}`;
}

/**
 * The files `uri` names: `hf:owner/repo/path/file.gguf[#branch]` on the hub, `hf:owner/repo[:quant]` through the hub's
 * manifest (the file it names for that quantization), or an http(s) URL; a split model's every part.
 */
export async function resolveModel(uri: string, access: HubAccess, signal?: AbortSignal, idleMs = IDLE_MS): Promise<ModelPart[]> {
  const hf = /^(?:hf:\/\/|hf:|huggingface:)([^/]+)\/([^/#]+)(?:\/([^#]+))?(?:#(.+))?$/.exec(uri);
  if (hf) {
    const [, owner, repoTag, path, branch] = hf;
    if (path) return partsOf(resolveUrl(access.hub, owner, repoTag, branch ?? 'main', path), basename(path));
    const [repo, tag = 'latest'] = repoTag.split(':');
    return partsOf(...(await manifestFile(access, owner, repo, tag, signal, idleMs)));
  }
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new DownloadError('not a model URI: give hf:owner/repo/file.gguf, hf:owner/repo:quant or an https URL of a .gguf file');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new DownloadError(`a ${url.protocol} URL: give hf:owner/repo/file.gguf, hf:owner/repo:quant or an https URL of a .gguf file`);
  let name: string;
  try {
    name = decodeURIComponent(url.pathname.slice(url.pathname.lastIndexOf('/') + 1));
  } catch {
    name = url.pathname;
  }
  return partsOf(url.href, name);
}

/**
 * The file the hub's manifest names for `owner/repo` at `tag` (a quantization), as [url, name]; a manifest is a few
 * hundred bytes, so the whole answer must come within `idleMs`.
 */
async function manifestFile(
  access: HubAccess,
  owner: string,
  repo: string,
  tag: string,
  outer: AbortSignal | undefined,
  idleMs: number,
): Promise<[string, string]> {
  const url = `${access.hub}v2/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/manifests/${encodeURIComponent(tag)}`;
  const idle = idleSignal(idleMs, outer);
  let text: string;
  try {
    // The hub names the GGUF file in its manifest only to llama.cpp's user agent.
    const res = await hubFetch(url, access, { 'user-agent': 'llama-cpp', accept: 'application/json' }, idle.signal);
    if (!res.ok)
      throw new DownloadError(`the hub ${await refusal(res)} for the manifest of ${owner}/${repo}:${tag}: check the name and the quantization`);
    text = await boundedText(res, MAX_MANIFEST_BYTES);
  } catch (e) {
    if (idle.stalled && !outer?.aborted)
      throw new DownloadError(
        `the hub answered nothing for ${seconds(idleMs)} for the manifest of ${owner}/${repo}:${tag}: check the hub (HF_ENDPOINT) and the network`,
      );
    throw e;
  } finally {
    idle.done();
  }
  let name: unknown;
  try {
    name = (JSON.parse(text) as { ggufFile?: { rfilename?: unknown } }).ggufFile?.rfilename;
  } catch {
    name = undefined;
  }
  if (typeof name !== 'string')
    throw new DownloadError(`the hub's manifest of ${owner}/${repo}:${tag} names no GGUF file: give hf:owner/repo/file.gguf`);
  return [resolveUrl(access.hub, owner, repo, 'main', name), basename(name)];
}

async function boundedText(res: Response, max: number): Promise<string> {
  const text = await bodyUpTo(res, max);
  if (text === undefined) throw new DownloadError(`the hub's answer is longer than ${bytesText(max)}`);
  return text;
}

/** A body as text when it holds at most `max` bytes; undefined past them, the rest not read (the answer given up). */
async function bodyUpTo(res: Response, max: number): Promise<string | undefined> {
  const chunks: Uint8Array[] = [];
  let n = 0;
  const reader = res.body?.getReader();
  try {
    for (let r = await reader?.read(); r && !r.done; r = await reader!.read()) {
      if ((n += r.value.length) > max) return undefined;
      chunks.push(r.value);
    }
  } finally {
    await reader?.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * What `NAME.ipull.json` says of the progress file beside it: the file's path on its server (the same on a mirror or
 * another port), the size announced and the ETag, which the server is asked to match (If-Range) when resuming.
 */
interface Progress {
  path: string;
  size: number | null;
  etag: string | null;
}

/**
 * What a progress file's description says, undefined when there is none or it says nothing this pull can use (the
 * download starts over); one that is no regular file (a FIFO would block the read for good) is a DownloadError.
 */
function readProgress(path: string): Progress | undefined {
  let text: string;
  try {
    text = readTextFile(path, 4096);
  } catch (e) {
    if (!(e instanceof TextFileError) || e.kind === 'missing' || e.kind === 'too-large' || e.kind === 'not-text') return undefined;
    throw new DownloadError(`${path}: ${e.message}, not a description art model pull wrote: remove it, then pull again`);
  }
  try {
    const p = JSON.parse(text) as Progress;
    return p && typeof p.path === 'string' && (p.size === null || Number.isSafeInteger(p.size)) && (p.etag === null || typeof p.etag === 'string')
      ? p
      : undefined;
  } catch {
    return undefined;
  }
}

/** Bytes free for a download into `dir`, the reserve kept; Infinity where the system cannot say. */
function freeBytes(dir: string): number {
  try {
    const s = statfsSync(dir);
    return Number(s.bavail) * Number(s.bsize) - FREE_RESERVE;
  } catch {
    return Infinity;
  }
}

export interface PartDownload {
  part: ModelPart;
  /** The models folder: the progress files are under its `.partial/`. */
  dir: string;
  access: HubAccess;
  signal?: AbortSignal;
  /** The most a file without an announced length may hold (default MAX_FILE_BYTES). */
  maxBytes?: number;
  /** How long the server may send nothing (default IDLE_MS). */
  idleMs?: number;
  /** Bytes added to the file (and, once announced, its whole size). */
  onBytes(added: number, size: number | undefined): void;
  /** A line for the log (a progress file not resumed). */
  log?(line: string): void;
}

/** The progress file of a part, and its description beside it. */
export const progressFile = (dir: string, name: string) => `${dir}/.partial/${name}.ipull`;

/**
 * Downloads one file into its progress file, resuming what a matching progress file holds, and returns the progress
 * file's path once it holds exactly the size announced (or, unannounced, the whole chunked body).
 */
export async function downloadPart(d: PartDownload): Promise<string> {
  const partial = progressFile(d.dir, d.part.name);
  const about = `${partial}.json`;
  const link = linkProblem(partial) ?? linkProblem(about);
  if (link) throw new DownloadError(link);
  const known = readProgress(about);
  let have = 0;
  try {
    have = statSync(partial).size;
  } catch {
    have = 0;
  }
  const url = shownUrl(d.part.url);
  const path = new URL(d.part.url).pathname;
  if (have > 0 && !(known && known.path === path && known.size !== null && have <= known.size)) {
    d.log?.(`${partial}: not a download of ${url} this pull can resume (it does not match what it says it is): started over`);
    have = 0;
  }
  if (known && have > 0 && have === known.size) {
    d.onBytes(have, have);
    return partial;
  }
  const idleMs = d.idleMs ?? IDLE_MS;
  const idle = idleSignal(idleMs, d.signal);
  const signal = idle.signal;
  try {
    const range: Record<string, string> = have > 0 ? { range: `bytes=${have}-`, ...(known?.etag ? { 'if-range': known.etag } : {}) } : {};
    const res = await hubFetch(d.part.url, d.access, { 'user-agent': 'art-studio', ...range }, signal);
    let start = 0;
    let size: number | undefined;
    if (res.status === 206 && have > 0) {
      const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(res.headers.get('content-range') ?? '');
      if (!m || Number(m[1]) !== have || Number(m[3]) !== known?.size) {
        rmSync(partial, { force: true });
        throw new DownloadError(`${url}: the hub answered a part that is not the rest of the file: run the same pull again (it starts over)`);
      }
      start = have;
      size = Number(m[3]);
    } else if (res.status === 200) {
      const length = res.headers.get('content-length');
      size = length !== null && /^\d+$/.test(length) ? Number(length) : undefined;
    } else throw new DownloadError(`${url}: the hub ${await refusal(res)}`);
    if (size === undefined && !/chunked/i.test(res.headers.get('transfer-encoding') ?? ''))
      throw new DownloadError(
        `${url}: the server announced no size, and a body without one or chunks cannot be told whole from cut short: use a server that sends Content-Length`,
      );
    const limit = size ?? Math.min(d.maxBytes ?? MAX_FILE_BYTES, MAX_FILE_BYTES);
    if (size !== undefined && size > MAX_FILE_BYTES)
      throw new DownloadError(
        `${url}: the server announces ${bytesText(size)}, more than the ${bytesText(MAX_FILE_BYTES)} art model pull takes for a file`,
      );
    if (size !== undefined && size - start > freeBytes(d.dir))
      throw new DownloadError(
        `${url}: ${bytesText(size - start)} to download and not that much free space in ${d.dir}: free some, or pull into another folder (--dir)`,
      );
    if (start === 0)
      writeOwnedFile(about, `${JSON.stringify({ path, size: size ?? null, etag: res.headers.get('etag') } satisfies Progress)}\n`, 'replace', {
        base: d.dir,
      });
    const fd = openOwnedFile(partial, start === 0 ? 'replace' : 'append', { base: d.dir });
    let written = start;
    // What cannot be resumed is not kept: a body without a size (nothing says where it ends), or one past its size.
    let keep = size !== undefined;
    try {
      if (fstatSync(fd).size !== start) throw new DownloadError(`${partial}: changed while the pull read it: run the same pull again`);
      d.onBytes(start, size);
      let free = freeBytes(d.dir);
      for await (const chunk of res.body ?? []) {
        const bytes = chunk as Uint8Array;
        idle.still();
        if (written + bytes.length > limit) {
          keep = false;
          throw new DownloadError(
            size !== undefined
              ? `${url}: the server sent more than the ${bytesText(size)} it announced: check the hub (HF_ENDPOINT)`
              : `${url}: the server announced no size and sent more than ${bytesText(limit)}, the most art model pull takes without one`,
          );
        }
        if ((free -= bytes.length) < 0 && (free = freeBytes(d.dir) - bytes.length) < 0)
          throw new DownloadError(
            `${url}: the disk of ${d.dir} is full but for the reserve: free some space, then run the same pull again to resume`,
          );
        for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at);
        written += bytes.length;
        d.onBytes(bytes.length, size);
      }
    } catch (e) {
      if (!keep) rmSync(partial, { force: true });
      if (e instanceof DownloadError || d.signal?.aborted) throw e;
      if (idle.stalled) throw new DownloadError(`${url}: the server sent nothing for ${seconds(idleMs)}: run the same pull again to resume`);
      const cause = (e as { cause?: { code?: string } }).cause?.code ?? (e as NodeJS.ErrnoException).code ?? (e as Error).message;
      throw new DownloadError(`${url}: the download broke off after ${bytesText(written)} (${cause}): run the same pull again to resume`);
    } finally {
      closeSync(fd);
    }
    if (size !== undefined && written !== size)
      throw new DownloadError(`${url}: cut short at ${bytesText(written)} of the ${bytesText(size)} announced: run the same pull again to resume`);
    return partial;
  } catch (e) {
    if (d.signal?.aborted) throw d.signal.reason ?? e;
    if (e instanceof DownloadError) throw e;
    if (idle.stalled)
      throw new DownloadError(`${url}: the server answered nothing for ${seconds(idleMs)}: check the hub (HF_ENDPOINT) and the network`);
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    throw new DownloadError(`${url}: ${cause?.code ?? cause?.message ?? (e as Error).message}: check the hub (HF_ENDPOINT) and the network`);
  } finally {
    idle.done();
  }
}

/** Whether the file begins as a GGUF file does (its magic). */
export function looksGguf(path: string): boolean {
  const head = Buffer.alloc(4);
  try {
    const fd = openSync(path, 'r');
    try {
      return readSync(fd, head, 0, 4, 0) === 4 && head.toString('latin1') === 'GGUF';
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
}
