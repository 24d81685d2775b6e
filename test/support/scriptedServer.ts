// A real OpenAI-compatible HTTP server on 127.0.0.1 for tests and benchmarks. It streams scripted continuations
// token by token over SSE (completions and chat APIs), honours `stop` (or ignores it, like many chat endpoints),
// records every request, counts tokens streamed after a tool call was complete, and injects faults.
//
// Scripts are ContinuationScripts (see core/replay/script.ts): for each request the server finds where the prompt
// ends in the first script that lines up with it and streams the rest.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { ContinuationScript, roughTokens } from '../../core/replay/script';
import { StopScanner } from '../../core/model/stops';
import { Gbnf } from './gbnf';

export type Fault =
  /** Answer with an HTTP error (a 429 may carry Retry-After as `retry-after` seconds or `retry-after-ms`). */
  | { status: number; retryAfter?: string; retryAfterMs?: number; message?: string }
  /** Stream this many tokens, then destroy the connection without a finish reason. */
  | { dropAfterTokens: number }
  /** Stream this many tokens, then wait `ms` before each further token (a slow or stalled stream). */
  | { slowAfterTokens: number; ms: number }
  /** A careless endpoint: echo the request's Authorization header in a 500 body or in an SSE error event. */
  | { echoAuthorization: 'body' | 'stream' }
  /** A 500 whose body is this many bytes. */
  | { errorBodyBytes: number }
  /** Stream tokens without end (bounded: stops after `maxChunks` or when the client goes away). */
  | { forever: true; maxChunks?: number };

export interface RecordedRequest {
  path: string;
  body: Record<string, any>;
  /** The text the model continues: the prompt, or the last chat message's content. */
  prompt: string;
  stop: string[];
  /** performance.now() when the request arrived. */
  receivedAt: number;
  /** performance.now() when the last token was written. */
  lastTokenAt?: number;
  status: number;
  tokensSent: number;
  /** Tokens sent at or after the first point where a tool call was complete. */
  tokensAfterCall: number;
  finishReason?: string;
  /** The client closed the connection before the server finished. */
  aborted: boolean;
  /** No script lined up with the prompt (the server answered with an empty completion). */
  unaligned: boolean;
  fault?: Fault;
  /** The decoding constraint the request carried (any server's field), and whether a script met it. */
  constraint?: { regex?: string; grammar?: string; met: boolean };
  /** The request's Authorization header (the key the client sent), if any. */
  authorization?: string;
}

export interface ScriptedServerOptions {
  /** Whether `stop` is honoured (true) or ignored like some chat endpoints (false). Default true. */
  honourStop?: boolean;
  /** Delay between tokens. Default 1 ms. */
  tokenDelayMs?: number;
  /** Tokens per SSE chunk. Default 1. */
  tokensPerChunk?: number;
  /**
   * Wait up to this long before the first token past a call point (once per response), as a slow model would: a
   * client that aborts at the call gets nothing more, one that reads on gets everything. The wait ends as soon as
   * the client closes the stream, so a generous value costs a test nothing and holds on a loaded machine. Default 0.
   */
  callPauseMs?: number;
  /** Answer the probe route of this server (GET /version, /props, /get_server_info) like it. Default none. */
  identity?: 'vllm' | 'vllm-legacy' | 'sglang' | 'llama.cpp' | null;
  /** Answer 400 to any request that carries a decoding constraint (a server that does not know the field). */
  rejectConstraints?: boolean;
  /** The most samples (`n`) one request may ask for; more is a 400 worded as llama-server words it. Default none. */
  maxSamples?: number;
  /** Answer every probe route (GET other than /models) with this error status (a server failing the probe). */
  probeStatus?: number;
  /** Wait this long before answering each completion request (a busy endpoint's fixed latency). Default 0. */
  requestDelayMs?: number;
  /**
   * Whether a script picks up again after a prompt departs from it (an edited input, a corrected state). Default
   * true; false: a script answers only prompts that follow it (slots aside), so diverging paths stay apart.
   */
  resync?: boolean;
}

