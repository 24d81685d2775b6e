// OpenAIModel over real HTTP against the scripted server, with the real `openai` client: streaming, stop sequences
// (honoured and emulated), retries, resumed streams, cancellation, chat, usage, logprobs, n, and no key in errors.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ModelError, OpenAIModel, publicURL } from '../../../core/model/openai';
import { backoffDelay, retryAfterMs } from '../../../core/model/retry';
import { ContinuationScript, roughTokens } from '../../../core/replay/script';
import { StopScanner } from '../../../core/model/stops';
import { ScriptedServer } from '../../support/scriptedServer';

const SCRIPT = ContinuationScript.parse(' [add] 2 + 2\n#⟂1:⟦ 4⟧\nQ2: [EOQ]\nAns: 4', 'Q1:');
const PROMPT = 'Input: What is 2 + 2?\nQ1:';
const FAST_RETRY = { initialDelayMs: 5, maxDelayMs: 50 };

async function collect(it: AsyncGenerator<{ text: string }, { text: string; finishReason?: string; usage?: unknown; tokenLogprobs?: number[] }>) {
  const chunks: string[] = [];
  for (;;) {
    const r = await it.next();
    if (r.done) return { chunks, result: r.value };
    chunks.push(r.value.text);
  }
}

// Bounded: a request that hangs fails the suite (and its `after` still closes the servers) instead of the whole unit run.
describe('OpenAIModel against a local OpenAI-compatible server', { timeout: 120_000 }, () => {
  const server = new ScriptedServer();
  before(async () => {
    await server.start();
    server.setScripts(SCRIPT);
  });
  after(() => ScriptedServer.closeAll());

  test('streams token by token and honours stop sequences on the completions API', async () => {
    server.reset();
    const m = new OpenAIModel({ baseURL: server.baseURL, model: 'scripted' });
    const { chunks, result } = await collect(m.stream({ prompt: PROMPT, stop: ['\n#'] }));
    assert.ok(chunks.length > 3, 'several chunks');
    assert.equal(result.text, ' [add] 2 + 2');
    assert.equal(result.finishReason, 'stop');
    assert.deepEqual(result.usage, { promptTokens: roughTokens(PROMPT).length, completionTokens: server.requests[0].tokensSent });
    assert.deepEqual(server.requests[0].stop, ['\n#']);
    assert.equal(server.requests[0].body.stream_options?.include_usage, true);
    assert.equal(server.tokensAfterCall, 0);
  });

  test('applies stop sequences itself when the endpoint ignores them, aborting the stream', async () => {
    server.reset();
    server.honourStop = false;
    server.callPauseMs = 1000;
    try {
      const m = new OpenAIModel({ baseURL: server.baseURL, model: 'scripted', honoursStop: false });
      const { result } = await collect(m.stream({ prompt: PROMPT, stop: ['\n#'] }));
      assert.equal(result.text, ' [add] 2 + 2');
      assert.equal(server.requests[0].body.stop, undefined, 'stops are not sent to an endpoint that ignores them');
      await server.settled();
      assert.equal(
        server.requests[0].aborted,
        true,
        `the request was aborted at the stop: ${JSON.stringify({ ...server.requests[0], body: undefined })}`,
      );
      assert.ok(server.requests[0].tokensAfterCall <= 1, `at most one chunk past the call, got ${server.requests[0].tokensAfterCall}`);
    } finally {
      server.honourStop = true;
      server.callPauseMs = 0;
    }
  });

  test('retries a 429 after the Retry-After the server asks for, then succeeds', async () => {
    server.reset();
    server.injectFaults({ status: 429, retryAfterMs: 30 });
    const retries: { attempt: number; delayMs: number; reason: string }[] = [];
    const m = new OpenAIModel({ baseURL: server.baseURL, model: 'scripted', retry: FAST_RETRY, onRetry: i => retries.push(i) });
    const t0 = Date.now();
    const r = await m.complete({ prompt: PROMPT, stop: ['\n#'] });
    assert.equal(r.text, ' [add] 2 + 2');
    assert.equal(server.requests.length, 2);
    assert.equal(retries.length, 1);
    assert.equal(retries[0].delayMs, 30, "the server's retry-after-ms wins over the backoff");
    assert.match(retries[0].reason, /429/);
    assert.ok(Date.now() - t0 >= 25);
  });

  test('retries 5xx with exponential backoff and gives up with a precise error', async () => {
    server.reset();
    server.injectFaults({ status: 500 }, { status: 502 }, { status: 503 });
    const m = new OpenAIModel({ baseURL: server.baseURL, model: 'scripted', retry: { ...FAST_RETRY, maxRetries: 2 } });
    await assert.rejects(m.complete({ prompt: PROMPT }), (e: unknown) => {
      assert.ok(e instanceof ModelError);
      assert.equal(e.status, 503);
      assert.match(e.message, /answered 503 \(after 2 retries\): scripted fault 503/);
      assert.match(e.message, /127\.0\.0\.1/);
      return true;
    });
    assert.equal(server.requests.length, 3);
  });

  test('resumes a stream dropped mid-way from the text already received', async () => {
    server.reset();
    server.injectFaults({ dropAfterTokens: 4 });
    const retries: { resumedAfter?: number }[] = [];
    const m = new OpenAIModel({ baseURL: server.baseURL, model: 'scripted', retry: FAST_RETRY, onRetry: i => retries.push(i) });
    const { chunks, result } = await collect(m.stream({ prompt: PROMPT, stop: ['\n#'] }));
    assert.equal(result.text, ' [add] 2 + 2');
    assert.equal(chunks.join(''), ' [add] 2 + 2', 'nothing lost or repeated');
    assert.equal(server.requests.length, 2);
    assert.equal(server.requests[1].prompt, PROMPT + chunks.join('').slice(0, retries[0].resumedAfter));
    assert.ok(retries[0].resumedAfter! > 0);
  });

  test('a stalled stream is treated as dropped after the idle timeout', async () => {
    server.reset();
    server.injectFaults({ slowAfterTokens: 2, ms: 400 });
    const m = new OpenAIModel({ baseURL: server.baseURL, model: 'scripted', idleTimeoutMs: 100, retry: FAST_RETRY });
    const r = await m.complete({ prompt: PROMPT, stop: ['\n#'] });
    assert.equal(r.text, ' [add] 2 + 2');
    assert.equal(server.requests.length, 2);
  });

  test('cancellation mid-stream rejects at once and closes the connection', async () => {
    server.reset();
    // The next token would come 5 s later: a client that waited for it is seen whatever the machine's load.
    server.injectFaults({ slowAfterTokens: 2, ms: 5000 });
    const m = new OpenAIModel({ baseURL: server.baseURL, model: 'scripted' });
    const ctrl = new AbortController();
    const it = m.stream({ prompt: PROMPT, signal: ctrl.signal });
    const first = await it.next();
    assert.equal(first.done, false);
    const t0 = Date.now();
    setTimeout(() => ctrl.abort(), 10);
    await assert.rejects(
      (async () => {
        for (;;) if ((await it.next()).done) break;
      })(),
      (e: unknown) => e instanceof Error && e.name === 'AbortError',
    );
    assert.ok(Date.now() - t0 < 4000, 'did not wait for the next token');
    await server.settled();
    assert.equal(server.requests[0].aborted, true);
    assert.equal(server.requests.length, 1, 'a cancelled request is not retried');
  });

  test('chat API: the text so far is the user message (or an assistant prefill) and the reply continues it', async () => {
    server.reset();
    const chat = new OpenAIModel({ baseURL: server.baseURL, model: 'scripted', api: 'chat' });
    const r = await chat.complete({ prompt: PROMPT, stop: ['\n#'] });
    assert.equal(r.text, ' [add] 2 + 2');
    const body = server.requests[0].body;
    assert.equal(server.requests[0].path, '/v1/chat/completions');
    assert.equal(body.messages[0].role, 'system');
    assert.match(body.messages[0].content, /exact continuation/);
    assert.deepEqual(body.messages[1], { role: 'user', content: PROMPT });
    const prefill = new OpenAIModel({
      baseURL: server.baseURL,
      model: 'scripted',
      api: 'chat',
      chatPrefill: true,
      extraBody: { continue_final_message: true, add_generation_prompt: false },
    });
    const r2 = await prefill.complete({ prompt: PROMPT, stop: ['\n#'] });
    assert.equal(r2.text, ' [add] 2 + 2');
    const b2 = server.requests[1].body;
    assert.deepEqual(b2.messages.at(-1), { role: 'assistant', content: PROMPT });
    assert.equal(b2.continue_final_message, true);
  });

  test('logprobs and n samples', async () => {
    server.reset();
    const m = new OpenAIModel({ baseURL: server.baseURL, model: 'scripted' });
    const r = await m.complete({ prompt: PROMPT, stop: ['\n#'], logprobs: true });
    assert.ok(r.tokenLogprobs && r.tokenLogprobs.length > 0 && r.tokenLogprobs.every(x => x === -0.5));
    const many = await m.completeMany({ prompt: PROMPT, stop: ['\n#'], temperature: 0.7 }, 3);
    assert.equal(many.length, 3);
    assert.ok(many.every(x => x.text === ' [add] 2 + 2'));
    assert.equal(server.requests.at(-1)!.body.n, 3);
  });

  test('samples an endpoint refuses in one request (llama-server: n past its slots) are asked for one at a time, said once', async () => {
    const bounded = await new ScriptedServer({ maxSamples: 2 }).start();
    try {
      bounded.setScripts(SCRIPT);
      const retries: string[] = [];
      const m = new OpenAIModel({ baseURL: bounded.baseURL, model: 'scripted', onRetry: r => retries.push(r.reason) });
      const many = await m.completeMany({ prompt: PROMPT, stop: ['\n#'], temperature: 0.7, logprobs: true }, 3);
      assert.equal(many.length, 3);
      assert.ok(many.every(x => x.text === ' [add] 2 + 2' && x.tokenLogprobs?.length));
      assert.deepEqual(
        bounded.requests.map(r => [r.status, r.body.n]),
        [
          [400, 3],
          [200, 1],
          [200, 1],
          [200, 1],
        ],
      );
      assert.equal(retries.length, 1);
      assert.match(retries[0], /answered 400: Field 'n': .*<= 2, but got 3; asking for the 3 samples one at a time$/);
      assert.ok(many[0].usage && many[0].usage.completionTokens > 0 && many.slice(1).every(x => !x.usage));
    } finally {
      await bounded.close();
    }
  });

  test('the API key is sent but never appears in an error message or the model id', async () => {
    const key = 'sk-test-SECRET-0123456789';
    const echo = new ScriptedServer();
    await echo.start();
    try {
      echo.injectFaults({ status: 401, message: `Incorrect API key provided: ${key}` });
      const m = new OpenAIModel({ baseURL: echo.baseURL, model: 'scripted', apiKey: key, query: { 'api-key': key } });
      assert.doesNotMatch(m.id, /SECRET/);
      await assert.rejects(m.complete({ prompt: PROMPT }), (e: unknown) => {
        assert.ok(e instanceof ModelError);
        assert.equal(e.status, 401);
        assert.match(e.message, /check the API key/);
        assert.doesNotMatch(e.message, /SECRET/);
        return true;
      });
      assert.equal(echo.requests[0].body.model, 'scripted');
    } finally {
      await echo.close();
    }
  });

  test('an unreachable endpoint gives a clear error', async () => {
    const m = new OpenAIModel({ baseURL: 'http://127.0.0.1:9/v1', model: 'x', retry: { maxRetries: 1, initialDelayMs: 1, maxDelayMs: 1 } });
    await assert.rejects(m.complete({ prompt: 'x' }), /Could not reach the model endpoint http:\/\/127\.0\.0\.1:9\/v1 \(after 1 retry\)/);
  });
});

