// Which API an OpenAI-compatible endpoint serves, asked when the endpoint is set ("ART: Set a Model Endpoint"): a
// one-token request to `/completions`, and when that path is not there (a chat-only service answers 404), one to
// `/chat/completions`. What each request answered is kept, to say why when neither works. Plain fetch: the
// extension's activation bundle carries it without the SDK.
import { publicURL } from './url';

export type ProbedApi = 'completions' | 'chat';

export interface ProbeResult {
  /** The API that answered, or null when neither did. */
  api: ProbedApi | null;
  /** What each request answered, one line each: `POST http://host/v1/completions: 404`. */
  said: string[];
}

export interface ProbeOptions {
  baseURL: string;
  model: string;
  /** Sent as the bearer token when given (never in `said`). */
  apiKey?: string;
  signal?: AbortSignal;
  /** Per request. Default 20 s. */
  timeoutMs?: number;
}

/** A status that says the path is not served (rather than the key, the model or the server being wrong). */
const NOT_SERVED = new Set([404, 405, 501]);

export async function probeApi(o: ProbeOptions): Promise<ProbeResult> {
  const said: string[] = [];
  const base = o.baseURL.replace(/\/+$/, '');
  const ask = async (api: ProbedApi): Promise<number | null> => {
    const path = api === 'chat' ? 'chat/completions' : 'completions';
    const body =
      api === 'chat'
        ? { model: o.model, messages: [{ role: 'user', content: 'Say OK.' }], max_tokens: 1, stream: false }
        : { model: o.model, prompt: 'Q1:', max_tokens: 1, stream: false };
    const signals = [AbortSignal.timeout(o.timeoutMs ?? 20_000), ...(o.signal ? [o.signal] : [])];
    const where = `POST ${publicURL(base)}/${path}`;
    try {
      const r = await fetch(`${base}/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}) },
        body: JSON.stringify(body),
        signal: AbortSignal.any(signals),
      });
      await r.body?.cancel();
      said.push(`${where}: ${r.status}`);
      return r.status;
    } catch (e) {
      if (o.signal?.aborted) throw e;
      const why = (e as Error).name === 'TimeoutError' ? 'no answer in time' : ((e as { cause?: Error }).cause?.message ?? (e as Error).message);
      said.push(`${where}: ${why}`);
      return null;
    }
  };
  const completions = await ask('completions');
  if (completions !== null && completions >= 200 && completions < 300) return { api: 'completions', said };
  if (completions === null || !NOT_SERVED.has(completions)) return { api: null, said };
  const chat = await ask('chat');
  return { api: chat !== null && chat >= 200 && chat < 300 ? 'chat' : null, said };
}
