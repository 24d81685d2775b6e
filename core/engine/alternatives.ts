// Alternatives at a step: k continuations of the next step sampled at a pause (one request with n = k where the
// client can), each cut where the run would stop it, grouped and ranked by average negative log-likelihood or by
// vote; and a chosen one streamed as the next completion without asking the model again.
import type { CompletionChunk, CompletionRequest, CompletionResult, ModelClient, Usage } from '../model/types';
import type { RunProtocol } from '../protocols/runProtocol';
import type { Alternative } from '../trace/vocabulary';

/** Samples k continuations of `base` (the run's text as it goes on from the pause), cut where the run would stop them and ranked, best first. */
export async function sampleAlternatives(
  protocol: RunProtocol,
  model: ModelClient,
  o: { written: string; base: string; k: number; temperature?: number; maxTokens: number; signal: AbortSignal },
): Promise<{ prompt: string; list: Alternative[]; usage: Usage }> {
  const prompt = protocol.prompt + o.base;
  const t = o.temperature;
  const req: CompletionRequest = {
    prompt,
    stop: protocol.stops(o.base),
    maxTokens: o.maxTokens,
    temperature: t && t > 0 ? t : 0.8,
    logprobs: true,
    signal: o.signal,
  };
  const { results, usage } = await sampleCompletions(model, req, o.k);
  const list = rankAlternatives(results.map(r => ({ text: nextStepOf(protocol, o.written, o.base, r.text), logprobs: r.tokenLogprobs })));
  for (const alt of list) alt.then = afterAlternative(protocol, o.base, alt.text);
  protocol.detect(o.written);
  return { prompt, list, usage };
}

/** k completions of one request (n = k in one request where the client has `completeMany`) and their usage. */
async function sampleCompletions(model: ModelClient, req: CompletionRequest, k: number): Promise<{ results: CompletionResult[]; usage: Usage }> {
  let results: CompletionResult[];
  if (model.completeMany) results = await model.completeMany(req, k);
  else {
    results = [];
    for (let i = 0; i < k; i++) results.push(await model.complete(req));
  }
  const usage: Usage = { promptTokens: 0, completionTokens: 0 };
  for (const r of results) {
    usage.promptTokens += r.usage?.promptTokens ?? 0;
    usage.completionTokens += r.usage?.completionTokens ?? 0;
  }
  return { results, usage };
}

/**
 * A sampled continuation of `base` up to where the run would stop it: the next call, the end, a correction. The
 * protocol's detection is left as it was for `written` (the run's text).
 */
function nextStepOf(protocol: RunProtocol, written: string, base: string, text: string): string {
  const stop = protocol.detect(base + text).find(d => d.cut >= base.length && (d.type !== 'boundary' || d.call));
  const cut = stop ? stop.cut - base.length : text.length;
  protocol.detect(written);
  return text.slice(0, cut);
}

/** What the run does once an alternative is streamed (see Alternative.then). */
function afterAlternative(protocol: RunProtocol, base: string, text: string): Alternative['then'] {
  const all = base + text;
  const stop = protocol.detect(all).find(d => d.cut >= base.length && (d.type !== 'boundary' || d.call));
  if (stop) return stop.type === 'end' ? 'end' : stop.type === 'correction' ? 'more' : 'pause';
  const end = protocol.atStreamEnd(all, 'stop', true);
  return end.type === 'end' ? 'end' : end.type === 'boundary' ? 'pause' : end.type === 'incomplete' ? 'incomplete' : 'more';
}

/** Streams a chosen alternative as if the model wrote it again (no request, no tokens). */
export async function* forcedStream(text: string): AsyncGenerator<CompletionChunk, CompletionResult, void> {
  yield { text };
  return { text, finishReason: 'stop', usage: { promptTokens: 0, completionTokens: 0 } };
}

/** Groups identical samples and ranks them: by average negative log-likelihood when every one has logprobs, else by vote. */
export function rankAlternatives(samples: { text: string; logprobs?: number[] }[]): Alternative[] {
  const byText = new Map<string, Alternative>();
  for (const s of samples) {
    const lp = (s.logprobs ?? []).filter(Number.isFinite);
    const nll = lp.length ? -lp.reduce((a, b) => a + b, 0) / lp.length : null;
    const seen = byText.get(s.text);
    if (seen) {
      seen.votes++;
      if (nll !== null && (seen.nll === null || nll < seen.nll)) {
        seen.nll = nll;
        seen.tokens = lp.length;
      }
    } else byText.set(s.text, { text: s.text, nll, votes: 1, ...(nll !== null ? { tokens: lp.length } : {}) });
  }
  const list = [...byText.values()];
  const scored = list.every(a => a.nll !== null);
  return list.sort((a, b) => (scored ? a.nll! - b.nll! || b.votes - a.votes : b.votes - a.votes));
}