describe('retry policy and stop scanning', () => {
  test('Retry-After in seconds, milliseconds and as a date', () => {
    assert.equal(retryAfterMs(new Headers({ 'retry-after': '2' })), 2000);
    assert.equal(retryAfterMs(new Headers({ 'retry-after-ms': '150', 'retry-after': '9' })), 150);
    assert.equal(retryAfterMs(new Headers({ 'retry-after': new Date(10_000).toUTCString() }), 4_000), 6_000);
    assert.equal(retryAfterMs(new Headers({})), undefined);
  });

  test('backoff doubles and is capped', () => {
    const p = { maxRetries: 5, initialDelayMs: 100, maxDelayMs: 350 };
    assert.equal(
      backoffDelay(1, p, undefined, () => 0),
      100,
    );
    assert.equal(
      backoffDelay(2, p, undefined, () => 0),
      200,
    );
    assert.equal(
      backoffDelay(3, p, undefined, () => 0),
      350,
    );
  });

  test('a stop sequence split across chunks is never released', () => {
    const s = new StopScanner(['\n#']);
    assert.deepEqual(s.push('abc\n'), { release: 'abc', stopped: false });
    assert.deepEqual(s.push('#1: x'), { release: '', stopped: true });
    const t = new StopScanner(['\n#']);
    t.push('abc\n');
    assert.deepEqual(t.push('Q2'), { release: '\nQ2', stopped: false });
  });

  test('public URLs drop credentials and query', () => {
    assert.equal(publicURL('https://user:pw@example.test/v1/?api-key=k'), 'https://example.test/v1');
  });
});
