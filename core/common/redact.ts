// Keeping a secret (the endpoint's key, a header's value) out of everything written or shown: an endpoint that echoes
// the key in its completion must not have it printed, traced, recorded in a results file or a run summary. A secret
// is found as itself, as its distinctive body (without a prefix such as `sk-` or `sk-proj-`) and in the masked form
// tools print (`sk-tes...7890`: its first characters, dots or stars, its last four), and replaced by `***`.
//
// A completion arrives in chunks, and a secret may be split across them: `RedactStream` holds back the end of the
// text received so far while it could still be the beginning of a secret, so what it lets out is the redaction of
// the assembled text whatever the chunking.

export const REDACTED = '***';

/** The fewest characters of a secret's start (or its body's) a masked form shows. */
const ANCHOR = 4;
/** A body shorter than this is not told apart from ordinary text: only the whole secret is redacted. */
const MIN_BODY = 12;
/** The mask between the shown ends of a masked secret. */
const MASK = '(?:\\.{2,6}|\u2026|\\*{2,16})';

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `s` at least `min` characters long from its start: s0 s1 s2 s3 (s4 (s5 ...)?)? up to `max`. */
function growingPrefix(s: string, min: number, max: number): string {
  const head = escape(s.slice(0, min));
  let rest = '';
  for (let i = Math.min(max, s.length) - 1; i >= min; i--) rest = `(?:${escape(s[i])}${rest})?`;
  return head + rest;
}

/** The last `min` to `max` characters of `s`, the longer forms first. */
function growingSuffix(s: string, min: number, max: number): string {
  const tail = escape(s.slice(s.length - min));
  let rest = '';
  for (let i = s.length - Math.min(max, s.length); i < s.length - min; i++) rest = `(?:${rest}${escape(s[i])})?`;
  return rest + tail;
}

/** The part of a key after its prefix (`sk-`, `sk-proj-`, `sk-ant-api03-`): what stays distinctive without it. */
export function secretBody(secret: string): string {
  return secret.replace(/^(?:[A-Za-z][A-Za-z0-9]{0,5}[-_])+/, '');
}

/**
 * A secret and, when it is an Authorization value (`Bearer TOKEN`, `Basic BASE64`), its credential alone: the token
 * without `Bearer `, the password inside Basic's `user:password`. A text that holds the token without its scheme (a
 * model repeating it, a log) must not show it either.
 */
function withCredential(secret: string | undefined): string[] {
  if (!secret) return [];
  const m = /^\s*([A-Za-z][\w.+-]*)\s+(\S+)\s*$/.exec(secret);
  if (!m) return [secret];
  const out = [secret, m[2]];
  if (m[1].toLowerCase() === 'basic') {
    const decoded = Buffer.from(m[2], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon >= 0 && /^[\x20-\x7e]+$/.test(decoded)) out.push(decoded.slice(colon + 1));
  }
  return out;
}

/** A URL fit to show: no user info, no query (a key can sit there), no trailing slash. */
export function publicURL(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return '(invalid URL)';
  }
}

/** What a URL holds that may be a credential: its user, its password, the values of its query (decoded). */
export function urlSecrets(url: string): string[] {
  try {
    const u = new URL(url);
    return [...new Set([decodeURIComponent(u.username), decodeURIComponent(u.password), ...[...u.searchParams.values()]].filter(Boolean))];
  } catch {
    return [];
  }
}

/** `text` with `url` shown as publicURL shows it, and its credentials redacted wherever else they are. */
export function redactUrl(text: string, url: string): string {
  return new Redactor(urlSecrets(url)).redact(text.split(url).join(publicURL(url)));
}

export class Redactor {
  private readonly pattern: RegExp | null;
  /** The forms written out in full (each secret, its body). */
  private readonly literals: string[] = [];
  /** The texts whose masked forms are redacted, with the secret whose last characters they show. */
  private readonly masked: { start: string; secret: string }[] = [];
  /** The longest text a form of a secret can take. */
  private readonly longest: number = 0;

  /** Secrets shorter than 4 characters are left alone (they would redact ordinary text). */
  constructor(secrets: readonly (string | undefined)[]) {
    const forms: string[] = [];
    for (const s of new Set(secrets.flatMap(withCredential))) {
      if (!s || s.length < 4) continue;
      const body = secretBody(s);
      // The whole secret before its body, so that `sk-...` is one `***`, not `sk-***`.
      const starts = body !== s && body.length >= MIN_BODY ? [s, body] : [s];
      for (const b of starts) {
        forms.push(escape(b));
        this.literals.push(b);
        this.longest = Math.max(this.longest, b.length);
      }
      if (s.length >= 2 * ANCHOR + 4)
        for (const b of starts) {
          // Its first 4 to 12 characters, a mask, its last 4 to 12.
          forms.push(`${growingPrefix(b, ANCHOR, 12)}${MASK}${growingSuffix(s, 4, 12)}`);
          this.masked.push({ start: b, secret: s });
          this.longest = Math.max(this.longest, 12 + 16 + 12);
        }
    }
    this.pattern = forms.length ? new RegExp(forms.join('|'), 'g') : null;
  }

  /** Whether there is any secret to look for. */
  get active(): boolean {
    return this.pattern !== null;
  }

  /** The text with every form of every secret replaced by `***`. */
  redact(text: string): string {
    return this.pattern ? text.replace(this.pattern, REDACTED) : text;
  }

  /** A redactor for a text that arrives in pieces (see RedactStream). */
  stream(): RedactStream {
    return new RedactStream(this);
  }

  /**
   * Where the part of `text` that may still become a secret begins: the first position in its last `longest - 1`
   * characters from which the rest is the beginning of a form of a secret. text.length when there is none.
   */
  holdFrom(text: string): number {
    if (!this.pattern) return text.length;
    for (let p = Math.max(0, text.length - this.longest + 1); p < text.length; p++) if (this.couldBegin(text.slice(p))) return p;
    return text.length;
  }

  /** Whether `rest` (shorter than a form) is how a form of a secret begins. */
  private couldBegin(rest: string): boolean {
    if (this.literals.some(f => f.startsWith(rest))) return true;
    return this.masked.some(({ start, secret }) => {
      let k = 0;
      while (k < rest.length && k < 12 && rest[k] === start[k]) k++;
      if (k < ANCHOR) return false;
      let m = k;
      while (m < rest.length && /[.*\u2026]/.test(rest[m])) m++;
      if (m === k) return k === rest.length;
      const tail = rest.slice(m);
      for (let n = 4; n <= 12; n++) if (secret.slice(-n).startsWith(tail) && tail.length < n) return true;
      return false;
    });
  }
}

/**
 * The redaction of a text that arrives in pieces: `push` returns what can be let out now, `end` the rest. Joined,
 * the pieces it returns hold no form of a secret, however the text was cut.
 */
export class RedactStream {
  private pending = '';

  constructor(private readonly redactor: Redactor) {}

  push(piece: string): string {
    if (!this.redactor.active) return piece;
    const text = this.redactor.redact(this.pending + piece);
    const hold = this.redactor.holdFrom(text);
    this.pending = text.slice(hold);
    return text.slice(0, hold);
  }

  /** The text held back, redacted (the text is complete). */
  end(): string {
    const rest = this.redactor.redact(this.pending);
    this.pending = '';
    return rest;
  }
}
