// How an endpoint's URL is shown: in messages, ids and traces, never with what could be a credential.

/** A base URL fit to show: no user info, no query (Azure keys can sit there), no trailing slash. */
export function publicURL(baseURL: string): string {
  try {
    const u = new URL(baseURL);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return '(invalid base URL)';
  }
}
