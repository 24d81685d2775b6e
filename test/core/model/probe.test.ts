// Which API an endpoint serves, asked when the endpoint is set (core/model/probe.ts), and what a 404 says: against
// model zoo endpoints on 127.0.0.1 (test/support/modelZoo.ts), one that serves both APIs and one chat-only.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OpenAIModel } from '../../../core/model/openai';
import { probeApi } from '../../../core/model/probe';
import { ZooServer } from '../../support/modelZoo';

describe('the API of an endpoint', () => {
  const both = new ZooServer('plain');
  const chatOnly = new ZooServer('plain', { chatOnly: true });
  let keyed: Server;
  let keyedURL = '';
  before(async () => {
    await both.start();
    await chatOnly.start();
    keyed = createServer((req, res) => {
      res.writeHead(req.headers.authorization === 'Bearer sk-probe-secret' ? 200 : 401, { 'content-type': 'application/json' });
      res.end('{}');
    });
    await new Promise<void>(r => keyed.listen(0, '127.0.0.1', r));
    keyedURL = `http://127.0.0.1:${(keyed.address() as AddressInfo).port}/v1`;
  });
  after(async () => {
    await both.close();
    await chatOnly.close();
    keyed.close();
  });

  test('an endpoint with /completions: the completions API, one request', async () => {
    const r = await probeApi({ baseURL: both.baseURL, model: 'm' });
    assert.deepEqual(r, { api: 'completions', said: [`POST ${both.baseURL}/completions: 200`] });
  });

  test('a chat-only endpoint: the chat API, after the 404 of /completions', async () => {
    const r = await probeApi({ baseURL: chatOnly.baseURL, model: 'm' });
    assert.deepEqual(r, { api: 'chat', said: [`POST ${chatOnly.baseURL}/completions: 404`, `POST ${chatOnly.baseURL}/chat/completions: 200`] });
  });

  test('a refused key or an endpoint not there: no API, and what was answered (never the key)', async () => {
    const refused = await probeApi({ baseURL: keyedURL, model: 'm', apiKey: 'sk-wrong-key' });
    assert.deepEqual(refused, { api: null, said: [`POST ${keyedURL}/completions: 401`] });
    assert.equal((await probeApi({ baseURL: keyedURL, model: 'm', apiKey: 'sk-probe-secret' })).api, 'completions');
    // A port nothing listens on any more.
    const closed = createServer();
    await new Promise<void>(r => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise(r => closed.close(r));
    const gone = await probeApi({ baseURL: `http://127.0.0.1:${port}/v1`, model: 'm', timeoutMs: 5000 });
    assert.equal(gone.api, null);
    assert.match(gone.said[0], new RegExp(`^POST http://127\\.0\\.0\\.1:${port}/v1/completions: .*ECONNREFUSED`));
  });

  test('a 404 names the path called and the API setting to change', async () => {
    const model = new OpenAIModel({ baseURL: chatOnly.baseURL, model: 'zoo', retry: { maxRetries: 0 } });
    const err = await model.complete({ prompt: 'Q1:', maxTokens: 5 }).then(
      () => null,
      (e: Error) => e,
    );
    assert.ok(err);
    assert.match(err.message, new RegExp(`answered 404 to POST ${chatOnly.baseURL.replace(/\./g, '\\.')}/completions \\(`));
    assert.match(
      err.message,
      /the model name "zoo" and the API: the completions API was called; an endpoint without it needs "chat": the setting art\.model\.api, or --api chat/,
    );
    const chat = new OpenAIModel({ baseURL: chatOnly.baseURL, model: 'zoo', api: 'chat', retry: { maxRetries: 0 } });
    assert.equal((await chat.complete({ prompt: 'Q1:', maxTokens: 5 })).finishReason !== undefined, true);
  });
});
