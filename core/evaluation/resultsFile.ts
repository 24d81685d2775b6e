// The results file of an evaluation as one evaluation at a time writes it. Opening it takes a lock beside it
// (`RESULTS.lock`: the holder's pid, its start time and a nonce), so a second evaluation over the same file stops at
// once, naming the holder, instead of running every example again; the lock of a process that is gone (killed with
// -9, the machine restarted) is taken over, and said so. A last line cut short (a kill during the write, a full disk)
// is repaired before anything is appended: a complete result gets its newline, a fragment is cut off, so the next
// result does not glue onto it (which lost that result and ran its example again on every resume). A file or folder
// that cannot be written is found before any example runs, and said in one line naming the path and the fix.
import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, ftruncateSync, linkSync, readFileSync, readSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { linkProblem, makeOwnedFolder, openOwnedFile, OwnedFileError, writeOwnedFile } from '../common/ownedFiles';
import { existingFileHead, TextFileError } from '../common/textFile';
import { Redactor } from '../common/redact';
import { EvalDataError, readResults, type EvalResult } from './eval';
import type { ResultsHeader } from './header';

/** What a lock file holds. */
interface LockHolder {
  pid: number;
  /** When the holder started the evaluation (ISO 8601). */
  started: string;
  /** The holder's start time in clock ticks since boot (/proc/PID/stat), where there is one: a reused pid is told apart. */
  boot?: number;
  nonce: string;
}

/** The lock file of a results file. */
export function lockPathOf(resultsPath: string): string {
  return `${resultsPath}.lock`;
}

const errorCode = (e: unknown) => (e as NodeJS.ErrnoException).code ?? (e as Error).message;

/** A process's start time in clock ticks since boot, from /proc (Linux); undefined elsewhere or when it is gone. */
function bootTicks(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count fields after its closing one.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]);
    return Number.isFinite(ticks) ? ticks : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the holder of a lock is still running (its pid alive and, where known, started when the lock says). */
