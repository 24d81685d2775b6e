// `[search]`: full-text search over a local document folder (BM25 through MiniSearch), optionally reranked by the
// model's negative log-likelihood. The output is the best passage(s); as in the ART reference, the runner appends
// it to whatever the model itself wrote for `#i:` (details.appendToModelText says so).
import { builtinInfo, deadline, errorMessage, fail, ok } from './common';
import { corpusToolFailure, loadCorpus } from './corpus';
import { rerankByNll } from './rerank';
import type { Tool, ToolContext, ToolInput, ToolResult } from './types';

export interface SearchOptions {
  /** Absolute folder of `.txt`/`.md` documents. */
  corpusDir: string;
  /** Rerank the top BM25 passages by NLL when a model is configured (costs two completions per passage). */
  rerank?: boolean;
  /** How many BM25 passages the reranker considers. */
  rerankCandidates?: number;
  /** Most passages in the output; the second and later ones only when they score close to the best. */
  maxPassages?: number;
}

const DEFAULT_TIMEOUT_MS = 20_000;

export function createSearchTool(opts: SearchOptions): Tool {
  const info = builtinInfo('search');
  const passageCache = new Map<string, number[]>();
  return {
    info,
    async run(input: ToolInput, ctx: ToolContext): Promise<ToolResult> {
      const query = input.instruction.trim();
      if (!query) return fail('[search] needs a query: write it after the tool name, e.g. `Q1: [search] Where was Mark Twain born?`');
      const d = deadline(ctx, DEFAULT_TIMEOUT_MS);
      try {
        const corpus = await loadCorpus(opts.corpusDir);
        const candidates = corpus.searchPassages(query, Math.max(opts.rerankCandidates ?? 5, opts.maxPassages ?? 2));
        if (candidates.length === 0) return fail(`[search] found no passage matching "${query}" in ${corpus.folder}`);
        let ranked = candidates;
        let rerank: Record<string, unknown> = { used: false };
        if (opts.rerank && ctx.model) {
          try {
            const r = await rerankByNll(ctx.model, query, candidates, c => c.passage.text, d.signal, passageCache);
            if (r.reranked) {
              ranked = r.items;
              rerank = { used: true, nll: r.scores.map(x => Number(x.toFixed(4))) };
            } else rerank = { used: false, reason: r.reason };
          } catch (e) {
            // A model that cannot score prompts must not cost the user the search result itself.
            if (d.signal.aborted) throw e;
            rerank = { used: false, reason: `scoring failed: ${errorMessage(e)}` };
          }
        } else if (opts.rerank) rerank = { used: false, reason: 'no model configured' };
        // BM25 scores decide whether more than one passage is worth showing; after reranking keep the best only
        // unless the next one also scored well lexically.
        const best = ranked[0];
        const chosen = [best];
        for (const c of ranked.slice(1, opts.maxPassages ?? 2)) if (c.score >= 0.6 * candidates[0].score) chosen.push(c);
        return ok(chosen.map(c => c.passage.text).join('\n'), {
          appendToModelText: true,
          passages: chosen.map(c => ({ file: c.passage.file, index: c.passage.index, bm25: Number(c.score.toFixed(3)) })),
          rerank,
        });
      } catch (e) {
        return corpusToolFailure('search', e, d);
      } finally {
        d.dispose();
      }
    },
  };
}
