// The evaluation history of the workspace: its results files as series (one per library on a dataset: the default
// results file and its new ones, `-2`, `-3`, ..., as Evaluate Task and `art eval` name them), each evaluation with
// its accuracy (exact match), date, model and library version, oldest first, and the change from the evaluation
// before it; so a person sees the trend of their edits. Pure over what the results files hold (readHistoryFiles
// reads them); the editor's Evaluations view draws it.
import { statSync } from 'node:fs';
import { basename, dirname, isAbsolute, relative, resolve } from 'node:path';
import type { EvalResult } from './eval';
import { loadResultsFile, type ResultsHeader } from './header';

/** A results file as read: its header (null before headers), its results, and when it was last written. */
export interface HistoryFile {
  path: string;
  header: ResultsHeader | null;
  results: readonly EvalResult[];
  /** The file's modification time (ISO 8601): the date of a file from before headers. */
  modified?: string;
}

export interface HistoryEntry {
  /** The results file (as given). */
  path: string;
  /** When the evaluation began (the header's date; a file without header: when it was last written). */
  date: string | undefined;
  model: string | null;
  /** The library version: the short commit (with "dirty" when the tree had changes), else its content hash's first 8 hex digits. */
  version: string | null;
  /** The library's content hash (full), when the header says it. */
  librarySha256: string | null;
  /** The examples done, those right (exact match), and the share (null: no result yet). */
  n: number;
  correct: number;
  accuracy: number | null;
  /** The accuracy's change from the evaluation before (null: the first, or one of the two has no result). */
  change: number | null;
  /** The evaluation before this one in its series, to compare with. */
  previous?: string;
  /** Whether the library's content differs from the evaluation before (undefined: unknown, or the first). */
  libraryChanged?: boolean;
}

export interface HistorySeries {
  /** What the evaluations share: the results files' name without `-N` (`data/arithmetic.library`). */
  key: string;
  /** The library and the data as the latest header names them (absolute), when one does. */
  library?: string;
  data?: string;
  /** Oldest first. */
  entries: HistoryEntry[];
}

/** The series a results file belongs to: its path without the `-N` of a new evaluation and the extension. */
export function seriesKey(path: string): string {
  return path.replace(/(?:-\d+)?(\.results\.jsonl|\.jsonl)$/, '');
}

/** The library version an evaluation ran: `a1b2c3d`, `a1b2c3d dirty`, or the content hash's prefix `3f2a9c1b`. */
export function libraryVersion(h: ResultsHeader | null): string | null {
  if (!h) return null;
  const git = h.library.git;
  return git ? `${git.commit.slice(0, 7)}${git.dirty ? ' dirty' : ''}` : h.library.sha256.slice(0, 8);
}

/** A path a header names, absolute (relative ones are relative to the results file's folder). */
function named(resultsPath: string, p: string): string {
  return isAbsolute(p) ? p : resolve(dirname(resultsPath), p);
}

/** The results files grouped into series, each oldest first with the change from the one before; series by key. */
export function evaluationHistory(files: readonly HistoryFile[]): HistorySeries[] {
  const groups = new Map<string, HistoryFile[]>();
  for (const f of files) {
    const key = seriesKey(f.path);
    groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  const time = (f: HistoryFile) => Date.parse(f.header?.date ?? f.modified ?? '') || 0;
  return [...groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, group]) => {
      // By date; the same date (or none): by the `-N` the file was named with.
      const sorted = [...group].sort((a, b) => time(a) - time(b) || seriesNumber(a.path) - seriesNumber(b.path));
      const entries: HistoryEntry[] = [];
      for (const f of sorted) {
        const before = entries.at(-1);
        const beforeFile = sorted[entries.length - 1];
        const correct = f.results.filter(r => r.exact).length;
        const n = f.results.length;
        const accuracy = n ? correct / n : null;
        const sha = f.header?.library.sha256 ?? null;
        const beforeSha = beforeFile?.header?.library.sha256;
        entries.push({
          path: f.path,
          date: f.header?.date ?? f.modified,
          model: f.header?.model ?? null,
          version: libraryVersion(f.header),
          librarySha256: sha,
          n,
          correct,
          accuracy,
          change: before && before.accuracy !== null && accuracy !== null ? accuracy - before.accuracy : null,
          ...(before ? { previous: before.path } : {}),
          ...(before && sha && beforeSha ? { libraryChanged: sha !== beforeSha } : {}),
        });
      }
      const latest = [...sorted].reverse().find(f => f.header)?.header;
      const latestPath = [...sorted].reverse().find(f => f.header)?.path;
      return {
        key,
        ...(latest && latestPath ? { library: named(latestPath, latest.library.path), data: named(latestPath, latest.data.path) } : {}),
        entries,
      };
    });
}

