// The run history: every run of a workspace kept as files in one folder (`.art/runs` by default), its JSONL trace
// (`<id>.jsonl`) and a small summary beside it (`<id>.json`: program, task, answer, status, tokens, time, and the
// run and point it branched from, if any). The shells write the summary when a run ends (they know the program);
// one missing or stale is derived from the trace. Records are read generically: a kind this version does not know
// (a newer writer's) is kept as it is and never makes a trace unreadable here.
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { linkProblem, makeOwnedFolder, OwnedFileError, writeOwnedFile } from '../common/ownedFiles';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import type { Usage } from '../model/types';
import type { EndReason, RunKind } from './vocabulary';
import { readJsonLines } from '../common/jsonLines';
import { existingFileHead, readTextFile } from '../common/textFile';

/** A trace record as read here: any JSON object with a string `t`. */
export interface LooseRecord {
  t: string;
  [field: string]: unknown;
}

export interface ReadRecords {
  records: LooseRecord[];
  /** Lines that are not JSON objects with a `t` (1-based). */
  errors: { line: number; message: string }[];
}

/** Reads JSONL trace text, keeping every record whatever its kind. */
export function readRecords(text: string): ReadRecords {
  const { values, errors } = readJsonLines<LooseRecord>(text, v =>
    v && typeof v === 'object' && !Array.isArray(v) && typeof (v as { t?: unknown }).t === 'string' ? null : 'not a trace record (no "t")',
  );
  return { records: values, errors };
}

/** A point of a run where another run or branch parts from it. */
export interface BranchPoint {
  /** The tool call (1-based) where they part, when known. */
  callId?: number;
  /** The step (ART `Qk`, agent/trigger index), when known. */
  step?: number;
}

/** A branch recorded inside a run's trace (a `branch` record: a future the run left). */
export interface RecordedBranch extends BranchPoint {
  /** Position of the record among the trace's records (a stable id within the run). */
  index: number;
  at?: number;
  /** A trace file of the branch, when the record names one (relative paths: to the runs folder). */
  trace?: string;
  answer?: string | null;
  label?: string;
}

/** How a kept run ended (its `end` record's reason), or `unfinished` when its trace has none. */
export type RunStatus = EndReason | 'unfinished';

export interface RunSummary {
  version: 1;
  /** The trace's file name without `.jsonl`. */
  id: string;
  kind: RunKind | 'unknown';
  /** The source the run came from (a path as the shell gave it); absent when only the trace is known. */
  program?: string;
  /** The task or agent run (name or index). */
  task?: string | number;
  /** A title to list the run under: the task or agent name, else the program's file name, else the model. */
  title: string;
  model: string;
  status: RunStatus;
  answer: string | null;
  error?: string;
  tokens: Usage;
  requests: number;
  startedAt: number;
  endedAt?: number;
  durationMs?: number;
  /** The run this one was started from (a replay of its trace, a re-run from it) and where they part. */
  parent?: { run: string } & BranchPoint;
  /** Where a replay left its recording and went on with the live model. */
  live?: BranchPoint & { why?: string };
  branches: RecordedBranch[];
  /** A run of an evaluation: its results file (as the shell names it) and the example's id; listed under the evaluation. */
  evaluation?: { results: string; example: string };
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The first line of an ART header's `Description: (Name)`, or null. */
function artTaskName(header: string): string | undefined {
  return /^Description:\s*\(([^)\n]+)\)/m.exec(header)?.[1]?.trim();
}

