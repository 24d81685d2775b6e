// What produced a results file: its first line is a header (`"kind": "art-evaluation"`) naming the library by its
// content hash (and the git commit, and whether the tree had uncommitted changes, where there is one), the data, the
// model and endpoint, the run options that change answers, and the date. Results lines are told apart by their
// `id` and `exact`, so readers of results files skip the header, and files written before it (no header) read as
// before. headerDifferences says what differs between two evaluations besides the library.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { existingFileHead, readTextFile, TextFileError, writeTargetProblem } from '../common/textFile';
import { basename, dirname, isAbsolute, relative, resolve } from 'node:path';
import type { RunOptions } from '../launch/options';
import { EvalDataError, isResultLine, resultOf, type EvalResult } from './eval';

export const HEADER_KIND = 'art-evaluation';

export interface FileVersion {
  /** As given to the evaluation, relative to the results file's folder when it is inside it (`/` separators). */
  path: string;
  /** sha256 of the file's bytes, hex. */
  sha256: string;
}

export interface ResultsHeader {
  kind: typeof HEADER_KIND;
  version: 1;
  /** When the evaluation began (ISO 8601). */
  date: string;
  library: FileVersion & { git?: { commit: string; dirty: boolean } };
  data: FileVersion;
  /** The tool file, when the run options name one. */
  tools?: FileVersion;
  model: string | null;
  endpoint: string | null;
  /** The run options that change answers. */
  options: {
    api: string;
    task?: string | number;
    select: string;
    samples: number;
    temperature?: number;
    maxTokens?: number;
    constrain: string;
    inlineTriggers: boolean;
  };
}

export function sha256OfFile(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

function fileVersion(path: string, resultsPath: string): FileVersion {
  const rel = relative(dirname(resultsPath), path);
  const shown = rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split('\\').join('/') : path;
  return { path: shown, sha256: sha256OfFile(path) };
}

/**
 * The commit of the repository holding `path`, and whether its tracked files have changes; undefined outside git, and
 * for a file git does not track (an ignored or new one: no commit holds it, and its changes are in no status).
 */
export function gitVersion(path: string): { commit: string; dirty: boolean } | undefined {
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', dirname(path), ...args], { encoding: 'utf8', timeout: 5000, stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    const commit = git('rev-parse', 'HEAD').trim();
    if (!/^[0-9a-f]{40,64}$/.test(commit)) return undefined;
    git('ls-files', '--error-unmatch', '--', basename(path));
    return { commit, dirty: git('status', '--porcelain', '--untracked-files=no').trim() !== '' };
  } catch {
    return undefined;
  }
}

/** `chatModel`: the id of the caller's chat model the evaluation ran on (VS Code's Language Model API), if any. */
/** The endpoint a results header names for a model of VS Code's Language Model API. */
export const VSCODE_LM_ENDPOINT = "VS Code's Language Model API";

export function makeHeader(o: {
  library: string;
  data: string;
  resultsPath: string;
  options: RunOptions;
  root: string;
  date?: Date;
  chatModel?: string;
}): ResultsHeader {
  const opts = o.options;
  const git = gitVersion(o.library);
  const toolsPath = opts.tools === undefined ? undefined : resolve(o.root, opts.tools);
  return {
    kind: HEADER_KIND,
    version: 1,
    date: (o.date ?? new Date()).toISOString(),
    library: { ...fileVersion(o.library, o.resultsPath), ...(git ? { git } : {}) },
    data: fileVersion(o.data, o.resultsPath),
    ...(toolsPath && existsSync(toolsPath) && statSync(toolsPath).isFile() ? { tools: fileVersion(toolsPath, o.resultsPath) } : {}),
    model: o.chatModel ?? opts.model ?? null,
    endpoint: o.chatModel ? VSCODE_LM_ENDPOINT : (opts.baseURL ?? null),
    options: {
      api: opts.api,
      ...(opts.task !== undefined ? { task: opts.task } : {}),
      select: opts.select,
      samples: opts.samples,
      ...(opts.temperature !== undefined ? { temperature: opts.temperature } : {}),
      ...(opts.maxTokens !== undefined ? { maxTokens: opts.maxTokens } : {}),
      constrain: opts.constrain,
      inlineTriggers: opts.inlineTriggers,
    },
  };
}