function holderAlive(h: LockHolder): boolean {
  try {
    process.kill(h.pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (h.boot === undefined) return true;
  const now = bootTicks(h.pid);
  return now === undefined || now === h.boot;
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const h = JSON.parse(text) as LockHolder;
    return h && Number.isInteger(h.pid) && h.pid > 0 && typeof h.started === 'string' && typeof h.nonce === 'string' ? h : undefined;
  } catch {
    return undefined;
  }
}

const describeHolder = (h: LockHolder) => `pid ${h.pid}, started ${h.started}`;

/**
 * The evaluation writing a results file now: the holder of its lock while that process is still running (its pid
 * alive and started when the lock says), else undefined (no lock, or the lock of a process that is gone: killed with
 * -9, the machine restarted). What a view of the file says while another process (`art eval`) writes it.
 */
export function resultsWriter(resultsPath: string): { pid: number; started: string } | undefined {
  let text: string;
  try {
    text = readFileSync(lockPathOf(resultsPath), 'utf8');
  } catch {
    return undefined;
  }
  const h = parseHolder(text);
  return h && holderAlive(h) ? { pid: h.pid, started: h.started } : undefined;
}

export class ResultsFile {
  /** The results already in the file, by id (after the repair of its tail). */
  readonly done: Map<string, EvalResult>;
  private fd: number;
  private readonly lock: string;
  private readonly holder: LockHolder;
  private readonly releaseOnExit = () => this.release();
  /** Set by `redact`: the secrets no line may hold. */
  private redactor = new Redactor([]);

  private constructor(
    readonly path: string,
    fd: number,
    lock: string,
    holder: LockHolder,
    done: Map<string, EvalResult>,
  ) {
    this.fd = fd;
    this.lock = lock;
    this.holder = holder;
    this.done = done;
    process.once('exit', this.releaseOnExit);
  }

  /**
   * Takes the lock of the results file, repairs its last line and opens it for appending; `log` hears a taken-over
   * lock and a repaired line once each. Throws an EvalDataError (one line naming the path and the fix) when another
   * evaluation holds the lock or the file or its folder cannot be written.
   */
  static open(path: string, log: (line: string) => void): ResultsFile {
    const cannot = (what: string, e: unknown) =>
      e instanceof OwnedFileError && e.kind === 'link'
        ? new EvalDataError(e.message)
        : new EvalDataError(
            `${what}: cannot write the results (${e instanceof OwnedFileError ? (e.code ?? e.message) : errorCode(e)}): make the file and its folder writable, or write the results elsewhere`,
          );
    try {
      makeOwnedFolder(dirname(path));
    } catch (e) {
      throw cannot(dirname(path), e);
    }
    const lock = lockPathOf(path);
    const holder: LockHolder = {
      pid: process.pid,
      started: new Date().toISOString(),
      ...(bootTicks(process.pid) !== undefined ? { boot: bootTicks(process.pid) } : {}),
      nonce: randomBytes(8).toString('hex'),
    };
    takeLock(path, lock, holder, log, e => {
      if (e instanceof OwnedFileError && e.kind === 'link') return new EvalDataError(e.message);
      const code = e instanceof OwnedFileError ? (e.code ?? e.message) : errorCode(e);
      return new EvalDataError(
        `${dirname(path)}: cannot create the lock file of the results there (${code}): make the folder writable, or write the results elsewhere`,
      );
    });
    let fd: number;
    try {
      fd = openOwnedFile(path, 'update');
    } catch (e) {
      releaseLock(lock, holder);
      throw cannot(path, e);
    }
    try {
      repairTail(path, fd, log);
      return new ResultsFile(path, fd, lock, holder, readResults(path));
    } catch (e) {
      closeSync(fd);
      releaseLock(lock, holder);
      throw e instanceof EvalDataError ? e : cannot(path, e);
    }
  }

  /** Every form of these secrets (the key) is left out of the lines appended from now on (core/common/redact.ts). */
  redact(secrets: readonly (string | undefined)[]): void {
    this.redactor = new Redactor(secrets);
  }

  /** Appends a result (or the file's header) as one line; throws an EvalDataError naming the file when it cannot be written (a full disk). */
  append(r: EvalResult | ResultsHeader): void {
    const bytes = Buffer.from(`${this.redactor.redact(JSON.stringify(r))}\n`);
    try {
      for (let at = 0; at < bytes.length;) at += writeSync(this.fd, bytes, at, bytes.length - at);
    } catch (e) {
      throw new EvalDataError(
        `${this.path}: cannot write the results (${errorCode(e)}): free space or make it writable, then run the same evaluation again to resume`,
      );
    }
  }

  /** Closes the file and gives the lock back. */
  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
    this.release();
    process.removeListener('exit', this.releaseOnExit);
  }

  private release(): void {
    releaseLock(this.lock, this.holder);
  }
}

/**
 * The first line of the lock file `lock` (a holder's record is one line), null when it is gone; never through a link, and
 * never from a device or a FIFO (a planted `RESULTS.lock -> /dev/zero` grew the process to gigabytes, a FIFO blocked
 * it): those are an EvalDataError naming the lock.
 */
function lockText(lock: string): string | null {
  const link = linkProblem(lock);
  if (link) throw new EvalDataError(link);
  try {
    const head = existingFileHead(lock);
    return head.missing ? null : head.firstLine;
  } catch (e) {
    if (!(e instanceof TextFileError)) throw e;
    throw new EvalDataError(`${lock}: ${e.message}, not the lock of an evaluation: remove it, or write the results elsewhere`);
  }
}