/** A summary of a run from its trace records alone (program and task are then unknown unless given). */
export function summarize(
  id: string,
  records: LooseRecord[],
  known: Partial<Pick<RunSummary, 'program' | 'task' | 'parent' | 'evaluation'>> = {},
): RunSummary {
  const run = records.find(r => r.t === 'run');
  const end = [...records].reverse().find(r => r.t === 'end');
  const kind = (str(run?.kind) as RunKind | undefined) ?? 'unknown';
  const config = (run?.config ?? {}) as { agent?: { name?: unknown } };
  const tokens: Usage = { promptTokens: 0, completionTokens: 0 };
  let requests = 0;
  if (end && end.usage && typeof end.usage === 'object') {
    const u = end.usage as Record<string, unknown>;
    tokens.promptTokens = num(u.promptTokens) ?? 0;
    tokens.completionTokens = num(u.completionTokens) ?? 0;
    requests = num(end.requests) ?? 0;
  } else {
    for (const r of records) {
      if (r.t === 'request') requests++;
      if (r.t === 'completion' && r.usage && typeof r.usage === 'object') {
        const u = r.usage as Record<string, unknown>;
        tokens.promptTokens += num(u.promptTokens) ?? 0;
        tokens.completionTokens += num(u.completionTokens) ?? 0;
      }
    }
  }
  const times = records.map(r => num(r.at)).filter((t): t is number => t !== undefined);
  const startedAt = num(run?.at) ?? (times.length ? Math.min(...times) : 0);
  const endedAt = num(end?.at) ?? (times.length ? Math.max(...times) : undefined);
  // Live from the last switch to the model, unless the run went back before it (a `rejoin` after it).
  const lastLive = records.map(r => r.t).lastIndexOf('live');
  const liveRecord = lastLive >= 0 && !records.slice(lastLive).some(r => r.t === 'rejoin') ? records[lastLive] : undefined;
  const branches: RecordedBranch[] = [];
  records.forEach((r, index) => {
    if (r.t !== 'branch') return;
    branches.push({
      index,
      at: num(r.at),
      callId: num(r.callId),
      step: num(r.step),
      trace: str(r.trace) ?? str(r.file),
      answer: typeof r.answer === 'string' || r.answer === null ? (r.answer as string | null) : undefined,
      label: str(r.label) ?? str(r.why) ?? str(r.reason),
    });
  });
  const name = str(config.agent?.name) ?? artTaskName(str(run?.header) ?? '');
  const status = (str(end?.reason) as RunStatus | undefined) ?? 'unfinished';
  return {
    version: 1,
    id,
    kind,
    ...(known.program !== undefined ? { program: known.program } : {}),
    ...(known.task !== undefined ? { task: known.task } : {}),
    title:
      (typeof known.task === 'string' ? known.task : undefined) ??
      name ??
      (known.program ? basename(known.program) : undefined) ??
      str(run?.model) ??
      id,
    model: str(run?.model) ?? 'unknown',
    status,
    answer: typeof end?.answer === 'string' ? end.answer : null,
    ...(str(end?.error) ? { error: str(end?.error) } : {}),
    tokens,
    requests,
    startedAt,
    ...(endedAt !== undefined ? { endedAt, durationMs: Math.max(0, endedAt - startedAt) } : {}),
    ...(known.parent ? { parent: known.parent } : {}),
    ...(known.evaluation ? { evaluation: known.evaluation } : {}),
    ...(liveRecord ? { live: { callId: num(liveRecord.callId), why: str(liveRecord.why) } } : {}),
    branches,
  };
}

/** Where the runs folder's files of run `id` are. */
export function runFiles(folder: string, id: string): { trace: string; summary: string } {
  return { trace: join(folder, `${id}.jsonl`), summary: join(folder, `${id}.json`) };
}

/** A run's file named by newRunId as a person reads it: `2026-…Z-library.jsonl` → `library, 2026-11-23 12:30:05` (UTC). */
export function runLabel(path: string): string {
  const name = path.replace(/^.*[\\/]/, '').replace(/\.jsonl$/, '');
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-\d+Z(?:-(.+))?$/.exec(name);
  return m ? `${m[5] ?? 'run'}, ${m[1]} ${m[2]}:${m[3]}:${m[4]}` : name;
}

/**
 * A new run's id: its start time, a slug of its program and, if given, of a part of its own
 * (`2025-01-31T10-20-30-123Z-arithmetic`, `2025-01-31T10-20-30-123Z-library-eggs`).
 */

