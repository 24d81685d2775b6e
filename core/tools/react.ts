// ReACT's `Search` and `Lookup` actions over the local corpus (Yao et al. 2022, with a folder in place of
// Wikipedia). `Search[entity]` returns the first passage of the best-matching document; `Lookup[phrase]` returns the
// next sentence of that document containing the phrase, as `(Result i / n) sentence`. The two share state, kept in
// the pair of tool instances: create one pair per run (the registry does).
import { builtinInfo, deadline, fail, ok } from './common';
import { corpusToolFailure, loadCorpus, splitSentences, type CorpusDocument } from './corpus';
import type { Tool, ToolContext, ToolInput, ToolResult } from './types';

const DEFAULT_TIMEOUT_MS = 10_000;

interface ReactState {
  document: CorpusDocument | null;
  /** The phrase of the current Lookup and the sentences that matched it. */
  lookup: { phrase: string; results: string[]; next: number } | null;
}

export interface ReactTools {
  search: Tool;
  lookup: Tool;
  /** Forgets the last Search (a new run starts clean). */
  reset(): void;
}

/** The action input: the instruction, without the brackets ReACT writes in `Search[Milhouse]`. */
function actionInput(input: ToolInput): string {
  return input.instruction
    .trim()
    .replace(/^\[(.*)\]$/s, '$1')
    .replace(/^["'](.*)["']$/s, '$1')
    .trim();
}

export function createReactTools(opts: { corpusDir: string }): ReactTools {
  const state: ReactState = { document: null, lookup: null };

  const search: Tool = {
    info: builtinInfo('Search'),
    async run(input: ToolInput, ctx: ToolContext): Promise<ToolResult> {
      const entity = actionInput(input);
      if (!entity) return fail('[Search] needs an entity or phrase to search for, e.g. `[Action Input] Milhouse`');
      const d = deadline(ctx, DEFAULT_TIMEOUT_MS);
      try {
        const corpus = await loadCorpus(opts.corpusDir);
        const exact = corpus.documents.find(doc => doc.title.toLowerCase() === entity.toLowerCase());
        const ranked = exact ? [{ document: exact, score: Infinity }] : corpus.searchDocuments(entity, 6);
        state.lookup = null;
        if (ranked.length === 0 || ranked[0].document.passages.length === 0) {
          state.document = null;
          // An observation, not a failure: ReACT's agent reads it and searches again.
          return ok(`Could not find "${entity}" in the corpus.`, { found: false });
        }
        state.document = ranked[0].document;
        return ok(state.document.passages[0].text, {
          document: state.document.file,
          title: state.document.title,
          similar: ranked.slice(1).map(r => r.document.title),
        });
      } catch (e) {
        return corpusToolFailure('Search', e, d);
      } finally {
        d.dispose();
      }
    },
  };

  const lookup: Tool = {
    info: builtinInfo('Lookup'),
    async run(input: ToolInput): Promise<ToolResult> {
      const phrase = actionInput(input);
      if (!phrase) return fail('[Lookup] needs a phrase to look up, e.g. `[Action Input] named after`');
      if (!state.document) return fail('[Lookup] needs a successful Search first: it looks the phrase up in the last Search result');
      if (!state.lookup || state.lookup.phrase.toLowerCase() !== phrase.toLowerCase()) {
        const needle = phrase.toLowerCase();
        const sentences = state.document.passages.flatMap(p => splitSentences(p.text));
        state.lookup = { phrase, results: sentences.filter(s => s.toLowerCase().includes(needle)), next: 0 };
      }
      const l = state.lookup;
      if (l.next >= l.results.length) return ok('No more results.', { document: state.document.file, matches: l.results.length });
      const i = l.next++;
      return ok(`(Result ${i + 1} / ${l.results.length}) ${l.results[i]}`, { document: state.document.file });
    },
  };

  return {
    search,
    lookup,
    reset() {
      state.document = null;
      state.lookup = null;
    },
  };
}
