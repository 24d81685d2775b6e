// Every file ART Studio writes goes through here: traces and run summaries, results files and their locks, `art
// improve`'s proposals and its work folder, the .gitignore files, model files and partial downloads, the `art`
// launcher. One rule for all of them: a write never follows a symbolic link it did not expect.
// - The file itself is opened with O_NOFOLLOW: a link where the file goes (dangling or not) is refused, never written
//   through; a file that must be new is opened with O_EXCL as well.
// - Below the folder the write is rooted in (`base`: by default the folder that holds the path's first `.art`, ART
//   Studio's own folder, else the file's own folder), every folder on the way is a real folder, made when missing: a
//   link there is refused, whether it leads out or nowhere.
// - On Linux each of those folders is opened in turn and the next is reached from the one opened
//   (/proc/self/fd/N/NAME), and so is the file: a folder swapped for a link after it was checked is not followed.
//   Elsewhere the folders are checked by their paths, and a folder swapped between that check and the open is.
// What is left anywhere: the folders above `base` are reached by their path (they are the user's, or the roots a
// caller checked), and a file a command names itself is checked (its own kind, core/common/textFile.ts) before it is
// opened, not through the descriptor it is written by.
// test/writes.test.ts keeps every other product file from writing a file or making a folder by itself.
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** Why a write was refused: `message` is one line naming the path (and, for a link, the fix); `kind` says which. */
export class OwnedFileError extends Error {
  constructor(
    message: string,
    readonly kind: 'link' | 'exists' | 'not-regular' | 'cannot',
    readonly code?: string,
  ) {
    super(message);
    this.name = 'OwnedFileError';
  }
}

/** An OwnedFileError from any bundle (`art run` is a bundle of its own, with its own copy of the class). */
export function isOwnedFileError(e: unknown): e is OwnedFileError {
  return e instanceof OwnedFileError || (e instanceof Error && e.name === 'OwnedFileError');
}

/**
 * `new`: the file must not exist (O_EXCL); `replace`: made or emptied; `append`: made or appended to; `update`: as
 * `append`, and readable (a results file's tail is repaired through it).
 */
export type WriteMode = 'new' | 'replace' | 'append' | 'update';

const { O_WRONLY, O_RDWR, O_RDONLY, O_CREAT, O_EXCL, O_TRUNC, O_APPEND } = constants;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
/** A FIFO opened for writing with no reader would block the open forever: it fails at once instead. */
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

const FLAGS: Record<WriteMode, number> = {
  new: O_WRONLY | O_CREAT | O_EXCL,
  replace: O_WRONLY | O_CREAT | O_TRUNC,
  append: O_WRONLY | O_CREAT | O_APPEND,
  update: O_RDWR | O_CREAT | O_APPEND,
};

export interface OwnedPlace {
  /** The folder below which every folder must be a real one (default: the folder holding the path's first `.art`, else the file's own). */
  base?: string;
  /** A new file's permissions (default 0o666, less the umask). */
  mode?: number;
  /** A character device may be written (a trace thrown away into /dev/null); otherwise only a regular file. */
  device?: boolean;
}

/** Whether folders are reached through an open descriptor of their parent (Linux's /proc/self/fd). */
const THROUGH_DESCRIPTORS = process.platform === 'linux' && existsSync('/proc/self/fd');

/** An open folder: its path (for messages) and how a name in it is reached. */
interface Folder {
  path: string;
  at: string;
  fd?: number;
}

const codeOf = (e: unknown) => (e as NodeJS.ErrnoException).code ?? (e as Error).message;

/** The message a link gets, wherever it is. */
function linkMessage(path: string): string {
  let to = '';
  try {
    to = ` to ${readlinkSync(path)}`;
  } catch {
    // gone meanwhile
  }
  return `${path}: a symbolic link${to}: ART Studio writes through no link (one can lead out of the workspace): remove the link, or give the real path`;
}

/** Why `path` may not be written for being a link, or null (it is none, or is not there). */
export function linkProblem(path: string): string | null {
  try {
    return lstatSync(path).isSymbolicLink() ? linkMessage(path) : null;
  } catch {
    return null;
  }
}

/** The error of a failed open or mkdir at `path` (reached as `at`). */
function failure(path: string, e: unknown): OwnedFileError {
  const code = codeOf(e);
  if (linkProblem(path)) return new OwnedFileError(linkMessage(path), 'link', code);
  if (code === 'EEXIST') return new OwnedFileError(`${path}: exists already`, 'exists', code);
  if (code === 'ENOTDIR') return new OwnedFileError(`${path}: not a folder (a file is in the way)`, 'not-regular', code);
  return new OwnedFileError(`${path}: cannot write there (${code})`, 'cannot', code);
}

/** The folder holding the first `.art` of `dir` (ART Studio's own folder), else `dir`. */
function artBase(dir: string): string {
  const parts = dir.split(sep);
  const i = parts.indexOf('.art');
  return i <= 0 ? dir : parts.slice(0, i).join(sep) || sep;
}