export function newRunId(program: string | undefined, at = new Date(), part?: string): string {
  const slug = (s: string) => s.replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 40);
  const name = program ? slug(basename(program).replace(/\.[^.]*$/, '')) : '';
  // A part of the run's own (an evaluated example's id) after the program's name.
  const extra = part ? slug(part) : '';
  return `${at.toISOString().replace(/[:.]/g, '-')}${name ? `-${name}` : ''}${extra ? `-${extra}` : ''}`;
}

const GITIGNORE_MARK = '# ART Studio run history';

/**
 * Makes the folder; with `ignore`, writes a .gitignore there that keeps the runs out of git, only into a folder it
 * made: a folder of the user's (a repository) gets no file it did not ask for.
 */
export function prepareRunsFolder(folder: string, ignore: boolean): void {
  const made = !existsSync(folder);
  makeOwnedFolder(folder);
  const gi = join(folder, '.gitignore');
  if (!ignore || !made) return;
  try {
    writeOwnedFile(gi, `${GITIGNORE_MARK} (setting art.runs.gitignore)\n*\n`, 'new');
  } catch (e) {
    if (!(e instanceof OwnedFileError && e.kind === 'exists')) throw e; // another run made it meanwhile
  }
}

/**
 * Why runs may not be written into `folder`, or null: a runs folder is one ART made (its .gitignore says so), one
 * that holds runs already, an empty one, or none yet. Any other folder (a repository, a home) is refused.
 */
export function runsFolderProblem(folder: string): string | null {
  const link = linkProblem(folder);
  if (link) return link;
  let names: string[];
  try {
    if (!statSync(folder).isDirectory()) return `${folder}: not a folder: give a runs folder`;
    names = readdirSync(folder);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? null : `${folder}: cannot read the folder (${code ?? (e as Error).message}): give another runs folder`;
  }
  if (!names.length || names.some(n => /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d+Z.*\.jsonl$/.test(n))) return null;
  try {
    // Its first line, never through a link nor from a device or a FIFO (a planted `.gitignore -> /dev/zero`).
    const gi = join(folder, '.gitignore');
    const head = names.includes('.gitignore') && !linkProblem(gi) ? existingFileHead(gi) : undefined;
    if (head && !head.missing && head.firstLine.startsWith(GITIGNORE_MARK)) return null;
  } catch {
    /* not ART's */
  }
  return `${folder}: holds files but no runs, and ART did not make it, so no run is written there: give a new or empty folder as the runs folder`;
}

/** The run a trace replays, when that trace is a run of the same folder: the new run's parent. */
export function parentOf(folder: string, program: string | undefined, records: LooseRecord[]): RunSummary['parent'] {
  if (!program || !/\.jsonl$/i.test(program)) return undefined;
  const id = basename(program).replace(/\.jsonl$/i, '');
  if (!existsSync(runFiles(folder, id).trace)) return undefined;
  const live = records.find(r => r.t === 'live');
  const edit = records.find(r => r.t === 'edit');
  const callId = num(live?.callId) ?? num(edit?.callId);
  return { run: id, ...(callId !== undefined ? { callId } : {}) };
}

/** Writes run `id`'s summary from its trace and what the shell knows; returns it. */
export function writeSummary(folder: string, id: string, known: Partial<Pick<RunSummary, 'program' | 'task' | 'evaluation'>> = {}): RunSummary {
  const files = runFiles(folder, id);
  const { records } = readRecords(readFileSync(files.trace, 'utf8'));
  const s = summarize(id, records, { ...known, parent: parentOf(folder, known.program, records) });
  writeOwnedFile(files.summary, `${JSON.stringify(s, null, 2)}\n`, 'replace');
  return s;
}

function readSummary(path: string, id: string): RunSummary | null {
  try {
    const s = JSON.parse(readTextFile(path)) as RunSummary;
    return s && s.version === 1 && s.id === id && Array.isArray(s.branches) ? s : null;
  } catch {
    return null;
  }
}