export class ScriptedServer {
  readonly requests: RecordedRequest[] = [];
  honourStop: boolean;
  tokenDelayMs: number;
  tokensPerChunk: number;
  callPauseMs: number;
  identity: ScriptedServerOptions['identity'];
  rejectConstraints: boolean;
  maxSamples: number | undefined;
  probeStatus: number | undefined;
  requestDelayMs: number;
  resync: boolean;
  /**
   * When several scripts line up with a prompt, answer each request with the next of them in turn instead of the
   * first (self-consistency: the samples of one prompt write different programs; a sample's later requests line up
   * with its own script only). Default false.
   */
  rotateScripts = false;
  private turn = 0;
  private scripts: ContinuationScript[] = [];
  /**
   * A model that reads its prompt: the scripts for one request, made from its prompt (tried before the fixed ones).
   * What it writes then depends on the prompt alone, as a real model's does (test/support/feedbackModel.ts).
   */
  scriptsFor: ((prompt: string, body: Record<string, any>) => ContinuationScript[]) | undefined;
  /** The log-probability each token of a script gets (default -0.5), so samples of different scripts rank apart. */
  readonly scriptLogprobs = new Map<ContinuationScript, number>();
  private faults: Fault[] = [];
  private server: Server | null = null;
  private readonly open = new Set<ServerResponse>();
  private readonly inFlight = new Set<Promise<void>>();

  /** Every server still listening: a test that fails half-way must not leave one behind to keep the test process alive. */
  private static readonly live = new Set<ScriptedServer>();

  /** Closes every server a test file started (use in `after`). */
  static async closeAll(): Promise<void> {
    await Promise.all([...ScriptedServer.live].map(s => s.close()));
  }

  constructor(opts: ScriptedServerOptions = {}) {
    this.honourStop = opts.honourStop ?? true;
    this.tokenDelayMs = opts.tokenDelayMs ?? 1;
    this.tokensPerChunk = opts.tokensPerChunk ?? 1;
    this.callPauseMs = opts.callPauseMs ?? 0;
    this.identity = opts.identity ?? null;
    this.rejectConstraints = opts.rejectConstraints ?? false;
    this.maxSamples = opts.maxSamples;
    this.probeStatus = opts.probeStatus;
    this.requestDelayMs = opts.requestDelayMs ?? 0;
    this.resync = opts.resync ?? true;
  }

  /** Scripts tried in order; the first whose recording lines up with a prompt answers it. */
  setScripts(...scripts: ContinuationScript[]): this {
    this.scripts = scripts;
    return this;
  }

  /** Faults applied to the next requests, one each, in order. */
  injectFaults(...faults: Fault[]): this {
    this.faults.push(...faults);
    return this;
  }

  get baseURL(): string {
    const a = this.server?.address() as AddressInfo | null;
    if (!a) throw new Error('the scripted server is not listening');
    return `http://127.0.0.1:${a.port}/v1`;
  }

  get tokensStreamed(): number {
    return this.requests.reduce((n, r) => n + r.tokensSent, 0);
  }

  get tokensAfterCall(): number {
    return this.requests.reduce((n, r) => n + r.tokensAfterCall, 0);
  }

  /** Resolves once every request so far has been answered or seen aborted (then `aborted` and counts are final). */
  async settled(): Promise<void> {
    while (this.inFlight.size) await Promise.all([...this.inFlight]);
  }