/** Creates the lock file with the holder's record in one step (a complete file or none), taking over a stale one. */
function takeLock(path: string, lock: string, holder: LockHolder, log: (line: string) => void, cannot: (e: unknown) => Error): void {
  const mine = `${lock}.${holder.pid}.${holder.nonce}`;
  try {
    writeOwnedFile(mine, `${JSON.stringify(holder)}\n`, 'new');
  } catch (e) {
    throw cannot(e);
  }
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(mine, lock);
        return;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 2) throw cannot(e);
      }
      const text = lockText(lock);
      if (text === null) continue; // given back meanwhile
      const other = parseHolder(text);
      if (other && holderAlive(other))
        throw new EvalDataError(
          `${path}: another evaluation (${describeHolder(other)}) is writing these results (lock ${lock}): wait for it to end, or write the results elsewhere`,
        );
      // Stale: move it aside under a name of our own (one taker wins), and check it is the one read.
      const aside = `${lock}.stale.${holder.nonce}`;
      try {
        renameSync(lock, aside);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw cannot(e);
      }
      const moved = lockText(aside) ?? '';
      if (moved !== text) {
        // Another evaluation took the stale lock over between our read and the move: give its lock back.
        try {
          linkSync(aside, lock);
        } finally {
          unlinkSync(aside);
        }
        const taker = parseHolder(moved);
        throw new EvalDataError(
          `${path}: another evaluation (${taker ? describeHolder(taker) : 'unknown'}) is writing these results (lock ${lock}): wait for it to end, or write the results elsewhere`,
        );
      }
      unlinkSync(aside);
      log(`${lock}: took over the lock of an evaluation that is no longer running (${other ? describeHolder(other) : 'an unreadable lock file'})`);
    }
  } finally {
    try {
      unlinkSync(mine);
    } catch {
      // already gone
    }
  }
}

/** Removes the lock file if it is still this holder's. */
function releaseLock(lock: string, holder: LockHolder): void {
  try {
    if (parseHolder(lockText(lock) ?? '')?.nonce === holder.nonce) unlinkSync(lock);
  } catch {
    // gone already, or never taken
  }
}

/**
 * The longest line a results file may end with: a result is a few kilobytes (a program and its answer), so a last
 * line longer than this is no result (a file of something else, or a damaged one), and the window read from the end
 * to find where it begins stays bounded however long it is.
 */
export const MAX_RESULT_LINE_BYTES = 16 * 1024 * 1024;

/** `buffer.length` bytes of `fd` from `position` (fewer at the end of the file); the count read. */
function readAt(fd: number, buffer: Buffer, position: number): number {
  let at = 0;
  while (at < buffer.length) {
    const n = readSync(fd, buffer, at, buffer.length - at, position + at);
    if (n === 0) break;
    at += n;
  }
  return at;
}

/**
 * A last line without its newline: a complete result gets the newline, anything else is cut off (said once), so
 * that what is appended next starts a line of its own. Reads one window of at most MAX_RESULT_LINE_BYTES from the end:
 * a last line longer than that is an EvalDataError, and the file is left as it is.
 */
function repairTail(path: string, fd: number, log: (line: string) => void): void {
  const size = fstatSync(fd).size;
  if (size === 0) return;
  const last = Buffer.alloc(1);
  if (readAt(fd, last, size - 1) === 1 && last[0] === 0x0a) return; // ends with a newline
  const window = Buffer.alloc(Math.min(size, MAX_RESULT_LINE_BYTES + 1));
  const got = readAt(fd, window, size - window.length);
  const nl = window.subarray(0, got).lastIndexOf(0x0a);
  if (nl < 0 && window.length < size)
    throw new EvalDataError(
      `${path}: its last line is longer than ${MAX_RESULT_LINE_BYTES / (1024 * 1024)} MB and has no end, so it is no result art eval wrote: give another results file (or remove that line)`,
    );
  const start = size - window.length + nl + 1;
  const tail = window.subarray(nl + 1, got);
  const text = tail.toString('utf8');
  let complete: boolean;
  try {
    const v: unknown = JSON.parse(text);
    complete = !!v && typeof v === 'object';
  } catch {
    complete = false;
  }
  if (complete) {
    writeSync(fd, '\n');
    return;
  }
  ftruncateSync(fd, start);
  log(`${path}: the last line was cut short (${tail.length} bytes, a write stopped by a kill or a full disk): removed; its example runs again`);
}
