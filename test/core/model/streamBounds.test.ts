// Issue 20, item 4: unbounded streams and bodies. Against local servers on 127.0.0.1 that never stop on their own
// (each stops when the client goes away): an endless stream of empty events or of logprobs alone is cut by the
// event bound, a slow trickle of empty events by the idle timer (only progress resets it), a slow trickle of text by
// the request timeout (requestTimeoutMs, `art run --request-timeout-ms`), and a huge non-streamed reply and a huge
// HTTP tool body are capped while they are read: the servers count what they managed to write.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_BODY_BYTES, OpenAIModel, localBudgetChars } from '../../../core/model/openai';
import { MAX_HTTP_BODY_BYTES } from '../../../core/tools/httpBody';
import { createHttpTool } from '../../../core/tools/userTools';
import { runCli } from '../../support/cli';
import { ctx } from '../tools/helpers';

type Handler = (req: IncomingMessage, res: ServerResponse, sent: { bytes: number; events: number }) => Promise<void>;

const servers: Server[] = [];
after(() => Promise.all(servers.map(s => new Promise(r => (s.closeAllConnections(), s.close(r))))));

/** A server whose handler writes until the client goes away; `sent` counts what it wrote. */
async function serve(handler: Handler): Promise<{ url: string; sent: { bytes: number; events: number } }> {
  const sent = { bytes: 0, events: 0 };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => void handler(req, res, sent).catch(() => res.destroy()));
  });
  servers.push(server);
  await new Promise<void>(r => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sent };
}

/** Writes `piece` until the client goes away (waiting for the socket to drain), `every` ms apart when given. */
async function writeForever(res: ServerResponse, piece: () => string, sent: { bytes: number; events: number }, every = 0): Promise<void> {
  let closed = false;
  res.on('close', () => (closed = true));
  while (!closed && !res.destroyed) {
    const p = piece();
    sent.bytes += Buffer.byteLength(p);
    sent.events++;
    if (!res.write(p)) await new Promise(r => res.once('drain', r).once('close', r));
    if (every) await new Promise(r => setTimeout(r, every));
    else if (sent.events % 256 === 0) await new Promise(r => setImmediate(r));
  }
}

const sse = (payload: unknown) => `data: ${JSON.stringify(payload)}\n\n`;
const head = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream' });
const noRetry = { maxRetries: 0 };

