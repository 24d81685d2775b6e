// Incremental parse + check for editors. The edited region comes from the caller (an editor knows its edits) or
// from comparing the new text with the previous one; programs before the edit are kept as they are, the split
// resumes one program before the edit and stops as soon as it opens a program at a start it already knew after the
// edit, and every program from there on is reused, moved in place by the edit's length change. Only the programs
// in between are parsed and checked again.
//
// A result is valid until the next `update`: reused programs and diagnostics are moved in place, so an older
// result's spans may no longer match its text.
import type { Diagnostic } from '../common/diagnostics';
import { sortDiagnostics } from '../common/diagnostics';
import { commonPrefixLength, commonSuffixLength, type Span } from '../common/text';
import { Source, type ArtDocument, type Program } from './ast';
import { checkDuplicates, checkProgram, duplicateKey } from './check';
import { ToolCatalog } from './knownTools';
import { parseProgram } from './parse';
import { moveDiagnostic, moveProgram, ownSpans } from './shift';
import { splitFrom } from './split';

/** The region an edit replaced: [start, oldEnd) of the previous text became [start, newEnd) of the new one. */
export interface EditRegion {
  start: number;
  oldEnd: number;
  newEnd: number;
}

export interface IncrementalResult {
  doc: ArtDocument;
  diagnostics: Diagnostic[];
  /** How many programs were parsed anew (the rest were reused). */
  reparsed: number;
}

/** The diagnostics of a program that has none (most): one shared, frozen array. */
const NO_DIAGNOSTICS: Diagnostic[] = Object.freeze([]) as unknown as Diagnostic[];

interface State {
  doc: ArtDocument;
  /** Diagnostics of each program, aligned with doc.programs. */
  perProgram: Diagnostic[][];
  /** Each program's duplicateKey, aligned with doc.programs. */
  keys: number[];
  /** How many programs have each key (updated in place: a state is valid until the next update). */
  counts: Map<number, number>;
  /** The document's result; null after `advance` (assembled by the next `update`). */
  result: IncrementalResult | null;
  reparsed: number;
}

export class ArtIncremental {
  private state: State | null = null;
  private tools: ToolCatalog;
  /** The text every program of the current state reads its values from (see Source): pointed at each new text. */
  private readonly source = new Source('');

  constructor(opts: { tools?: ToolCatalog } = {}) {
    this.tools = opts.tools ?? new ToolCatalog();
  }

  /** New tool names change `tool-name-typo` results, so the next update checks everything again. */
  setTools(tools: ToolCatalog): void {
    this.tools = tools;
    this.state = null;
  }

  /**
   * Parse and check `text`. `edit`, when the caller knows it, is the region of the previous text that changed
   * (all edits since the previous update, merged); without it the region is found by comparing the texts.
   */
  update(text: string, edit?: EditRegion): IncrementalResult {
    const next = this.next(text, edit);
    this.state = next;
    return (next.result ??= assemble(next));
  }

  /**
   * Parse and check what changed in `text`, as `update` does, without assembling the whole document's diagnostics
   * (sorted, with the duplicate-program check across programs): for the steps of a first parse fed in prefixes,
   * whose results nobody reads. The next `update` assembles them.
   */
  advance(text: string, edit?: EditRegion): void {
    this.state = this.next(text, edit);
  }

  private next(text: string, edit?: EditRegion): State {
    const prev = this.state;
    if (!prev) return this.build(text, 0, -1, null, 0);
    const old = prev.doc.text;
    const delta = text.length - old.length;
    let p: number;
    let oldEnd: number;
    if (edit && edit.start >= 0 && edit.start <= edit.oldEnd && edit.oldEnd <= old.length && edit.newEnd - edit.oldEnd === delta) {
      p = edit.start;
      oldEnd = edit.oldEnd;
    } else {
      if (old === text) return prev;
      p = commonPrefixLength(old, text);
      oldEnd = old.length - commonSuffixLength(old, text, Math.min(old.length, text.length) - p);
    }

    // Resume one program before the first program the edit touches: text appended after a program's last line
    // may belong to it.
    const programs = prev.doc.programs;
    let k = 0;
    while (k < programs.length && programs[k].span.end < p) k++;
    const resume = Math.max(0, k - 1);
    return this.build(text, resume, oldEnd, prev, delta);
  }