  reset(): void {
    this.requests.length = 0;
    this.faults.length = 0;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const p = this.handle(req, res)
        .catch(err => {
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { message: String(err) } }));
        })
        .finally(() => this.inFlight.delete(p));
      this.inFlight.add(p);
    });
    ScriptedServer.live.add(this);
    await new Promise<void>(resolve => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  /** Stops listening and ends every connection at once: closing never waits on a client. */
  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    ScriptedServer.live.delete(this);
    if (!server) return;
    for (const res of this.open) res.destroy();
    const closed = new Promise<void>(resolve => server.close(() => resolve()));
    // Keep-alive sockets and requests still being read or answered would otherwise hold `close` open.
    server.closeAllConnections();
    await closed;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').replace(/\?.*$/, '');
    if (req.method === 'GET' && path.endsWith('/models')) {
      return json(res, 200, { object: 'list', data: [{ id: 'scripted', object: 'model' }] });
    }
    if (req.method === 'GET') {
      if (this.probeStatus !== undefined) return json(res, this.probeStatus, { error: { message: `scripted probe fault ${this.probeStatus}` } });
      const id = this.identity;
      if (path === '/version' && (id === 'vllm' || id === 'vllm-legacy')) return json(res, 200, { version: id === 'vllm' ? '0.12.0' : '0.8.5' });
      if (path === '/props' && id === 'llama.cpp') return json(res, 200, { default_generation_settings: {}, total_slots: 1 });
      if (path === '/get_server_info' && id === 'sglang') return json(res, 200, { model_path: 'scripted', version: '0.5.0' });
      return json(res, 404, { error: { message: `no route GET ${path}` } });
    }
    const isChat = path.endsWith('/chat/completions');
    if (req.method !== 'POST' || !(isChat || path.endsWith('/completions')))
      return json(res, 404, { error: { message: `no route ${req.method} ${path}` } });
    const body = JSON.parse(await readBody(req)) as Record<string, any>;
    const prompt: string = isChat ? String(body.messages?.at(-1)?.content ?? '') : String(body.prompt ?? '');
    const stop: string[] = body.stop == null ? [] : Array.isArray(body.stop) ? body.stop : [body.stop];
    const rec: RecordedRequest = {
      path,
      body,
      prompt,
      stop,
      receivedAt: performance.now(),
      status: 200,
      tokensSent: 0,
      tokensAfterCall: 0,
      aborted: false,
      unaligned: false,
      authorization: req.headers.authorization,
    };
    this.requests.push(rec);
    if (this.requestDelayMs > 0) await wait(this.requestDelayMs);
    const constraint = constraintOf(body);
    if (this.maxSamples !== undefined && Number(body.n ?? 1) > this.maxSamples) {
      rec.status = 400;
      const message = `Field 'n': Value must be between 1 <= value <= ${this.maxSamples}, but got ${body.n}`;
      return json(res, 400, { error: { code: 400, message, type: 'invalid_request_error' } });
    }
    if (constraint && this.rejectConstraints) {
      rec.status = 400;
      rec.constraint = { ...constraint, met: false };
      return json(res, 400, { error: { message: 'unknown field: structured_outputs', type: 'BadRequestError' } });
    }
    const fault = this.faults.shift();
    rec.fault = fault;
    if (fault && 'status' in fault) {
      rec.status = fault.status;
      const headers: Record<string, string> = {};
      if (fault.retryAfter !== undefined) headers['retry-after'] = fault.retryAfter;
      if (fault.retryAfterMs !== undefined) headers['retry-after-ms'] = String(fault.retryAfterMs);
      return json(res, fault.status, { error: { message: fault.message ?? `scripted fault ${fault.status}`, type: 'scripted' } }, headers);
    }

    if (fault && 'echoAuthorization' in fault) {
      const said = `invalid key: ${req.headers.authorization ?? '(none)'}`;
      if (fault.echoAuthorization === 'body') return json(res, (rec.status = 500), { error: { message: said, type: 'scripted' } });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`event: error\ndata: ${JSON.stringify({ error: { message: said } })}\n\n`);
      return;
    }
    if (fault && 'errorBodyBytes' in fault) {
      rec.status = 500;
      res.writeHead(500, { 'content-type': 'text/plain' });
      const block = 'x'.repeat(1 << 20);
      for (let left = fault.errorBodyBytes; left > 0 && !res.destroyed; left -= block.length) {
        if (!res.write(left >= block.length ? block : block.slice(0, left)))
          await new Promise(resolve => {
            res.once('drain', resolve);
            res.once('close', resolve);
          });
      }
      res.end();
      return;
    }
    if (fault && 'forever' in fault) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const piece = {
        id: 'forever',
        object: 'text_completion',
        created: 0,
        model: body.model,
        choices: [{ index: 0, text: 'more text ', finish_reason: null }],
      };
      const line = `data: ${JSON.stringify(isChat ? { ...piece, object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'more text ' }, finish_reason: null }] } : piece)}\n\n`;
      for (let i = 0; i < (fault.maxChunks ?? 200_000) && !res.destroyed; i++) {
        rec.tokensSent++;
        if (!res.write(line))
          await new Promise(resolve => {
            res.once('drain', resolve);
            res.once('close', resolve);
          });
      }
      res.end();
      return;
    }

    // What the model writes: the rest of the first script that lines up with the prompt.
    let text = '';
    let callEnds: number[] = [];
    // With a constraint, the first script whose text up to the first stop (inclusive) meets it, as a constraining
    // server would never write anything else; without one, the first script that lines up.
    const aligned = [...(this.scriptsFor?.(prompt, body) ?? []), ...this.scripts].filter(s => s.locate(prompt, this.resync));
    // Rotating: requests several scripts line up with take them in turn (samples of one prompt that differ).
    let script = this.rotateScripts && aligned.length > 1 ? aligned[this.turn++ % aligned.length] : aligned[0];
    if (constraint) {
      // Up to the first stop, with the stop (an env-input prompt text) or without it (the model may end before it).
      const meets = (s: ContinuationScript) =>
        upToStop(s.rest(s.locate(prompt, this.resync)!).text, stop).some(t => constraintAccepts(constraint, t));
      script = aligned.find(meets) ?? aligned[0];
      rec.constraint = { ...constraint, met: !!script && meets(script) };
    }
    if (script) ({ text, callEnds } = script.rest(script.locate(prompt, this.resync)!));
    else rec.unaligned = true;
    const maxTokens: number = body.max_tokens ?? body.max_completion_tokens ?? Infinity;
    const tokens = roughTokens(text).slice(0, maxTokens);
    const truncatedByLength = roughTokens(text).length > tokens.length;
    const firstCallEnd = callEnds.length ? callEnds[0] : Infinity;
    const promptTokens = roughTokens(prompt).length;
    const n = Math.max(1, Number(body.n ?? 1));
    const id = `cmpl-${this.requests.length}`;

    if (!body.stream) {
      // n samples: the scripts that line up take turns (choice i is the i-th of them, round), each with its logprob.
      const sample = (s: ContinuationScript | undefined) => {
        const all = s ? roughTokens(s.rest(s.locate(prompt, this.resync)!).text) : [];
        const scanner = new StopScanner(this.honourStop ? stop : []);
        const { release, stopped } = scanner.push(all.slice(0, maxTokens).join(''));
        const out = stopped ? release : release + scanner.flush();
        return { out, finish: stopped || all.length <= maxTokens ? 'stop' : 'length', lp: (s && this.scriptLogprobs.get(s)) ?? -0.5 };
      };
      const samples = Array.from({ length: n }, (_, i) => sample(n > 1 && aligned.length > 1 ? aligned[i % aligned.length] : script));
      rec.finishReason = samples[0].finish;
      rec.tokensSent = samples.reduce((k, x) => k + roughTokens(x.out).length, 0);
      const usage = { prompt_tokens: promptTokens, completion_tokens: rec.tokensSent, total_tokens: promptTokens + rec.tokensSent };
      const choices = samples.map(({ out, finish, lp }, index) =>
        isChat
          ? { index, message: { role: 'assistant', content: out }, finish_reason: finish, logprobs: null }
          : {
              index,
              text: out,
              finish_reason: finish,
              logprobs: body.logprobs ? { token_logprobs: roughTokens(out).map(() => lp), tokens: roughTokens(out) } : null,
            },
      );
      return json(
        res,
        200,
        isChat
          ? { id, object: 'chat.completion', created: 0, model: body.model, choices, usage }
          : { id, object: 'text_completion', created: 0, model: body.model, choices, usage },
      );
    }

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    this.open.add(res);
    res.on('close', () => {
      this.open.delete(res);
      if (!res.writableEnded) rec.aborted = true;
    });
    const send = (payload: unknown) => res.write(`data: ${JSON.stringify(payload)}\n\n`);
    const chunk = (textPiece: string, finish: string | null) =>
      isChat
        ? {
            id,
            object: 'chat.completion.chunk',
            created: 0,
            model: body.model,
            choices: [
              {
                index: 0,
                delta: textPiece ? { content: textPiece } : {},
                finish_reason: finish,
                logprobs: body.logprobs ? { content: textPiece ? [{ token: textPiece, logprob: -0.5, bytes: null, top_logprobs: [] }] : [] } : null,
              },
            ],
          }
        : {
            id,
            object: 'text_completion',
            created: 0,
            model: body.model,
            choices: [
              {
                index: 0,
                text: textPiece,
                finish_reason: finish,
                logprobs: body.logprobs ? { token_logprobs: textPiece ? [-0.5] : [], tokens: textPiece ? [textPiece] : [] } : null,
              },
            ],
          };

    const scanner = new StopScanner(this.honourStop ? stop : []);
    let released = 0; // characters sent so far
    let generated = 0; // characters of the script's text generated so far
    let pausedAtCall = false;
    let sentTokens = 0;
    let finish: string | null = null;
    let index = 0;
    const gone = () => {
      if (res.destroyed || rec.aborted) rec.aborted = true;
      return rec.aborted;
    };
    while (index < tokens.length && finish === null) {
      if (gone()) return;
      const group = tokens.slice(index, index + this.tokensPerChunk);
      index += group.length;
      if (!pausedAtCall && this.callPauseMs > 0 && generated >= firstCallEnd) {
        pausedAtCall = true;
        await waitUnlessClosed(res, this.callPauseMs);
        if (gone()) return;
      }
      generated += group.join('').length;
      if (fault && 'dropAfterTokens' in fault && sentTokens >= fault.dropAfterTokens) {
        res.destroy();
        return;
      }
      const delay = fault && 'slowAfterTokens' in fault && sentTokens >= fault.slowAfterTokens ? fault.ms : this.tokenDelayMs;
      if (delay > 0) await waitUnlessClosed(res, delay);
      if (gone()) return;
      const { release, stopped } = scanner.push(group.join(''));
      if (release) {
        send(chunk(release, null));
        rec.tokensSent += group.length;
        sentTokens += group.length;
        // Released text is a prefix of the generated text: past the call when it ends past the call point.
        released += release.length;
        if (released > firstCallEnd) rec.tokensAfterCall += group.length;
        rec.lastTokenAt = performance.now();
      }
      if (stopped) finish = 'stop';
    }
    if (finish === null) {
      const rest = scanner.flush();
      if (rest) {
        send(chunk(rest, null));
        rec.tokensSent++;
        rec.lastTokenAt = performance.now();
      }
      finish = truncatedByLength ? 'length' : 'stop';
    }
    rec.finishReason = finish;
    send(chunk('', finish));
    if (body.stream_options?.include_usage) {
      send({
        id,
        object: isChat ? 'chat.completion.chunk' : 'text_completion',
        created: 0,
        model: body.model,
        choices: [],
        usage: { prompt_tokens: promptTokens, completion_tokens: rec.tokensSent, total_tokens: promptTokens + rec.tokensSent },
      });
    }
    res.write('data: [DONE]\n\n');
    res.end();
  }
}