/** `base` and the names of the folders from it down to `folder`. */
function route(folder: string, given: string | undefined): { base: string; names: string[] } {
  const base = given === undefined ? artBase(folder) : resolve(given);
  const rel = relative(base, folder);
  if (rel.startsWith(`..${sep}`) || rel === '..' || isAbsolute(rel)) throw new Error(`${folder} is not under ${base}`);
  return { base, names: rel ? rel.split(sep) : [] };
}

function close(f: Folder): void {
  if (f.fd !== undefined) closeSync(f.fd);
}

/** Opens the folder `path` (reached as `at`); `noLink`: refused when it is a link. */
function enter(path: string, at: string, noLink: boolean): Folder {
  if (!THROUGH_DESCRIPTORS) {
    if (noLink && linkProblem(path)) throw new OwnedFileError(linkMessage(path), 'link');
    return { path, at: path };
  }
  try {
    const fd = openSync(at, O_RDONLY | O_DIRECTORY | (noLink ? O_NOFOLLOW : 0));
    return { path, at: `/proc/self/fd/${fd}`, fd };
  } catch (e) {
    throw failure(path, e);
  }
}

/** The folder `folder` opened, every folder below `base` made when missing and refused when it is a link. */
function openFolder(folder: string, given: string | undefined): Folder {
  const { base, names } = route(folder, given);
  if (!existsSync(base))
    try {
      // The user's own part of the path (a folder a command was told to write in), as the system finds it.
      mkdirSync(base, { recursive: true });
    } catch (e) {
      throw failure(base, e);
    }
  let f = enter(base, base, false);
  try {
    for (const name of names) {
      const path = join(f.path, name);
      const at = THROUGH_DESCRIPTORS ? `${f.at}/${name}` : path;
      try {
        mkdirSync(at);
      } catch (e) {
        if (codeOf(e) !== 'EEXIST') throw failure(path, e);
      }
      const next = enter(path, at, true);
      close(f);
      f = next;
    }
    return f;
  } catch (e) {
    close(f);
    throw e;
  }
}

/** Where the name `name` of the open folder `f` is reached. */
const inFolder = (f: Folder, name: string) => (THROUGH_DESCRIPTORS ? `${f.at}/${name}` : join(f.path, name));

/** Makes `folder` and the folders to it below `place.base` (see the top of the file). */
export function makeOwnedFolder(folder: string, place: Pick<OwnedPlace, 'base'> = {}): void {
  const path = resolve(folder);
  close(openFolder(path, place.base ?? artBase(dirname(path))));
}

/** Opens `path` for writing as `mode` says (see the top of the file); the caller closes the descriptor. */
export function openOwnedFile(path: string, mode: WriteMode, place: OwnedPlace = {}): number {
  const file = resolve(path);
  const folder = openFolder(dirname(file), place.base);
  let fd: number;
  try {
    fd = openSync(inFolder(folder, basename(file)), FLAGS[mode] | O_NOFOLLOW | O_NONBLOCK, place.mode ?? 0o666);
  } catch (e) {
    throw failure(file, e);
  } finally {
    close(folder);
  }
  const st = fstatSync(fd);
  if (st.isFile() || (place.device && st.isCharacterDevice())) return fd;
  closeSync(fd);
  throw new OwnedFileError(`${file}: not a regular file: give a file to write`, 'not-regular');
}

/** Writes `data` to `path` as `mode` says (see openOwnedFile). */
export function writeOwnedFile(path: string, data: string | Uint8Array, mode: Exclude<WriteMode, 'update'>, place: OwnedPlace = {}): void {
  const fd = openOwnedFile(path, mode, place);
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at);
  } catch (e) {
    throw new OwnedFileError(`${resolve(path)}: cannot write (${codeOf(e)})`, 'cannot', codeOf(e));
  } finally {
    closeSync(fd);
  }
}

/**
 * Moves the regular file `from` to `to`, never over a file there (a hard link made, then the old name removed, so a
 * file of that name is never replaced); both folders are opened as openOwnedFile opens them.
 */
export function moveOwnedFile(from: string, to: string, place: Pick<OwnedPlace, 'base'> = {}): void {
  const [src, dst] = [resolve(from), resolve(to)];
  const a = openFolder(dirname(src), place.base);
  try {
    const b = openFolder(dirname(dst), place.base);
    try {
      const [x, y] = [inFolder(a, basename(src)), inFolder(b, basename(dst))];
      let st;
      try {
        st = lstatSync(x);
      } catch (e) {
        throw failure(src, e);
      }
      if (st.isSymbolicLink()) throw new OwnedFileError(linkMessage(src), 'link');
      if (!st.isFile()) throw new OwnedFileError(`${src}: not a regular file`, 'not-regular');
      try {
        linkSync(x, y);
      } catch (e) {
        const code = codeOf(e);
        // A file system without hard links: the name is checked, then the file renamed (a window remains there).
        if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'ENOTSUP') throw failure(dst, e);
        if (existsSync(y) || linkProblem(dst)) throw new OwnedFileError(`${dst}: exists already`, 'exists', 'EEXIST');
        renameSync(x, y);
        return;
      }
      unlinkSync(x);
    } finally {
      close(b);
    }
  } finally {
    close(a);
  }
}
