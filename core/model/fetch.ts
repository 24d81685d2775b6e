// fetch that follows no redirect blindly. fetch follows redirects by default, and on 307/308 it re-sends the same POST:
// the prompt and the Authorization header would go to whatever host the endpoint (or something in front of it) names.
// The model client's fetch follows a redirect within the endpoint's own origin, as fetch would (301/302 of a POST and
// 303 become a GET without body), and not one to another origin: the answer becomes an error response of the
// redirect's status whose message says where it pointed, which the client reports in one line (`The model endpoint ...
// answered 307: redirect to https://other.example/v1/completions (another origin): not followed; set the base URL to
// the final address`). Redirect statuses are not retried. A download (core/model/download.ts) follows one to another
// origin, but without its credentials: a hub's token goes to the hub, never to where it redirects.

const MAX_REDIRECTS = 5;
const REDIRECT = new Set([301, 302, 303, 307, 308]);
/** What a request carries that only its own origin may see. */
const CREDENTIALS = ['authorization', 'proxy-authorization', 'cookie'];

/**
 * What a redirect to another origin does: `refuse` (the model client: the request is not followed, and the answer
 * says where it pointed), or `without-credentials` (a download: followed with the Authorization and Cookie headers
 * taken out, and never put back, even should a later redirect come back to the first origin: a hub redirects to its
 * CDN, which needs no token).
 */
export type CrossOrigin = 'refuse' | 'without-credentials';

/** fetch(input, init), following redirects only within the origin of `input`. */
export function sameOriginFetch(input: string | URL | Request, init: RequestInit = {}, fetchImpl = fetch): Promise<Response> {
  return redirectingFetch(input, init, 'refuse', fetchImpl);
}

/** fetch(input, init), following at most MAX_REDIRECTS redirects as `crossOrigin` says of one to another origin. */
export async function redirectingFetch(
  input: string | URL | Request,
  init: RequestInit,
  crossOrigin: CrossOrigin,
  fetchImpl = fetch,
): Promise<Response> {
  let url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  const origin = url.origin;
  let current: RequestInit = { ...init, redirect: 'manual' };
  for (let hop = 0; ; hop++) {
    const res = await fetchImpl(typeof input === 'object' && !(input instanceof URL) && hop === 0 ? input : url, current);
    if (!REDIRECT.has(res.status)) return res;
    const location = res.headers.get('location');
    if (!location) return res;
    await res.body?.cancel().catch(() => undefined);
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      return redirectError(res.status, `a redirect to an address that is not a URL (${JSON.stringify(location.slice(0, 200))})`);
    }
    const shown = `${next.origin}${next.pathname}`;
    if (next.origin !== origin) {
      if (crossOrigin === 'refuse')
        return redirectError(res.status, `redirect to ${shown} (another origin): not followed; set the base URL to the final address`);
      const headers = new Headers(current.headers);
      for (const h of CREDENTIALS) headers.delete(h);
      current = { ...current, headers };
    }
    if (hop + 1 >= MAX_REDIRECTS)
      return redirectError(res.status, `more than ${MAX_REDIRECTS} redirects (the last to ${shown}): set the base URL to the final address`);
    const method = (current.method ?? 'GET').toUpperCase();
    if (res.status === 303 ? method !== 'HEAD' : (res.status === 301 || res.status === 302) && method === 'POST') {
      const headers = new Headers(current.headers);
      headers.delete('content-type');
      headers.delete('content-length');
      current = { ...current, method: 'GET', body: undefined, headers };
    }
    url = next;
  }
}

function redirectError(status: number, message: string): Response {
  return new Response(JSON.stringify({ error: { message } }), { status, headers: { 'content-type': 'application/json' } });
}
