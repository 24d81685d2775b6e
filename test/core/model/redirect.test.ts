// Issue 20 item 8: the model client does not follow a redirect to another origin (fetch re-posts the prompt and the
// key on 307/308), and says the redirect in one line; a redirect within the endpoint's origin is still followed.
// Two HTTP servers on 127.0.0.1 (different ports: different origins).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OpenAIModel } from '../../../core/model/openai';

const KEY = 'sk-redirect-test-9f8e7d6c5b4a';

/** Answers a completions request with `text`, as SSE when the request streams. */
function answer(req: IncomingMessage, res: ServerResponse, body: string, text: string): void {
  if (req.method !== 'POST') {
    res.writeHead(405, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: `${req.method} is not allowed` } }));
    return;
  }
  const { stream, model } = JSON.parse(body) as { stream?: boolean; model: string };
  const piece = { id: 'c', object: 'text_completion', created: 0, model, choices: [{ index: 0, text, finish_reason: 'stop', logprobs: null }] };
  if (!stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ...piece, usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(`data: ${JSON.stringify(piece)}\n\ndata: [DONE]\n\n`);
}

type Seen = { method: string; path: string; body: string; authorization?: string };

function server(handle: (req: IncomingMessage, res: ServerResponse, body: string) => void, seen: Seen[]): Server {
  return createServer((req, res) => {
    let body = '';
    req.on('data', d => (body += d));
    req.on('end', () => {
      seen.push({ method: req.method!, path: req.url!, body, authorization: req.headers.authorization });
      handle(req, res, body);
    });
  });
}

const listen = (s: Server) =>
  new Promise<string>(resolve => s.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(s.address() as AddressInfo).port}`)));

describe('model client redirects', () => {
  const elsewhereSeen: Seen[] = [];
  const endpointSeen: Seen[] = [];
  let elsewhere = '';
  let endpoint = '';
  let status = 307;
  const other = server((req, res, body) => answer(req, res, body, 'from the other origin'), elsewhereSeen);
  const main = server((req, res, body) => {
    if (req.url === '/cross/completions') {
      res.writeHead(status, { location: `${elsewhere}/v1/completions` });
      res.end();
    } else if (req.url === '/moved/completions') {
      res.writeHead(307, { location: '/v1/completions' });
      res.end();
    } else answer(req, res, body, 'from the endpoint');
  }, endpointSeen);
  before(async () => {
    elsewhere = await listen(other);
    endpoint = await listen(main);
  });
  after(() => {
    other.close();
    main.close();
  });

  for (const code of [307, 302]) {
    test(`a ${code} to another origin is not followed: nothing reaches it, one error line says where it pointed`, async () => {
      status = code;
      elsewhereSeen.length = 0;
      const model = new OpenAIModel({
        baseURL: `${endpoint}/cross`,
        model: 'm',
        apiKey: KEY,
        retry: { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 5 },
      });
      const err = await model.complete({ prompt: 'the secret prompt', maxTokens: 5 }).then(
        r => new Error(`answered: ${r.text}`),
        (e: Error) => e,
      );
      assert.deepEqual(
        elsewhereSeen.map(s => `${s.method} ${s.path}`),
        [],
        'the other origin was reached',
      );
      assert.equal(
        err.message,
        `The model endpoint ${endpoint}/cross answered ${code}: redirect to ${elsewhere}/v1/completions (another origin): not followed; set the base URL to the final address`,
      );
      assert.doesNotMatch(err.message, /\n/);
    });
  }

  test('a redirect within the same origin is followed with the same request', async () => {
    endpointSeen.length = 0;
    const model = new OpenAIModel({ baseURL: `${endpoint}/moved`, model: 'm', apiKey: KEY });
    const r = await model.complete({ prompt: 'the prompt', maxTokens: 5 });
    assert.equal(r.text, 'from the endpoint');
    assert.deepEqual(
      endpointSeen.map(s => `${s.method} ${s.path}`),
      ['POST /moved/completions', 'POST /v1/completions'],
    );
    assert.match(endpointSeen[1].body, /the prompt/);
    assert.equal(endpointSeen[1].authorization, `Bearer ${KEY}`);
  });
});