/** The `N` of `NAME-N.results.jsonl` (1 for the first file of a series). */
function seriesNumber(path: string): number {
  const m = /-(\d+)(?:\.results\.jsonl|\.jsonl)$/.exec(path);
  return m ? Number(m[1]) : 1;
}

/**
 * Reads results files for evaluationHistory: a file that cannot be read, or holds neither a header nor a result, is
 * left out and named in `skipped` with why.
 */
export function readHistoryFiles(paths: readonly string[]): { files: HistoryFile[]; skipped: string[] } {
  const files: HistoryFile[] = [];
  const skipped: string[] = [];
  for (const path of paths) {
    try {
      const { header, results } = loadResultsFile(path);
      files.push({ path, header, results, modified: statSync(path).mtime.toISOString() });
    } catch (e) {
      skipped.push((e as Error).message);
    }
  }
  return { files, skipped };
}

const two = (n: number) => String(n).padStart(2, '0');

/** A date as the history shows it, in local time: `2026-11-25 14:02`. */
export function formatHistoryDate(iso: string | undefined): string {
  const d = iso ? new Date(iso) : undefined;
  if (!d || Number.isNaN(d.getTime())) return 'no date';
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
}

/** An accuracy as a share with two decimals (`0.70`), and a change with its sign (`+0.10`, `−0.10`, `±0.00`). */
export function formatAccuracy(a: number | null): string {
  return a === null ? 'no results yet' : a.toFixed(2);
}

export function formatChange(c: number): string {
  const rounded = Math.round(c * 100) / 100;
  return rounded === 0 ? '±0.00' : `${rounded > 0 ? '+' : '−'}${Math.abs(rounded).toFixed(2)}`;
}

/** An evaluation in one line: `0.70 (+0.10) · 2026-11-25 14:02 · gpt-4o-mini · a1b2c3d`. */
export function formatHistoryEntry(e: HistoryEntry): string {
  const accuracy = `${formatAccuracy(e.accuracy)}${e.change !== null ? ` (${formatChange(e.change)})` : ''}`;
  return [accuracy, formatHistoryDate(e.date), e.model ?? 'model unknown', e.version ?? 'version unknown'].join(' · ');
}

/** What a series is about: `library.art on arithmetic.jsonl` (relative to `root` when inside it), else the files' name. */
export function seriesTitle(s: HistorySeries, root?: string): string {
  const show = (p: string) => {
    const rel = root ? relative(root, p) : '';
    return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split('\\').join('/') : basename(p);
  };
  return s.library && s.data ? `${show(s.library)} on ${basename(s.data)}` : basename(s.key);
}

/** A results file offered for a comparison ("ART: Compare Evaluations"): when it was made and how it did. */
export interface ComparisonChoice {
  path: string;
  /** When the evaluation began (its header; a file without one: when it was last written). */
  date: string | undefined;
  /** `2026-11-26 14:02 · 5/6 right (0.83)`, or `no results yet`. */
  label: string;
}

const fileTime = (f: HistoryFile) => Date.parse(f.header?.date ?? f.modified ?? '') || 0;

/**
 * The results files to choose from, newest first (the same date: the higher `-N` first), each dated with its
 * accuracy. With `before` (B, when A is chosen): the files made before it first, then those made after it.
 */
export function comparisonChoices(files: readonly HistoryFile[], before?: HistoryFile): ComparisonChoice[] {
  const after = (f: HistoryFile) => !!before && earlierFirst(before, f)[1] === f;
  return [...files]
    .sort((a, b) => Number(after(a)) - Number(after(b)) || fileTime(b) - fileTime(a) || seriesNumber(b.path) - seriesNumber(a.path))
    .map(f => {
      const correct = f.results.filter(r => r.exact).length;
      const n = f.results.length;
      const date = f.header?.date ?? f.modified;
      return {
        path: f.path,
        date,
        label: `${formatHistoryDate(date)} · ${n ? `${correct}/${n} right (${formatAccuracy(correct / n)})` : 'no results yet'}`,
      };
    });
}

/** Two results files in the order a comparison reads them: A the earlier evaluation, B the later (by date, then `-N`). */
export function earlierFirst(a: HistoryFile, b: HistoryFile): [HistoryFile, HistoryFile] {
  const later = fileTime(a) - fileTime(b) || seriesNumber(a.path) - seriesNumber(b.path);
  return later > 0 ? [b, a] : [a, b];
}
