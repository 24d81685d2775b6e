// Decoding constraints sent with each request, where the endpoint enforces them: the protocol says what the model
// may write next (core/agent/constrain.ts for agent specs; the step syntax of ART programs and MultiTool-CoT
// triggers below), and the Constrainer puts it in the request body in the form the server reads:
//   vLLM >= 0.12   structured_outputs: { regex } or { grammar }
//   vLLM older     guided_regex / guided_grammar
//   SGLang         regex / ebnf
//   llama.cpp      grammar (GBNF)
// `auto` asks the endpoint once what it is (SGLang: GET /get_server_info or /server_info; llama.cpp: GET /props;
// vLLM: GET /version) and sends nothing to one it does not recognise or whose probe fails, saying so once in the
// log. A request the server rejects (HTTP 400) is sent again once without the constraint, and the run says so (log
// line and trace record).
import type { Constraint } from '../agent/constrain';
import type { CompletionChunk, CompletionRequest, CompletionResult, ModelClient } from '../model/types';
import { CONSTRAIN_SERVERS, type ConstrainServer, type SentConstraint } from '../trace/vocabulary';
import type { RunProtocol } from './runProtocol';
import { anyCharExcept, literal, type SyntaxForm } from '../common/portableSyntax';

export type { Constraint };

export const CONSTRAIN_MODES = ['auto', 'off', ...CONSTRAIN_SERVERS] as const;
export type ConstrainMode = (typeof CONSTRAIN_MODES)[number];

/** The request body fields that carry a constraint, per server. */
export function constraintBody(sent: SentConstraint): Record<string, unknown> {
  const regex = sent.form === 'regex';
  switch (sent.server) {
    case 'vllm':
      return { structured_outputs: regex ? { regex: sent.text } : { grammar: sent.text } };
    case 'vllm-legacy':
      return regex ? { guided_regex: sent.text } : { guided_grammar: sent.text };
    case 'sglang':
      return regex ? { regex: sent.text } : { ebnf: sent.text };
    case 'llama.cpp':
      return { grammar: sent.text };
  }
}

/** The server kind behind an OpenAI-compatible base URL, by its own routes; null when none answers as expected. */
export async function probeServer(baseURL: string, fetchImpl: typeof fetch = fetch, timeoutMs = 3000): Promise<ConstrainServer | null> {
  return (await probeServerWhy(baseURL, fetchImpl, timeoutMs)).server;
}

/**
 * probeServer, with the probe's failures: each route that could not be asked or answered an error other than "not
 * found" (`GET /version: HTTP 500`, `GET /props: fetch failed`), so a run left unconstrained can say why.
 */
export async function probeServerWhy(
  baseURL: string,
  fetchImpl: typeof fetch = fetch,
  timeoutMs = 3000,
): Promise<{ server: ConstrainServer | null; failures: string[] }> {
  const root = baseURL.replace(/\/+$/, '').replace(/\/v1$/, '');
  const failures: string[] = [];
  const get = async (path: string): Promise<Record<string, unknown> | null> => {
    try {
      const r = await fetchImpl(root + path, { signal: AbortSignal.timeout(timeoutMs) });
      if (!r.ok) {
        if (r.status !== 404 && r.status !== 405) failures.push(`GET ${path}: HTTP ${r.status}`);
        return null;
      }
      const body = (await r.json()) as unknown;
      return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
    } catch (e) {
      const code = (e as { cause?: { code?: unknown } }).cause?.code;
      failures.push(`GET ${path}: ${(e as Error).message}${typeof code === 'string' ? ` (${code})` : ''}`);
      return null;
    }
  };
  return { server: await identify(get), failures };
}

async function identify(get: (path: string) => Promise<Record<string, unknown> | null>): Promise<ConstrainServer | null> {
  for (const path of ['/get_server_info', '/server_info']) {
    const info = await get(path);
    if (info && ('tokenizer_path' in info || 'model_path' in info || 'version' in info)) return 'sglang';
  }
  const props = await get('/props');
  if (props && ('default_generation_settings' in props || 'total_slots' in props || 'build_info' in props)) return 'llama.cpp';
  const version = await get('/version');
  if (version && typeof version.version === 'string') {
    const m = /^(\d+)\.(\d+)/.exec(version.version);
    if (!m) return 'vllm';
    return Number(m[1]) > 0 || Number(m[2]) >= 12 ? 'vllm' : 'vllm-legacy';
  }
  return null;
}

/**
 * A regex longer than this goes as the grammar instead (every server kind takes one): the regex of an automaton can
 * grow much faster than its grammar (one rule per state), as for an agent whose prompt texts start with different
 * non-ASCII characters (core/common/regular.ts portableDfa).
 */
export const MAX_REGEX_LENGTH = 256 * 1024;

export interface ConstrainerOptions {
  mode: ConstrainMode;
  /** The endpoint (for `auto`). */
  baseURL?: string;
  /** Prefer the grammar form where the server takes both (llama.cpp takes only a grammar). Default: regex, unless longer than MAX_REGEX_LENGTH. */
  prefer?: 'regex' | 'grammar';
  fetch?: typeof fetch;
  /** Told once, in one line, when `auto` finds no server to write constraints for: the run goes unconstrained. */
  log?: (line: string) => void;
  /**
   * The grammar goes exact (Constraint.exactGbnf) to a llama.cpp that is known to read non-ASCII classes right (the
   * local model, in-process), not in the portable subset made for the engines that misread them.
   */
  exact?: boolean;
}

