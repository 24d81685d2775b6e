// One analysis per open document and version: the `.art` side keeps an ArtIncremental per document (only the
// programs an edit touched are re-parsed); `.agent` files are small and parsed whole. Requests (hover, completion,
// ...) read the analysis of the current version, computing it synchronously when diagnostics have not yet.
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { ArtIncremental, nextSeparator, type ArtDocument, type ToolCatalog } from '../core/art';
import type { EditRegion } from '../core/art/incremental';
import { EditRegions } from './editRegions';
import type { Diagnostic } from '../core/common/diagnostics';
import { checkAgent, type AgentFile } from './agentCore';
import { yieldToEventLoop } from './guard';
import { languageOf } from './languages';
import { ServerDocument } from './document';
import { collectGarbage } from './memory';

export interface ArtAnalysis {
  kind: 'art';
  uri: string;
  version: number;
  doc: ArtDocument;
  diagnostics: Diagnostic[];
}

export interface AgentAnalysis {
  kind: 'agent';
  uri: string;
  version: number;
  file: AgentFile;
  diagnostics: Diagnostic[];
}

export type Analysis = ArtAnalysis | AgentAnalysis;

/** Before a first analysis of a text this large, the garbage of receiving it is collected (see ./memory). */
export const COLLECT_BEFORE_CHARS = 8 * 1024 * 1024;

/** An edit to a text this large is parsed in one turn and its document's diagnostics assembled in the next. */
const SPLIT_EDIT_CHARS = 4 * 1024 * 1024;

/** A first analysis of a text larger than this is fed to the incremental parser in prefixes, yielding between. */
export const CHUNK_CHARS = 256 * 1024;
/**
 * Each prefix is this much longer than the one before, up to MAX_STEP more. Each prefix is given as an append, so
 * ArtIncremental parses only what is new (from the program before it; `advance`: the whole text's diagnostics are
 * assembled once, at the end), but it copies the list of programs so far, so equal small steps would cost
 * O(n²/step); growing steps keep the total near one pass, and the cap keeps any one step (one pause of the event
 * loop) to about 1 MB of parsing (its time: docs/performance.md) instead of a third of the file.
 */
const GROWTH = 1.5;
const MAX_STEP = 1024 * 1024;

/** Offsets just after separator lines (as the parser reads them), at growing distances: each prefix ends on a whole program. */
export function prefixCuts(text: string, first = CHUNK_CHARS): number[] {
  const cuts: number[] = [];
  let from = first;
  while (from < text.length) {
    const lineStart = text.indexOf('\n', from) + 1;
    if (lineStart === 0) break;
    const sep = nextSeparator(text, lineStart);
    if (!sep) break;
    const nl = text.indexOf('\n', sep.end);
    if (nl < 0) break;
    const cut = nl + 1;
    if (cut >= text.length) break;
    cuts.push(cut);
    from = Math.max(cut + first, Math.min(Math.floor(cut * GROWTH), cut + MAX_STEP));
  }
  return cuts;
}

export class Analyzer {
  private readonly incrementals = new Map<string, ArtIncremental>();
  private readonly latest = new Map<string, Analysis>();
  /** Length of the text each incremental parser last saw (a big jump means: go in chunks again). */
  private readonly lastLength = new Map<string, number>();
  /** The analysis under way for each document (at most one: the chunks of two would interleave). */
  private readonly running = new Map<string, { version: number; promise: Promise<Analysis | null> }>();

  /** Edited regions since each document's last analysis (fed by the document manager's update hook). */
  readonly edits = new EditRegions();

  constructor(private tools: () => ToolCatalog) {}

  /** The tool catalog changed: every `.art` analysis must be redone with it. */
  resetTools(): void {
    this.incrementals.clear();
    this.latest.clear();
    this.lastLength.clear();
  }

  forget(uri: string): void {
    this.edits.take(uri);
    this.incrementals.delete(uri);
    this.latest.delete(uri);
    this.lastLength.delete(uri);
  }

  /** The analysis already computed for this exact version, if any. */
  cached(document: TextDocument): Analysis | undefined {
    const a = this.latest.get(document.uri);
    return a && a.version === document.version ? a : undefined;
  }

  /** The analysis of the current version, computed now if needed (requests use this). */
  current(document: TextDocument): Analysis | null {
    const hit = this.cached(document);
    if (hit) return hit;
    const kind = languageOf(document.uri, document.languageId);
    if (!kind) return null;
    const a = kind === 'art' ? this.art(document, document.getText()) : this.agent(document);
    this.latest.set(document.uri, a);
    return a;
  }

  /**
   * The analysis of `document`'s current version without blocking the server for long: a large first parse is
   * done in prefixes with a yield between; returns null when `superseded()` turns true (a newer version came).
   */
  async analyze(document: TextDocument, superseded: () => boolean): Promise<Analysis | null> {
    const hit = this.cached(document);
    if (hit) return hit;
    // One analysis per document and version at a time: a second caller shares the one under way.
    const running = this.running.get(document.uri);
    if (running && running.version === document.version) return running.promise;
    const promise = this.analyzeNow(document, superseded).finally(() => {
      if (this.running.get(document.uri)?.promise === promise) this.running.delete(document.uri);
    });
    this.running.set(document.uri, { version: document.version, promise });
    return promise;
  }