/**
 * The program file a run came from, as the run history says: its summary's program, followed through replays (a run
 * of another run's trace) back to the run replayed; a relative program is relative to `root` (the workspace folder
 * the shells name programs from). Undefined when no summary says.
 */
export function programOfRun(trace: string, root: string): string | undefined {
  let path = trace;
  for (let hops = 0; hops < 16; hops++) {
    const id = basename(path).replace(/\.jsonl$/i, '');
    const summary = readSummary(runFiles(dirname(path), id).summary, id);
    if (!summary?.program) return undefined;
    const program = isAbsolute(summary.program) ? summary.program : resolve(root, summary.program);
    if (!/\.jsonl$/i.test(program)) return program;
    path = program;
  }
  return undefined;
}

export interface HistoryEntry {
  summary: RunSummary;
  trace: string;
}

/**
 * The runs in a folder, newest first: each trace with its summary, read from `<id>.json` when it is there and not
 * older than the trace, else derived from the trace (keeping the program, task and parent an older summary knew).
 */
export function listRuns(folder: string): HistoryEntry[] {
  if (!existsSync(folder)) return [];
  const out: HistoryEntry[] = [];
  for (const name of readdirSync(folder)) {
    if (!name.endsWith('.jsonl')) continue;
    const id = name.slice(0, -'.jsonl'.length);
    const files = runFiles(folder, id);
    try {
      const old = existsSync(files.summary) ? readSummary(files.summary, id) : null;
      let summary = old;
      if (!old || statSync(files.summary).mtimeMs < statSync(files.trace).mtimeMs) {
        const { records } = readRecords(readTextFile(files.trace));
        summary = summarize(id, records, { program: old?.program, task: old?.task, parent: old?.parent, evaluation: old?.evaluation });
      }
      out.push({ summary: summary!, trace: files.trace });
    } catch {
      // A trace removed while listing, or one that is no regular text file (a planted link to a device): skip it.
    }
  }
  return out.sort((a, b) => b.summary.startedAt - a.summary.startedAt || b.summary.id.localeCompare(a.summary.id));
}

export interface HistoryNode {
  entry: HistoryEntry;
  /** Runs started from this one (replays, re-runs), newest first. */
  children: HistoryNode[];
}

export interface HistoryGroup {
  title: string;
  program?: string;
  /** The results file, when the group is an evaluation's runs (one per example, labelled by its id). */
  evaluation?: string;
  runs: HistoryNode[];
}

/** The runs as the Runs view shows them: grouped by program title (an evaluation's by its results file), runs started from another under it. */
export function historyTree(entries: HistoryEntry[]): HistoryGroup[] {
  const byId = new Map(entries.map(e => [e.summary.id, { entry: e, children: [] as HistoryNode[] }]));
  const roots: HistoryNode[] = [];
  for (const node of byId.values()) {
    const parent = node.entry.summary.parent && byId.get(node.entry.summary.parent.run);
    if (parent && parent !== node) parent.children.push(node);
    else roots.push(node);
  }
  const groups = new Map<string, HistoryGroup>();
  for (const node of roots) {
    const s = node.entry.summary;
    // An evaluation's runs under the evaluation (its results file), not each under its task among the other runs.
    const key = s.evaluation ? `\u0001${s.evaluation.results}` : `${s.program ?? ''}\u0000${s.title}`;
    let g = groups.get(key);
    if (!g)
      groups.set(
        key,
        (g = s.evaluation
          ? { title: `Evaluation ${basename(s.evaluation.results)}`, program: s.program, evaluation: s.evaluation.results, runs: [] }
          : { title: s.title, program: s.program, runs: [] }),
      );
    g.runs.push(node);
  }
  return [...groups.values()];
}

/** Deletes a run's trace and summary. */
export function deleteRun(folder: string, id: string): void {
  const files = runFiles(folder, id);
  rmSync(files.trace, { force: true });
  rmSync(files.summary, { force: true });
}