/** The constraint in a request body, whichever server's field carries it. */
function constraintOf(body: Record<string, any>): { regex?: string; grammar?: string } | null {
  const so = body.structured_outputs;
  const regex = so?.regex ?? body.guided_regex ?? body.regex;
  const grammar = so?.grammar ?? body.guided_grammar ?? body.ebnf ?? body.grammar;
  if (typeof regex === 'string') return { regex };
  if (typeof grammar === 'string') return { grammar };
  return null;
}

function constraintAccepts(c: { regex?: string; grammar?: string }, text: string): boolean {
  // Code points, as the servers read them (the `u` flag).
  if (c.regex !== undefined) return new RegExp(`^(?:${c.regex})$`, 'u').test(text);
  return new Gbnf(c.grammar!).accepts(text);
}

/** The text up to the first stop sequence, with and without it (the whole text when there is none). */
function upToStop(text: string, stop: string[]): string[] {
  let at = text.length;
  let len = 0;
  for (const s of stop) {
    const i = text.indexOf(s);
    if (i >= 0 && i < at) {
      at = i;
      len = s.length;
    }
  }
  return len ? [text.slice(0, at + len), text.slice(0, at)] : [text];
}

function json(res: ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(payload));
}

/** The body of a request as text (rejects when the client goes before sending all of it). */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', c => (data += c));
    req.on('end', () => resolve(data));
    req.on('error', reject);
    // A client gone before the body ended: no 'end' will come.
    req.on('close', () => {
      if (!req.complete) reject(new Error('the client closed the request before sending its body'));
    });
  });
}

const wait = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

/** Waits `ms`, or less when the response is closed first. */
function waitUnlessClosed(res: ServerResponse, ms: number): Promise<void> {
  if (res.destroyed || res.closed) return Promise.resolve();
  return new Promise(resolve => {
    const done = () => {
      clearTimeout(timer);
      res.off('close', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    res.once('close', done);
  });
}