  /**
   * Waits, without blocking the server, until `document`'s current version has an analysis, so that a request
   * is answered from the analysis already made instead of recomputing it from the text in one blocking go: a
   * large first analysis runs in chunks (see `analyze`) and other requests are answered between them. Returns
   * false when `cancelled()` turns true first. A small edit to an analysed document is left to `current()`
   * (incremental: only the edited program is parsed again).
   */
  async settle(document: TextDocument, cancelled: () => boolean): Promise<boolean> {
    if (!languageOf(document.uri, document.languageId)) return true;
    for (;;) {
      if (cancelled()) return false;
      if (this.cached(document)) return true;
      const running = this.running.get(document.uri);
      const seen = this.lastLength.get(document.uri);
      if (!running && seen !== undefined && Math.abs(document.getText().length - seen) <= CHUNK_CHARS) return true;
      const version = document.version;
      // The analysis goes on when this request is cancelled (the diagnostics will want it); only a newer version stops it.
      const work = running && running.version === version ? running.promise : this.analyze(document, () => document.version !== version);
      let timer: NodeJS.Timeout | undefined;
      const gaveUp = new Promise<void>(resolve => (timer = setInterval(() => cancelled() && resolve(), 20)));
      try {
        await Promise.race([work, gaveUp]);
      } finally {
        clearInterval(timer);
      }
    }
  }

  private async analyzeNow(document: TextDocument, superseded: () => boolean): Promise<Analysis | null> {
    const kind = languageOf(document.uri, document.languageId);
    if (!kind) return null;
    if (kind === 'agent') return this.current(document);
    const text = document.getText();
    const seen = this.lastLength.get(document.uri) ?? 0;
    /** What a first analysis in prefixes has left to parse (the text after its last prefix). */
    let rest: EditRegion | undefined;
    if (Math.abs(text.length - seen) > CHUNK_CHARS) {
      if (text.length >= COLLECT_BEFORE_CHARS) collectGarbage();
      this.edits.forget(document.uri); // the prefixes below are not the text those edits were counted against
      const inc = this.incremental(document.uri);
      // The first prefix is compared with what the parser saw before (an older version's prefix, maybe); each next
      // one is this text's previous prefix with more appended.
      let appendFrom = -1;
      for (const cut of prefixCuts(text)) {
        if (cut <= seen) continue;
        await yieldToEventLoop();
        if (superseded()) return null;
        inc.advance(text.slice(0, cut), appendFrom < 0 ? undefined : { start: appendFrom, oldEnd: appendFrom, newEnd: cut });
        // The line starts too, a stretch at a time: the diagnostics' positions would otherwise find them all at once.
        if (document instanceof ServerDocument) document.prepareLines(cut);
        this.lastLength.set(document.uri, cut);
        appendFrom = cut;
      }
      await yieldToEventLoop();
      if (superseded()) return null;
      // The text has not changed since the last prefix (superseded() says so): the rest is an append too.
      if (appendFrom >= 0) rest = { start: appendFrom, oldEnd: appendFrom, newEnd: text.length };
    }
    const hitNow = this.cached(document); // a request may have computed it while we yielded
    if (hitNow) return hitNow;
    if (rest || (text.length >= SPLIT_EDIT_CHARS && this.incrementals.has(document.uri))) {
      // The rest of a first analysis, or an edit to a large library: the programs it touched are parsed in one turn,
      // the whole document's diagnostics assembled in the next (each a long turn on a large library).
      this.incremental(document.uri).advance(text, rest ?? this.edits.take(document.uri));
      this.lastLength.set(document.uri, text.length);
      if (rest && document instanceof ServerDocument) document.prepareLines(text.length);
      await yieldToEventLoop();
      if (superseded()) return null;
      const again = this.cached(document);
      if (again) return again;
    }
    const a = this.art(document, text);
    this.latest.set(document.uri, a);
    return a;
  }

  private incremental(uri: string): ArtIncremental {
    let inc = this.incrementals.get(uri);
    if (!inc) {
      inc = new ArtIncremental({ tools: this.tools() });
      this.incrementals.set(uri, inc);
    }
    return inc;
  }

  /** `append`: the region added to the prefix analysed last, when nothing else changed (see analyzeNow). */
  private art(document: TextDocument, text: string, append?: EditRegion): ArtAnalysis {
    const edited = this.edits.take(document.uri); // taken in any case: the next edits are counted from this text
    const { doc, diagnostics } = this.incremental(document.uri).update(text, append ?? edited);
    this.lastLength.set(document.uri, text.length);
    return { kind: 'art', uri: document.uri, version: document.version, doc, diagnostics };
  }

  private agent(document: TextDocument): AgentAnalysis {
    const { file, diagnostics } = checkAgent(document.getText());
    return { kind: 'agent', uri: document.uri, version: document.version, file, diagnostics };
  }
}
