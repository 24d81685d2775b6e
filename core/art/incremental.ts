// Incremental parse + check for editors: after an edit, only programs whose text changed are parsed and checked
// again; every other program comes from a cache keyed by its text and is shifted to its new offset.
import type { Diagnostic } from '../common/diagnostics';
import { sortDiagnostics } from '../common/diagnostics';
import type { Span } from '../common/text';
import type { ArtDocument, Program } from './ast';
import { checkDuplicates, checkProgram } from './check';
import { ToolCatalog } from './knownTools';
import { parseProgram } from './parse';
import { splitPrograms } from './split';

interface Entry {
  /** Parsed and checked with the program at offset 0 of its own text. */
  program: Program;
  diagnostics: Diagnostic[];
  /** The generation in which this entry was last used (entries unused by the latest update are dropped). */
  used: number;
}

export interface IncrementalResult {
  doc: ArtDocument;
  diagnostics: Diagnostic[];
  /** How many programs were parsed anew (the rest came from the cache). */
  reparsed: number;
}

export class ArtIncremental {
  private cache = new Map<string, Entry>();
  private generation = 0;
  private tools: ToolCatalog;

  constructor(opts: { tools?: ToolCatalog } = {}) {
    this.tools = opts.tools ?? new ToolCatalog();
  }

  /** New tool names change `tool-name-typo` results, so every cached check is dropped. */
  setTools(tools: ToolCatalog): void {
    this.tools = tools;
    this.cache.clear();
  }

  update(text: string): IncrementalResult {
    const gen = ++this.generation;
    const split = splitPrograms(text);
    const programs: Program[] = [];
    const diagnostics: Diagnostic[] = [];
    let reparsed = 0;
    for (const span of split.programs) {
      const source = text.slice(span.start, span.end);
      let entry = this.cache.get(source);
      if (!entry) {
        reparsed++;
        const program = parseProgram(source, { start: 0, end: source.length });
        entry = { program, diagnostics: checkProgram(source, program, this.tools), used: gen };
        this.cache.set(source, entry);
      }
      entry.used = gen;
      programs.push(span.start === 0 ? entry.program : shifted(entry.program, span.start));
      for (const d of entry.diagnostics) diagnostics.push(span.start === 0 ? d : shifted(d, span.start));
    }
    // Keep the cache to what the current text uses (plus nothing else), so it cannot grow without bound.
    if (this.cache.size > programs.length) for (const [k, e] of this.cache) if (e.used !== gen) this.cache.delete(k);

    const doc: ArtDocument = {
      text,
      preamble: split.preamble ? { text: text.slice(split.preamble.start, split.preamble.end).trim(), span: split.preamble } : null,
      programs,
      separators: split.separators,
    };
    diagnostics.push(...checkDuplicates(doc));
    return { doc, diagnostics: sortDiagnostics(diagnostics), reparsed };
  }
}

/** A deep copy with every span ({start, end} of numbers) moved by `by`. */
function shifted<T>(value: T, by: number): T {
  if (Array.isArray(value)) return value.map((v) => shifted(v, by)) as T;
  if (value === null || typeof value !== 'object') return value;
  const o = value as Record<string, unknown>;
  if (typeof o.start === 'number' && typeof o.end === 'number' && Object.keys(o).length === 2) {
    return { start: (o.start as number) + by, end: (o.end as number) + by } satisfies Span as T;
  }
  const copy: Record<string, unknown> = {};
  for (const k in o) copy[k] = shifted(o[k], by);
  return copy as T;
}
