// Reading a file the user names (a task library, an agent spec, a trace, the tool file) as text: the one place that
// refuses what is not a regular text file before reading it. A FIFO would block the read forever, a file past V8's
// string limit fails with ERR_STRING_TOO_LONG, and a binary file would be "checked" as garbage text.
import { isAscii } from 'node:buffer';
import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { linkProblem } from './ownedFiles';

/** Larger files are refused before they are read (V8's longest string is about 512 MB; a library is kilobytes). */
export const MAX_TEXT_FILE_BYTES = 100 * 1024 * 1024;

/** Where the NUL bytes of a binary file are looked for. */
const SNIFF_BYTES = 8192;

export type TextFileProblemKind = 'missing' | 'directory' | 'not-regular' | 'too-large' | 'not-text' | 'unreadable';

/** Why a file could not be read as text: `message` is the part after `PATH: `, without the fix (callers add theirs). */
export class TextFileError extends Error {
  constructor(
    readonly kind: TextFileProblemKind,
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

const megabytes = (n: number) => `${Math.ceil(n / (1024 * 1024))} MB`;

/** Reads a regular UTF-8 text file; throws a TextFileError otherwise. A byte-order mark is kept, as readFileSync does. */
export function readTextFile(path: string, maxBytes = MAX_TEXT_FILE_BYTES): string {
  let st;
  try {
    st = statSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new TextFileError('missing', 'no such file', code);
    throw new TextFileError('unreadable', `cannot read: ${code ?? (e as Error).message}`, code);
  }
  if (st.isDirectory()) throw new TextFileError('directory', 'is a directory');
  if (!st.isFile()) throw new TextFileError('not-regular', `not a regular file (${kindOf(st)})`);
  if (st.size > maxBytes) throw tooLarge(st.size, maxBytes);
  let bytes: Buffer;
  try {
    // O_NONBLOCK: should the path become a FIFO between the stat and the open, the open does not wait for a writer.
    const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const opened = fstatSync(fd);
      if (!opened.isFile()) throw new TextFileError('not-regular', `not a regular file (${kindOf(opened)})`);
      const size = opened.size;
      if (size > maxBytes) throw tooLarge(size, maxBytes);
      bytes = Buffer.allocUnsafe(size);
      let at = 0;
      while (at < size) {
        const n = readSync(fd, bytes, at, size - at, at);
        if (n === 0) break;
        at += n;
      }
      bytes = bytes.subarray(0, at);
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    if (e instanceof TextFileError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new TextFileError('unreadable', `cannot read: ${code ?? (e as Error).message}`, code);
  }
  if (bytes.subarray(0, SNIFF_BYTES).includes(0)) throw new TextFileError('not-text', 'not a text file (it holds NUL bytes: a binary file?)');
  // Most libraries are ASCII: checked and decoded at memory speed, into a one-byte string (half the memory).
  if (isAscii(bytes)) return bytes.toString('latin1');
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new TextFileError('not-text', 'not a text file (it is not valid UTF-8)');
  }
}

function tooLarge(size: number, max: number): TextFileError {
  return new TextFileError('too-large', `too large (${megabytes(size)}; the limit is ${megabytes(max)})`);
}

/**
 * What is at `path` before a command writes there: nothing (`missing`), or a regular file with its first line (read
 * within 64 KB, never waiting on a FIFO). Anything else (a device, a FIFO, a folder) is a TextFileError: a command
 * writes only a new file or one of its own kind, and a caller checks the first line for that kind.
 */
export function existingFileHead(path: string): { missing: true } | { missing: false; empty: boolean; firstLine: string } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { missing: true };
    throw new TextFileError('unreadable', `cannot read: ${code ?? (e as Error).message}`, code);
  }
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw new TextFileError('directory', 'is a directory');
    if (!st.isFile()) throw new TextFileError('not-regular', `not a regular file (${kindOf(st)})`);
    const bytes = Buffer.alloc(Math.min(st.size, 64 * 1024));
    const n = bytes.length ? readSync(fd, bytes, 0, bytes.length, 0) : 0;
    const text = bytes.subarray(0, n).toString('utf8');
    const nl = text.indexOf('\n');
    return { missing: false, empty: st.size === 0, firstLine: nl < 0 ? text : text.slice(0, nl) };
  } finally {
    closeSync(fd);
  }
}

function kindOf(st: Stats): string {
  if (st.isFIFO()) return 'a named pipe';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a file';
}

/**
 * Why a command may not write at `path`, or null: only over nothing, an empty file, or a file of its own kind
 * (`own` says it of the first line, parsed as JSON (undefined when that is no JSON) and as text), never over a device,
 * a FIFO or through a symbolic link (core/common/ownedFiles.ts, which opens it, refuses one too).
 * `notOwn` ("not a trace (...), so it is not replaced") and `give` ("give a new file for the trace") end the line.
 */
export function writeTargetProblem(
  path: string,
  own: (first: unknown, line: string) => boolean,
  words: { notOwn: string; give: string },
): string | null {
  const link = linkProblem(path);
  if (link) return link;
  let head;
  try {
    head = existingFileHead(path);
  } catch (e) {
    if (e instanceof TextFileError) return `${path}: ${e.message}: ${words.give}`;
    throw e;
  }
  if (head.missing || head.empty) return null;
  let first: unknown;
  try {
    first = JSON.parse(head.firstLine);
  } catch {
    first = undefined;
  }
  return own(first, head.firstLine) ? null : `${path}: ${words.notOwn}: ${words.give}`;
}
