// Task selection: which demonstrations of a task library go into the prompt for a new task. By default every
// program of the same file (ART's task clusters are files); or the programs most similar to the new task by
// lexical similarity (BM25 over description and input, with MiniSearch), as an alternative to ART's
// model-based selection.
import MiniSearch from 'minisearch';
import { openStep, type ArtDocument, type Program } from '../art/ast';
import type { SelectionWhy } from '../trace/vocabulary';

export type { SelectionWhy };

export interface TaskSpec {
  /** `(Task name)` written before the description. */
  taskName?: string;
  description?: string;
  input: string;
}

export interface Demonstration {
  doc: ArtDocument;
  index: number;
  program: Program;
  /** Why the strategy chose it (the trace and "Show Prompt" show it). */
  why?: SelectionWhy;
  /** The library file it comes from, when the selection knew the paths (core/evaluation/taskSelection.ts). */
  file?: string;
}

/** Every task selection strategy (the run option `select`). */
export const SELECT_STRATEGIES = ['same-file', 'similar', 'llm', 'best-cluster'] as const;
export type SelectStrategy = (typeof SELECT_STRATEGIES)[number];

export interface SelectionOptions {
  /** `same-file` (default): every program of the first library; `similar`: the k most similar of all libraries. */
  strategy?: 'same-file' | 'similar';
  /** Demonstrations to keep with `similar`. Default 5. */
  k?: number;
  /** Program indices of the first library to leave out (the program being run, so its answer is not in the prompt). */
  exclude?: number[];
}

/**
 * A program that can serve as a demonstration: it has an input and steps, and is neither the `%s` template nor a task
 * that ends at an open `Qk:` for the model to write from (openStep).
 */
export function isDemonstration(p: Program): boolean {
  return !p.template && p.input !== null && p.steps.length > 0 && !openStep(p);
}

export function selectDemonstrations(libraries: ArtDocument[], task: TaskSpec, opts: SelectionOptions = {}): Demonstration[] {
  const exclude = new Set(opts.exclude ?? []);
  const candidates: Demonstration[] = [];
  libraries.forEach((doc, li) => {
    doc.programs.forEach((program, index) => {
      if (!isDemonstration(program)) return;
      if (li === 0 && exclude.has(index)) return;
      candidates.push({ doc, index, program });
    });
  });
  if ((opts.strategy ?? 'same-file') === 'same-file')
    return candidates.filter(c => c.doc === libraries[0]).map(c => ({ ...c, why: { strategy: 'same-file' } }));
  const k = Math.max(1, opts.k ?? 5);
  const index = new MiniSearch<{ id: number; text: string }>({ fields: ['text'], idField: 'id' });
  index.addAll(candidates.map((c, id) => ({ id, text: programKey(c.program) })));
  const query = [task.taskName, task.description, task.input].filter(Boolean).join(' ');
  const hits = index.search(query, { combineWith: 'OR', prefix: true, fuzzy: 0.1 }).slice(0, k);
  const why = new Map<number, SelectionWhy>(
    hits.map((h, rank) => [h.id as number, { strategy: 'similar', score: h.score, terms: [...h.terms].sort(), rank: rank + 1 }]),
  );
  // Fill up in file order when few words matched, so the prompt always has k demonstrations.
  for (let i = 0; why.size < k && i < candidates.length; i++) if (!why.has(i)) why.set(i, { strategy: 'similar', score: 0, terms: [], rank: null });
  return [...why.keys()].sort((a, b) => a - b).map(i => ({ ...candidates[i], why: why.get(i) }));
}

/** The text a program is matched on: its task name, description and input. */
function programKey(p: Program): string {
  return [p.description?.taskName, p.description?.text, p.input?.text].filter(Boolean).join(' ');
}