  /** Re-split from program `resume` of `prev` (from the top when there is no previous state). */
  private build(text: string, resume: number, oldEnd: number, prev: State | null, delta: number): State {
    const before = prev ? prev.doc.programs.slice(0, resume) : [];
    const from = prev && resume > 0 ? prev.doc.programs[resume].span.start : 0;
    const oldPrograms = prev?.doc.programs ?? [];
    // From here on the previous state's programs read the new text: those before the edit are the same there, and
    // those after it are moved below before anything reads them.
    this.source.text = text;

    // An old program start after the edit, seen again in the new text: from there on nothing changed.
    let syncIndex = -1;
    const stopAt = (start: number) => {
      if (!prev) return false;
      const oldStart = start - delta;
      if (oldStart < oldEnd) return false;
      const i = findStart(oldPrograms, oldStart);
      if (i < 0) return false;
      syncIndex = i;
      return true;
    };
    const { result: split } = splitFrom(text, from, from === 0, stopAt);

    const programs: Program[] = before;
    const perProgram: Diagnostic[][] = prev ? prev.perProgram.slice(0, resume) : [];
    const keys: number[] = prev ? prev.keys.slice(0, resume) : [];
    for (const span of split.programs) {
      const program = parseProgram(this.source, span);
      programs.push(program);
      const found = checkProgram(text, program, this.tools);
      perProgram.push(found.length ? found.map(ownSpans) : NO_DIAGNOSTICS);
      keys.push(duplicateKey(text, program));
    }
    const reparsed = split.programs.length;

    // How many programs have each duplicate key: the old programs parsed again leave, the new ones come.
    const counts = prev ? prev.counts : new Map<number, number>();
    if (prev) for (let i = resume, end = syncIndex >= 0 ? syncIndex : oldPrograms.length; i < end; i++) count(counts, prev.keys[i], -1);
    for (let i = resume; i < keys.length; i++) count(counts, keys[i], 1);

    let separators: Span[];
    const oldSeparators = prev?.doc.separators ?? [];
    // Separators are in order: the ones kept before the edit and moved after it are found by binary search.
    const kept = oldSeparators.slice(
      0,
      lowerBound(oldSeparators, x => x.end >= from),
    );
    if (prev && syncIndex >= 0) {
      const syncOld = oldPrograms[syncIndex].span.start;
      for (let i = syncIndex; i < oldPrograms.length; i++) {
        if (delta) {
          moveProgram(oldPrograms[i], delta);
          for (const d of prev.perProgram[i]) moveDiagnostic(d, delta);
        }
        programs.push(oldPrograms[i]);
        perProgram.push(prev.perProgram[i]);
        keys.push(prev.keys[i]);
      }
      const after = oldSeparators.slice(lowerBound(oldSeparators, x => x.start >= syncOld));
      if (delta)
        for (const x of after) {
          x.start += delta; // in place, as the programs (one per program: a copy of each was most of an edit's garbage)
          x.end += delta;
        }
      separators = kept.concat(split.separators, after);
    } else {
      separators = kept.concat(split.separators);
    }

    const preambleSpan = from === 0 ? split.preamble : (prev!.doc.preamble?.span ?? null);
    const doc: ArtDocument = {
      text,
      preamble: preambleSpan ? { text: text.slice(preambleSpan.start, preambleSpan.end).trim(), span: preambleSpan } : null,
      programs,
      separators,
    };
    return { doc, perProgram, keys, counts, result: null, reparsed };
  }
}

/** The document's diagnostics: each program's, and the duplicate programs across them, in document order. */
function assemble(state: State): IncrementalResult {
  const diagnostics = state.perProgram.flat();
  diagnostics.push(...checkDuplicates(state.doc, state.keys, state.counts));
  return { doc: state.doc, diagnostics: sortDiagnostics(diagnostics), reparsed: state.reparsed };
}

function count(counts: Map<number, number>, key: number, by: number): void {
  if (key < 0) return;
  const n = (counts.get(key) ?? 0) + by;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}

/** The first index of `list` at which `at` holds (it holds from some index on), or the list's length. */
function lowerBound<T>(list: readonly T[], at: (x: T) => boolean): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (at(list[mid])) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Index of the program starting exactly at `start` (programs are in document order), or -1. */
function findStart(programs: Program[], start: number): number {
  let lo = 0;
  let hi = programs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const s = programs[mid].span.start;
    if (s === start) return mid;
    if (s < start) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