/**
 * Why an evaluation may not write its results at `path`, or null: a results file is new (or empty) or begins with a
 * results header (or, from before headers, a result); never another file, a device or a FIFO.
 */
export function resultsTargetProblem(path: string): string | null {
  try {
    readHeader(path);
  } catch (e) {
    if (e instanceof EvalDataError) return e.message; // a header that is not whole: said before anything runs
    throw e;
  }
  return writeTargetProblem(path, first => isHeader(first) || isResultLine(first), {
    notOwn: 'not a results file (its first line is neither a results header nor a result), so nothing is appended to it',
    give: 'give a new results file (.results.jsonl)',
  });
}

/** Whether `v` says it is a results header (its kind): whether it is a whole one, headerProblem says. */
export function isHeader(v: unknown): v is ResultsHeader {
  return !!v && typeof v === 'object' && (v as ResultsHeader).kind === HEADER_KIND;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const isFileVersion = (v: unknown) => isObject(v) && typeof v.path === 'string' && typeof v.sha256 === 'string';
const isStringOrNone = (v: unknown) => v === undefined || v === null || typeof v === 'string';

/**
 * What a first line that says it is a results header lacks of the fields its readers use (the library's and the
 * data's path and hash, the date, the model and endpoint, the options), or null when it has them. Fields it does not
 * know are left alone (a newer version may add some).
 */
export function headerProblem(h: ResultsHeader): string | null {
  const v = h as unknown as Record<string, unknown>;
  if (!isFileVersion(v.library)) return '"library" is not a file with its "path" and "sha256"';
  const git = (v.library as Record<string, unknown>).git;
  if (git !== undefined && !(isObject(git) && typeof git.commit === 'string' && typeof git.dirty === 'boolean'))
    return '"library.git" is not a commit and whether the tree was dirty';
  if (!isFileVersion(v.data)) return '"data" is not a file with its "path" and "sha256"';
  if (v.tools !== undefined && !isFileVersion(v.tools)) return '"tools" is not a file with its "path" and "sha256"';
  if (typeof v.date !== 'string') return '"date" is not a date';
  if (!isStringOrNone(v.model) || !isStringOrNone(v.endpoint)) return '"model" or "endpoint" is not a string';
  const o = v.options;
  if (!isObject(o) || typeof o.api !== 'string' || typeof o.select !== 'string' || typeof o.samples !== 'number' || typeof o.constrain !== 'string')
    return '"options" does not say the api, select, samples and constrain';
  return null;
}

/**
 * The header of the results file `path` from its first line's value, or null when that is no header; a line that says
 * it is one but is not whole is an EvalDataError naming the file, what it lacks and the fix.
 */
function headerOf(path: string, v: unknown): ResultsHeader | null {
  if (!isHeader(v)) return null;
  const problem = headerProblem(v);
  if (problem)
    throw new EvalDataError(
      `${path}:1: a results header ("kind": "${HEADER_KIND}") whose ${problem}: the file was edited or not written by art eval: give a results file written by art eval (or remove its first line)`,
    );
  return v;
}

/**
 * A results file's header (its first line), or null when it has none (a file from before headers, or none yet, or
 * one that cannot be read); an EvalDataError when its first line is a header that is not whole (headerOf).
 */
export function readHeader(path: string): ResultsHeader | null {
  let first: string;
  try {
    const head = existingFileHead(path);
    if (head.missing) return null;
    first = head.firstLine;
  } catch {
    return null;
  }
  let v: unknown;
  try {
    v = JSON.parse(first);
  } catch {
    return null;
  }
  return headerOf(path, v);
}

/**
 * A whole results file, for comparing: its header (null in a file from before headers) and its results in file order
 * (a later line for an id replaces an earlier one; a torn or foreign line is left out). A file that cannot be read,
 * or holds no result, is an EvalDataError naming it.
 */
export function loadResultsFile(path: string): { header: ResultsHeader | null; results: EvalResult[] } {
  let text: string;
  try {
    text = readTextFile(path);
  } catch (e) {
    const why = e instanceof TextFileError ? (e.code ?? e.message) : ((e as NodeJS.ErrnoException).code ?? (e as Error).message);
    throw new EvalDataError(`${path}: cannot read the results (${why}): give a results file written by art eval or Evaluate Task`);
  }
  let header: ResultsHeader | null = null;
  const byId = new Map<string, EvalResult>();
  text.split('\n').forEach((raw, i) => {
    if (!raw.trim()) return;
    let v: unknown;
    try {
      v = JSON.parse(raw);
    } catch {
      return;
    }
    if (i === 0 && isHeader(v)) header = headerOf(path, v);
    else {
      const r = resultOf(path, i + 1, v);
      if (r) byId.set(r.id, r);
    }
  });
  if (!byId.size && !header)
    throw new EvalDataError(`${path}: no results in the file: give a results file written by art eval or Evaluate Task (.results.jsonl)`);
  return { header, results: [...byId.values()] };
}

/** One line saying what produced a results file: `library 3f2a9c1b (git 1a2b3c4, dirty) · model m at URL · ... · date`. */
export function formatHeader(h: ResultsHeader | null): string {
  if (!h) return 'no header (written before results files said what produced them)';
  const git = h.library.git ? ` (git ${h.library.git.commit.slice(0, 7)}${h.library.git.dirty ? ', uncommitted changes' : ''})` : '';
  const o = h.options;
  const options = [
    `select ${o.select}`,
    `${o.samples} sample${o.samples === 1 ? '' : 's'}`,
    ...(o.temperature !== undefined ? [`temperature ${o.temperature}`] : []),
    ...(o.constrain !== 'off' ? [`constrain ${o.constrain}`] : []),
    ...(o.task !== undefined ? [`task ${o.task}`] : []),
  ].join(', ');
  return `${h.library.path} ${h.library.sha256.slice(0, 8)}${git} · model ${h.model ?? '(none)'} at ${h.endpoint ?? '(none)'} · ${options} · data ${h.data.path} ${h.data.sha256.slice(0, 8)} · ${h.date}`;
}

/** What differs between two evaluations other than the library: model, endpoint, data, tools, answer-changing options. */
export function headerDifferences(a: ResultsHeader | null, b: ResultsHeader | null): string[] {
  if (!a || !b) return a === b ? [] : [`only ${a ? 'A' : 'B'} says what produced it: the two may differ in more than the library`];
  const out: string[] = [];
  const differ = (what: string, x: unknown, y: unknown) => {
    if (JSON.stringify(x) !== JSON.stringify(y)) out.push(`${what}: ${show(x)} → ${show(y)}`);
  };
  differ('model', a.model, b.model);
  differ('endpoint', a.endpoint, b.endpoint);
  differ('data', a.data.sha256.slice(0, 8), b.data.sha256.slice(0, 8));
  differ('tools', a.tools?.sha256.slice(0, 8), b.tools?.sha256.slice(0, 8));
  for (const k of new Set([...Object.keys(a.options), ...Object.keys(b.options)]) as Set<keyof ResultsHeader['options']>)
    differ(k, a.options[k], b.options[k]);
  return out;
}

/** Whether the two evaluations ran different versions of the library (by content). */
export function libraryChanged(a: ResultsHeader | null, b: ResultsHeader | null): boolean | undefined {
  return a && b ? a.library.sha256 !== b.library.sha256 : undefined;
}

function show(v: unknown): string {
  return v === undefined ? '(none)' : typeof v === 'string' ? v : JSON.stringify(v);
}
