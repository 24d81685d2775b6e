// The run trace: one JSON object per line (JSONL) for every prompt, completion chunk, cut, tool call (input,
// output, override, error, duration), monitor correction, pause, edit, retry and token count: the writer and the
// reader (core/replay/traceReplay.ts runs a trace again). No keys are ever given to the runner, an endpoint's
// output reaches it redacted (core/launch/redactedModel.ts), and the writer redacts every form of any secret it is told of
// (core/common/redact.ts) from each line as a second guard.
import { closeSync, writeSync } from 'node:fs';
import { openOwnedFile } from '../common/ownedFiles';
import { readTextFile, TextFileError, writeTargetProblem } from '../common/textFile';
import { traceRecordProblem, type TraceRecord, type TraceSink } from './schema';
import { readJsonLines } from '../common/jsonLines';
import { Redactor } from '../common/redact';

/**
 * Appends records to a JSONL file as they happen (synchronously, so a crash loses nothing written before it). The
 * first write that fails (a full disk, a removed folder) ends the file there: the problem is told once, to `onError`
 * when given (thrown by that write otherwise), and later records are not written.
 */
export class TraceWriter implements TraceSink {
  private fd: number | null;
  private readonly redactor: Redactor;
  private written = 0;

  constructor(
    readonly path: string,
    secrets: readonly string[] = [],
    private readonly onError?: (line: string) => void,
  ) {
    const problem = traceTargetProblem(path);
    if (problem) throw new Error(problem);
    // No link is followed to the file (nor, under .art, to its folder): core/common/ownedFiles.ts.
    this.fd = openOwnedFile(path, 'replace', { device: true });
    this.redactor = new Redactor(secrets);
  }

  write(record: TraceRecord): void {
    if (this.fd === null) return;
    try {
      writeSync(this.fd, `${this.redactor.redact(JSON.stringify(record))}\n`);
      this.written++;
    } catch (e) {
      this.close();
      const why = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
      const line = `${this.path}: cannot write the trace (${why}): it ends after ${this.written} record(s) and nothing more is written to it (free space or give another trace path, and run again)`;
      if (!this.onError) throw new Error(line);
      this.onError(line);
    }
  }

  close(): void {
    const fd = this.fd;
    this.fd = null;
    if (fd !== null) closeSync(fd);
  }
}

/** Keeps the records in memory (tests, the debug adapter's trace view). */
export class MemoryTrace implements TraceSink {
  readonly records: TraceRecord[] = [];
  write(record: TraceRecord): void {
    this.records.push(structuredClone(record));
  }
  toJSONL(): string {
    return this.records.map(r => `${JSON.stringify(r)}\n`).join('');
  }
}

export interface ParsedTrace {
  records: TraceRecord[];
  /** Lines that are not trace records (1-based line numbers). */
  errors: { line: number; message: string }[];
}

export function parseTrace(text: string): ParsedTrace {
  const { values, errors } = readJsonLines<TraceRecord>(text, traceRecordProblem);
  return { records: values, errors };
}

export function readTraceFile(path: string): ParsedTrace {
  try {
    return parseTrace(readTextFile(path));
  } catch (e) {
    if (e instanceof TextFileError) throw new Error(`${path}: ${e.message}`);
    throw e;
  }
}

/**
 * Why a trace may not be written at `path`, or null: a trace replaces only a trace (a file whose first line is a
 * trace record) or an empty file, never another file, a device (but /dev/null and /dev/full) or a FIFO.
 */
export function traceTargetProblem(path: string): string | null {
  // The devices that only swallow what is written (a trace thrown away; a full disk, in the tests) are no file of anyone's.
  if (path === '/dev/null' || path === '/dev/full') return null;
  return writeTargetProblem(path, first => !!first && typeof first === 'object' && traceRecordProblem(first) === null, {
    notOwn: 'not a trace (its first line is not a trace record), so it is not replaced',
    give: 'give a new file for the trace',
  });
}

/** What every command says of a file that is not a run's trace, after the problem. */
const GIVE_A_TRACE = "give a run's .jsonl trace (written with --trace or kept in .art/runs)";

/**
 * Why a trace read back (`parsed`, from the file `path`) is not a run's trace, in the one line every reader of
 * traces says it in (`art run TRACE`, `art run --from`, `art prompt TRACE`, `art diff`, the editor's comparison):
 * its first line that is not a trace record (the schema's reason, with the file and line), or its want of a `run`
 * record; null when it is one.
 */
export function runTraceProblem(path: string, parsed: ParsedTrace): string | null {
  const bad = parsed.errors[0];
  if (bad) return `${path}:${bad.line}: ${bad.message}: ${GIVE_A_TRACE}`;
  if (!parsed.records.some(r => r.t === 'run')) return `${path}: no "run" record: ${GIVE_A_TRACE}`;
  return null;
}

/** One request of a recorded run, as the trace has it. */
export interface RecordedRequest {
  n: number;
  prompt: string;
  stop: string[];
  chunks: string[];
  finishReason?: string;
}

/**
 * The run as it finally went: the records without the futures it left (each `branch` record names the records it
 * left, `from` to `to` - 1) and without the branch records. A trace with no branch is its own main line.
 */
export function mainLine(records: TraceRecord[]): TraceRecord[] {
  const left = new Set<number>();
  records.forEach((r, i) => {
    if (r.t !== 'branch') return;
    left.add(i);
    if (r.from !== undefined && r.to !== undefined) for (let j = r.from; j < r.to; j++) left.add(j);
  });
  return left.size ? records.filter((_, i) => !left.has(i)) : records;
}

/** The requests of the run's main line (see mainLine), in order. */
export function recordedRequests(records: TraceRecord[]): RecordedRequest[] {
  const byN = new Map<number, RecordedRequest>();
  for (const r of mainLine(records)) {
    if (r.t === 'request') byN.set(r.n, { n: r.n, prompt: r.prompt, stop: r.stop, chunks: [] });
    else if (r.t === 'chunk') byN.get(r.n)?.chunks.push(r.text);
    else if (r.t === 'completion' && r.finishReason !== undefined) {
      const q = byN.get(r.n);
      if (q) q.finishReason = r.finishReason;
    }
  }
  return [...byN.values()].sort((a, b) => a.n - b.n);
}
