// How an endpoint's URL is shown: in messages, ids and traces, never with what could be a credential (one rule for
// every URL shown: core/common/redact.ts).
import { publicURL as shown } from '../common/redact';

/** A base URL fit to show: no user info, no query (Azure keys can sit there), no trailing slash. */
export function publicURL(baseURL: string): string {
  const u = shown(baseURL);
  return u === '(invalid URL)' ? '(invalid base URL)' : u;
}
