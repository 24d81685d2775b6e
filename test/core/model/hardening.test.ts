// Issue 8, items 5 and 6 (model client half): no key in any message that leaves the client, each retry printed
// once, and local bounds on what an endpoint can make us hold (a stream that never ends, a huge error body, a huge
// single SSE event). Against the scripted server on 127.0.0.1; every loop is bounded.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_ERROR_BODY_CHARS, OpenAIModel, localBudgetChars, type RetryInfo } from '../../../core/model/openai';
import { ScriptedServer } from '../../support/scriptedServer';
import { FAST_RETRY, runCli } from '../../support/cli';

const KEY = 'sk-live-Zq8vT3kLm9Xw2Rb7Ny4P';
const fastRetry = { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 5 };

describe('model client hardening', () => {
  const server = new ScriptedServer();
  let url = '';
  before(async () => {
    url = (await server.start()).baseURL;
  });
  after(() => server.close());

  test('a key echoed by the endpoint (500 body, SSE error event) appears in no retry line and no error', async () => {
    for (const where of ['body', 'stream'] as const) {
      server.injectFaults({ echoAuthorization: where }, { echoAuthorization: where }, { echoAuthorization: where });
      const retries: RetryInfo[] = [];
      const model = new OpenAIModel({ baseURL: url, model: 'm', apiKey: KEY, retry: fastRetry, onRetry: i => retries.push(i) });
      const err = await model.complete({ prompt: 'x', maxTokens: 5 }).then(
        () => null,
        (e: Error) => e,
      );
      assert.ok(err, `${where}: the request failed`);
      assert.equal(retries.length, 2, `${where}: ${JSON.stringify(retries)}`);
      const seen = [err.message, ...retries.map(r => r.reason)].join('\n');
      assert.doesNotMatch(seen, /Zq8vT3kLm9Xw2Rb7Ny4P/, `${where}: ${seen}`);
      assert.match(err.message, /invalid key: Bearer \*\*\*/, `${where}: the message itself is kept`);
    }
  });

  test('the CLI prints each retry once, without the key', async () => {
    server.injectFaults({ echoAuthorization: 'stream' }, { echoAuthorization: 'stream' });
    const dir = mkdtempSync(join(tmpdir(), 'art-retry-'));
    const program = join(dir, 'p.art');
    writeFileSync(program, 'Description: (T) t\nInput: x\nQ1: [EOQ]\nAns: x\n');
    const r = await runCli(['run', program, '--base-url', url, '--model', 'm'], { env: { OPENAI_API_KEY: KEY }, retry: FAST_RETRY });
    const lines = r.stderr.split('\n').filter(l => /retry 1 in/.test(l));
    assert.equal(lines.length, 1, r.stderr);
    assert.doesNotMatch(r.stderr, /Zq8vT3kLm9Xw2Rb7Ny4P/);
  });

  test('a stream that never ends is cut at the local budget', async () => {
    server.injectFaults({ forever: true, maxChunks: 100_000 });
    const limits: string[] = [];
    const model = new OpenAIModel({ baseURL: url, model: 'm', retry: fastRetry, onLimit: m => limits.push(m) });
    const started = Date.now();
    const r = await model.complete({ prompt: 'x', maxTokens: 64 });
    assert.equal(r.finishReason, 'length');
    assert.equal(r.text.length, localBudgetChars(64));
    assert.ok(Date.now() - started < 10_000);
    assert.match(limits[0] ?? '', /more than the local budget of 1512 characters for 64 tokens/);
  });

  test('a 50 MB error body is cut in the error message', async () => {
    server.injectFaults({ errorBodyBytes: 50 * 1024 * 1024 });
    const model = new OpenAIModel({ baseURL: url, model: 'm', retry: { ...fastRetry, maxRetries: 0 } });
    const err = await model.complete({ prompt: 'x', maxTokens: 5 }).then(
      () => null,
      (e: Error) => e,
    );
    assert.ok(err);
    assert.ok(err.message.length < MAX_ERROR_BODY_CHARS + 200, `${err.message.length} characters`);
    assert.match(err.message, /answered 500: (500 )?x+… \(52426752 bytes cut\)$/);
  });

  test('a single huge SSE event fails at once with a clear message', async () => {
    // "At once": the client gives up past 4 MB, so the server never gets to send the whole 50 MB event.
    let sentWhole = 0;
    const huge = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const block = 'y'.repeat(1 << 20);
      let i = 0;
      const write = () => {
        while (i++ < 50) if (!res.write(i === 1 ? `data: {"x":"${block}` : block)) return void res.once('drain', write);
        sentWhole++;
        res.end('"}\n\n');
      };
      write();
      res.on('error', () => undefined);
    });
    await new Promise<void>(resolve => huge.listen(0, '127.0.0.1', resolve));
    try {
      const model = new OpenAIModel({ baseURL: `http://127.0.0.1:${(huge.address() as AddressInfo).port}/v1`, model: 'm', retry: fastRetry });
      const err = await model.complete({ prompt: 'x', maxTokens: 5 }).then(
        () => null,
        (e: Error) => e,
      );
      assert.ok(err);
      assert.match(err.message, /the endpoint sent a single event over 4 MB/);
      assert.equal(sentWhole, 0, 'the client read the whole 50 MB event');
    } finally {
      huge.closeAllConnections();
      huge.close();
    }
  });
});