describe('unbounded streams (issue 20, item 4)', () => {
  test('an endless stream of empty chat events ends at the event bound, in time', async () => {
    const { url, sent } = await serve(async (_req, res, s) => {
      head(res);
      await writeForever(
        res,
        () => sse({ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: null }] }),
        s,
      );
    });
    const limits: string[] = [];
    const model = new OpenAIModel({
      baseURL: `${url}/v1`,
      model: 'm',
      api: 'chat',
      retry: noRetry,
      requestTimeoutMs: 20_000,
      onLimit: m => limits.push(m),
    });
    const started = Date.now();
    const r = await model.complete({ prompt: 'Q1:', maxTokens: 64 });
    assert.equal(r.finishReason, 'length');
    assert.equal(r.text, '');
    assert.match(limits.join('\n'), new RegExp(`more than ${localBudgetChars(64)} events`));
    assert.ok(Date.now() - started < 20_000);
    assert.ok(sent.events < localBudgetChars(64) * 20, `${sent.events} events written`);
  });

  test('an endless stream of logprobs alone ends at the event bound; the logprobs kept are bounded', async () => {
    const numbers = Array.from({ length: 500 }, (_, i) => -i / 1000);
    const { url } = await serve(async (_req, res, s) => {
      head(res);
      await writeForever(
        res,
        () =>
          sse({
            id: 'x',
            object: 'text_completion',
            created: 0,
            model: 'm',
            choices: [{ index: 0, text: '', logprobs: { token_logprobs: numbers }, finish_reason: null }],
          }),
        s,
      );
    });
    const model = new OpenAIModel({ baseURL: `${url}/v1`, model: 'm', retry: noRetry, requestTimeoutMs: 20_000 });
    const r = await model.complete({ prompt: 'Q1:', maxTokens: 64, logprobs: true });
    assert.equal(r.finishReason, 'length');
    assert.ok((r.tokenLogprobs?.length ?? 0) <= localBudgetChars(64), `${r.tokenLogprobs?.length} logprobs kept`);
  });

  test('a slow trickle of empty events does not reset the idle timer: the stream is given up as stalled', async () => {
    const { url } = await serve(async (_req, res, s) => {
      head(res);
      await writeForever(
        res,
        () => sse({ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: null }] }),
        s,
        20,
      );
    });
    const model = new OpenAIModel({ baseURL: `${url}/v1`, model: 'm', api: 'chat', retry: noRetry, idleTimeoutMs: 300, requestTimeoutMs: 20_000 });
    const started = Date.now();
    await assert.rejects(
      model.complete({ prompt: 'Q1:', maxTokens: 64 }),
      /stream broke off: no progress \(text, reasoning or the finish\) for 300 ms/,
    );
    assert.ok(Date.now() - started < 10_000, `${Date.now() - started} ms`);
  });

  test('one character at a time, forever: the request timeout stops it (retries included) and says so in one line', async () => {
    const { url } = await serve(async (_req, res, s) => {
      head(res);
      await writeForever(
        res,
        () => sse({ id: 'x', object: 'text_completion', created: 0, model: 'm', choices: [{ index: 0, text: 'a', finish_reason: null }] }),
        s,
        25,
      );
    });
    const model = new OpenAIModel({
      baseURL: `${url}/v1`,
      model: 'm',
      retry: { maxRetries: 3, initialDelayMs: 1, maxDelayMs: 5 },
      requestTimeoutMs: 600,
    });
    const started = Date.now();
    const chunks: string[] = [];
    const err = await (async () => {
      for await (const c of model.stream({ prompt: 'Q1:', maxTokens: 4096 })) chunks.push(c.text);
    })().then(
      () => null,
      (e: Error) => e,
    );
    assert.ok(err);
    assert.equal(
      err.message,
      `The model endpoint ${url}/v1: the request took longer than its request timeout of 600 ms (requestTimeoutMs) and was stopped`,
    );
    assert.ok(chunks.join('').length > 0, 'the text received before was given');
    assert.ok(Date.now() - started < 10_000, `${Date.now() - started} ms`);
  });

  test('art run --request-timeout-ms ends a run whose request never finishes, with one line', async () => {
    const { url } = await serve(async (_req, res, s) => {
      head(res);
      await writeForever(
        res,
        () => sse({ id: 'x', object: 'text_completion', created: 0, model: 'm', choices: [{ index: 0, text: ' ', finish_reason: null }] }),
        s,
        25,
      );
    });
    const dir = mkdtempSync(join(tmpdir(), 'art-timeout-'));
    writeFileSync(join(dir, 'p.art'), 'Description: (T) t\nInput: x\nQ1: [EOQ]\nAns: x\n');
    const r = await runCli(['run', 'p.art', '--base-url', `${url}/v1`, '--model', 'm', '--request-timeout-ms', '500'], { cwd: dir });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /request timeout of 500 ms \(requestTimeoutMs\)/);
    const bad = await runCli(['run', 'p.art', '--base-url', `${url}/v1`, '--model', 'm', '--request-timeout-ms', '0'], { cwd: dir });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /request-timeout-ms|requestTimeoutMs/);
  });
});

describe('unbounded bodies (issue 20, item 4)', () => {
  test('a huge non-streamed reply (alternatives, n samples) is cut while it is read', async () => {
    const { url, sent } = await serve(async (_req, res, s) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":"x","object":"text_completion","created":0,"model":"m","choices":');
      // JSON whitespace, in lines: no single line is long, the body is.
      const block = `${' '.repeat(1023)}\n`.repeat(1024);
      await writeForever(res, () => block, s);
    });
    const model = new OpenAIModel({ baseURL: `${url}/v1`, model: 'm', retry: noRetry, requestTimeoutMs: 60_000 });
    await assert.rejects(model.completeMany({ prompt: 'Q1:', maxTokens: 8 }, 2), /sent a response over 64 MB: it was cut there/);
    // What the server managed to write before the client let go: the cap and what the sockets buffer, not 300 MB.
    assert.ok(sent.bytes < MAX_BODY_BYTES + 48 * 2 ** 20, `${sent.bytes} bytes written`);
  });

  test("an HTTP tool's huge body is read up to its cap: text is cut and said so, JSON refused", async () => {
    const block = 'b'.repeat(1 << 20);
    const text = await serve(async (_req, res, s) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      await writeForever(res, () => block, s);
    });
    const json = await serve(async (_req, res, s) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"output":"');
      await writeForever(res, () => block, s);
    });
    const plain = await createHttpTool({ kind: 'http', name: 'big', url: `${text.url}/tool` } as never).run({ instruction: 'x' }, ctx());
    assert.ok(plain.ok);
    assert.ok(plain.output.length <= 1024 * 1024 + 100, `${plain.output.length} characters`);
    assert.match(plain.output, /\[output truncated at/);
    assert.ok(text.sent.bytes < MAX_HTTP_BODY_BYTES + 48 * 2 ** 20, `${text.sent.bytes} bytes written`);
    const refused = await createHttpTool({ kind: 'http', name: 'bigjson', url: `${json.url}/tool` } as never).run({ instruction: 'x' }, ctx());
    assert.equal(refused.ok ? '' : refused.error, `[bigjson] ${json.url}/tool sent a JSON reply over 4 MB: it was not read further`);
  });
});