export class Constrainer {
  private server: Promise<ConstrainServer | null> | undefined;

  constructor(private readonly opts: ConstrainerOptions) {}

  /** The server the constraints are written for (probed once in `auto`), or null: send none. */
  resolveServer(): Promise<ConstrainServer | null> {
    if (!this.server) {
      const m = this.opts.mode;
      this.server =
        m === 'off'
          ? Promise.resolve(null)
          : m === 'auto'
            ? this.opts.baseURL
              ? this.probe(this.opts.baseURL)
              : Promise.resolve(null)
            : Promise.resolve(m);
    }
    return this.server;
  }

  private async probe(baseURL: string): Promise<ConstrainServer | null> {
    const { server, failures } = await probeServerWhy(baseURL, this.opts.fetch);
    if (!server) {
      const why = failures.length ? `the probe failed (${failures.join('; ')})` : 'it does not answer as vLLM, SGLang or a llama.cpp server';
      this.opts.log?.(
        `constrain auto: no decoding constraints are sent to ${baseURL}: ${why}; the run goes unconstrained (set constrain to the server kind, or off)`,
      );
    }
    return server;
  }

  /** The constraint for the next request of a run, or null when none is sent. */
  async forRequest(protocol: RunProtocol, written: string): Promise<SentConstraint | null> {
    const server = await this.resolveServer();
    if (!server) return null;
    const c = protocol.constraint?.(written);
    if (!c) return null;
    const form = server === 'llama.cpp' || this.opts.prefer === 'grammar' || c.regex.length > MAX_REGEX_LENGTH ? 'grammar' : 'regex';
    const grammar = this.opts.exact && server === 'llama.cpp' && c.exactGbnf ? c.exactGbnf : c.gbnf;
    return { server, form, text: form === 'regex' ? c.regex : grammar };
  }
}

/**
 * Streams a request with the constraint in its body; when the server answers 400 before any text, calls
 * `onRejected` with its message and streams the request again without the constraint.
 */
export async function* streamConstrained(
  model: ModelClient,
  req: CompletionRequest,
  sent: SentConstraint | null,
  onRejected: (message: string) => void,
): AsyncGenerator<CompletionChunk, CompletionResult, void> {
  if (!sent) return yield* model.stream(req);
  const it = model.stream({ ...req, extraBody: { ...req.extraBody, ...constraintBody(sent) } });
  let first: IteratorResult<CompletionChunk, CompletionResult>;
  try {
    first = await it.next();
  } catch (err) {
    if ((err as { status?: unknown }).status !== 400 || req.signal?.aborted) throw err;
    onRejected(err instanceof Error ? err.message : String(err));
    return yield* model.stream(req);
  }
  if (first.done) return first.value;
  yield first.value;
  return yield* it;
}

// ---- ART programs and MultiTool-CoT ----
// Written in the portable subset (core/common/portableSyntax.ts): names are literals, the classes leave out ASCII only.

const alternatives = (names: readonly string[], form: SyntaxForm) => `(${names.map(n => literal(n, form)).join(form === 'gbnf' ? ' | ' : '|')})`;

/**
 * The next ART step up to its call: `Qk: [name] instruction` then `\n#` (where the runner stops and writes `#k:`),
 * or `Qk: [EOQ]` then `\nAns: ...`. `afterMarker`: the text already ends with `Qk:` (the header's `Q1:`).
 * `names` restricts the step names (the tool library and the library's sub-step names); any name otherwise.
 */
export function artStepConstraint(k: number, afterMarker: boolean, names?: readonly string[]): Constraint {
  const marker = afterMarker ? '' : `Q${k}:`;
  const list = names?.length ? [...new Set(names)] : null;
  const name = (form: SyntaxForm) => (list ? alternatives(list, form) : `${anyCharExcept(']\n', form)}+`);
  const line = (form: SyntaxForm) => `${anyCharExcept('\n', form)}*`;
  const regex = `${literal(marker, 'regex')} ?(\\[${name('regex')}\\]${line('regex')}\\n#|\\[EOQ\\]\\nAns:${line('regex')}\\n?)`;
  const gbnf = [
    `root ::= ${marker ? `${literal(marker, 'gbnf')} ` : ''}" "? (call | eoq)`,
    `call ::= "[" ${name('gbnf')} "]" ${line('gbnf')} "\\n#"`,
    `eoq ::= "[EOQ]\\nAns:" ${line('gbnf')} "\\n"?`,
  ].join('\n');
  return { regex, gbnf: gbnf + '\n' };
}

/**
 * MultiTool-CoT: free text without `<<`, then either the end or one trigger `<<Tool>>` (where the runner stops);
 * `names` restricts the triggers to the tool library.
 */
export function triggerConstraint(names?: readonly string[]): Constraint {
  const list = names?.length ? [...new Set(names)] : null;
  const name = (form: SyntaxForm) => (list ? alternatives(list, form) : `${anyCharExcept('<>\n', form)}+`);
  const notLt = (form: SyntaxForm) => anyCharExcept('<', form);
  const regex = `(${notLt('regex')}|<${notLt('regex')})*(<<${name('regex')}>>|<)?`;
  const gbnf = [`root ::= free ("<<" ${name('gbnf')} ">>" | "<")?`, `free ::= (${notLt('gbnf')} | "<" ${notLt('gbnf')})*`].join('\n');
  return { regex, gbnf: gbnf + '\n' };
}
