// The stdio transport (server/transport.ts). The writer's sliced serialisation of large answers: the bytes are
// those of JSON.stringify, whatever the shape of the answer, and the event loop runs between the slices. The reader:
// messages split anywhere between chunks, several in one chunk, a large body decoded in slices, framing errors.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import type { Message } from 'vscode-languageserver/node';
import {
  DECODE_SLICE,
  FramedMessageReader,
  LARGE_ARRAY,
  MAX_HEADER_BYTES,
  decodeInSlices,
  encodeInSlices,
  slicedStreamWriter,
} from '../../server/transport';

const range = (i: number) => ({ start: { line: i, character: 0 }, end: { line: i + 3, character: 7 } });
const symbols = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    name: `task ${i} “quoted” é`,
    detail: i % 2 ? undefined : 'x',
    kind: 2,
    range: range(i),
    selectionRange: range(i),
  }));

test('a large response is serialised exactly as JSON.stringify serialises it', async () => {
  const cases: Message[] = [
    { jsonrpc: '2.0', id: 1, result: symbols(LARGE_ARRAY * 3 + 17) } as Message,
    { jsonrpc: '2.0', id: 'a', result: { uri: 'file:///x.art', version: 3, programs: symbols(LARGE_ARRAY + 1), after: [1, 2] } } as Message,
    { jsonrpc: '2.0', id: 2, result: { resultId: undefined, data: Array.from({ length: 120_001 }, (_, i) => i % 7) } } as Message,
    { jsonrpc: '2.0', id: 3, result: [...symbols(LARGE_ARRAY), undefined, null, 'x'] } as Message,
  ];
  for (const msg of cases) {
    const bytes = await encodeInSlices(msg, 0);
    assert.ok(bytes, 'a large array is found');
    assert.ok(bytes.length > 2, 'in parts');
    assert.equal(Buffer.concat(bytes).toString('utf8'), JSON.stringify(msg));
  }
});

test('small answers, notifications and requests are left to be serialised at once', async () => {
  assert.equal(await encodeInSlices({ jsonrpc: '2.0', id: 1, result: symbols(10) } as Message), null);
  assert.equal(await encodeInSlices({ jsonrpc: '2.0', id: 1, result: null } as Message), null);
  assert.equal(
    await encodeInSlices({ jsonrpc: '2.0', method: 'textDocument/publishDiagnostics', params: { diagnostics: symbols(5000) } } as Message),
    null,
  );
});

test('the event loop runs between the slices, and a small message written meanwhile goes out first, whole', async () => {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  const writer = slicedStreamWriter(stream);
  const large = { jsonrpc: '2.0', id: 1, result: symbols(15_000) } as Message;
  const small = { jsonrpc: '2.0', id: 2, result: { contents: 'hover' } } as Message;
  let ticks = 0;
  const timer = setInterval(() => ticks++, 0);
  const first = writer.write(large);
  await new Promise(r => setImmediate(r));
  await writer.write(small);
  await first;
  clearInterval(timer);
  assert.ok(ticks > 0, 'timers ran while the large answer was serialised');
  // Split the stream back into messages by their Content-Length headers.
  const all = Buffer.concat(chunks);
  const messages: unknown[] = [];
  for (let at = 0; at < all.length;) {
    const headerEnd = all.indexOf('\r\n\r\n', at);
    const length = Number(/Content-Length: (\d+)/.exec(all.subarray(at, headerEnd).toString('ascii'))![1]);
    messages.push(JSON.parse(all.subarray(headerEnd + 4, headerEnd + 4 + length).toString('utf8')));
    at = headerEnd + 4 + length;
  }
  assert.deepEqual(messages, [JSON.parse(JSON.stringify(small)), JSON.parse(JSON.stringify(large))]);
});

const frame = (m: unknown) => {
  const body = Buffer.from(JSON.stringify(m), 'utf8');
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'ascii'), body]);
};

/** Feeds `bytes` to a reader in chunks of `size` and collects what it delivers and its errors. */
async function readAll(bytes: Buffer, size: number): Promise<{ messages: unknown[]; errors: string[]; parseErrors: string[] }> {
  const stream = new PassThrough();
  const parseErrors: string[] = [];
  const reader = new FramedMessageReader(stream, { onParseError: e => parseErrors.push(e.message) });
  const messages: unknown[] = [];
  const errors: string[] = [];
  reader.onError(e => errors.push(e.message));
  reader.listen(m => messages.push(m));
  for (let at = 0; at < bytes.length; at += size) stream.write(bytes.subarray(at, at + size));
  for (let i = 0; i < 50; i++) await new Promise(r => setImmediate(r));
  return { messages, errors, parseErrors };
}

test('the reader delivers every message in order, however the bytes are split into chunks', async () => {
  const big = { jsonrpc: '2.0', method: 'textDocument/didOpen', params: { text: 'é–θ’ line\n'.repeat((DECODE_SLICE * 2.5) / 10) } };
  const sent = [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} },
    big,
    { jsonrpc: '2.0', id: 2, method: 'textDocument/hover', params: { é: 'ü' } },
  ];
  const bytes = Buffer.concat([
    ...sent.map(frame),
    Buffer.from('Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n'),
    frame({ jsonrpc: '2.0', method: 'exit' }),
  ]);
  for (const size of [1, 3, 7, 4096, 65536, bytes.length]) {
    if (size === 1 && bytes.length > 100_000) {
      const small = await readAll(Buffer.concat([frame(sent[0]), frame(sent[2])]), 1);
      assert.deepEqual(small, { messages: [sent[0], sent[2]], errors: [], parseErrors: [] });
      continue;
    }
    const r = await readAll(bytes, size);
    assert.deepEqual(r.errors, [], `chunks of ${size}`);
    assert.deepEqual(r.messages, [...sent, { jsonrpc: '2.0', method: 'exit' }], `chunks of ${size}`);
  }
});

test('a large body is decoded a slice at a time, as JSON.parse decodes it, escapes and characters cut between slices included', async () => {
  const n = DECODE_SLICE;
  const escapes = 'line\n\t"quoted" back\\slash \u0000 é – θ ’ 😀 \ud83d lone ';
  const messages = [
    // 'é' is two bytes: with an odd offset the byte slices cut characters in half.
    { jsonrpc: '2.0', method: 'm', params: { text: `x${'é'.repeat(n)}` } },
    // Escapes everywhere, so that character slices of the long string fall on and inside escape sequences.
    {
      jsonrpc: '2.0',
      method: 'textDocument/didOpen',
      params: { textDocument: { uri: 'file:///a.art', version: 1, text: escapes.repeat((2.5 * n) / escapes.length) } },
    },
    // Two long strings, one in an array, one as a key; small strings and other values around them.
    {
      jsonrpc: '2.0',
      id: 7,
      method: 'm',
      params: { a: ['short', 'ü'.repeat(n + 3), 1, null, true], [`k${'\n'.repeat(n)}`]: { b: 'z'.repeat(n - 1) }, __proto__x: 2 },
    },
  ];
  for (const m of messages) {
    const body = Buffer.from(JSON.stringify(m), 'utf8');
    assert.deepEqual(await decodeInSlices(body, 0), JSON.parse(body.toString('utf8')));
  }
  // Long strings that are not JSON end up an error, not a message.
  await assert.rejects(decodeInSlices(Buffer.from(`{"a":"${'x'.repeat(n * 2)}`, 'utf8')), /Unterminated/);
  await assert.rejects(decodeInSlices(Buffer.from(`{"a":"${'x'.repeat(n * 2)}\\q"}`, 'utf8')));
});

test('the reader reports a header without a numeric Content-Length, and invalid JSON', async () => {
  const noLength = await readAll(Buffer.from('Content-Type: x\r\n\r\n{}'), 64);
  assert.match(noLength.errors[0], /Content-Length/);
  const notNumber = await readAll(Buffer.from('Content-Length: twelve\r\n\r\n{}'), 64);
  assert.match(notNumber.errors[0], /must be a number/);
  const tooShort = await readAll(Buffer.from('Content-Length: 5\r\n\r\n{"jsonrpc": "2.0"}'), 64);
  // What follows its 5 bytes cannot begin a header: a framing error (the stream is out of step).
  assert.equal(tooShort.errors.length, 1);
  assert.match(tooShort.errors[0], /^Not a header line/);
  assert.deepEqual(tooShort.messages, []);
});

// Issue 20 item 10: a header without its end was buffered without bound (72 MB in 30 s); it fails once it passes
// MAX_HEADER_BYTES, or at once when what came cannot begin a header line.
test('a header that never ends is refused past the bound, and bytes that cannot be a header at once', async () => {
  for (const size of [1024, 65536]) {
    const endless = await readAll(Buffer.from('Content-Type: ' + 'x'.repeat(1024 * 1024)), size);
    assert.equal(endless.errors.length, 1, `chunks of ${size}`);
    assert.match(endless.errors[0], new RegExp(`^Header longer than ${MAX_HEADER_BYTES} bytes without its end`));
  }
  const garbage = await readAll(Buffer.from('"2.0", "method": "initialized", "params": {}}'), 64);
  assert.equal(garbage.errors.length, 1);
  assert.match(garbage.errors[0], /^Not a header line: "\\"2\.0\\", \\"method\\"/);
});

// A well-framed body that is not JSON is a parse error to answer (-32700, id null), not a reason to stop reading.
test('a well-framed body that is not JSON is reported as a parse error, and the next messages are delivered', async () => {
  const next = { jsonrpc: '2.0', id: 2, method: 'textDocument/hover', params: {} };
  const large = Buffer.from(`{"a":"${'x'.repeat(DECODE_SLICE * 2)}`, 'utf8');
  const bytes = Buffer.concat([
    Buffer.from('Content-Length: 9\r\n\r\nnot json!', 'ascii'),
    Buffer.from(`Content-Length: ${large.length}\r\n\r\n`, 'ascii'),
    large,
    frame(next),
  ]);
  for (const size of [7, 65536]) {
    const r = await readAll(bytes, size);
    assert.deepEqual(r.errors, [], `chunks of ${size}`);
    assert.deepEqual(r.messages, [next], `chunks of ${size}`);
    assert.equal(r.parseErrors.length, 2, `chunks of ${size}`);
    assert.match(r.parseErrors[0], /JSON/);
    assert.match(r.parseErrors[1], /Unterminated string/);
  }
});

test('random long strings of escapes, backslash runs and quotes decode as JSON.parse decodes them, wherever the slices fall', async () => {
  const pieces = ['\\', '\\\\\\', '"', '\\"', '\n', 'é', '😀', '\ud800', '\u0001', 'abc', ' ', '\\u0041', '/'];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x80000000;
  for (let round = 0; round < 6; round++) {
    const target = Math.floor(DECODE_SLICE * (1.2 + next() * 1.5));
    const chunks: string[] = [];
    let length = 0;
    while (length < target) {
      const p = pieces[Math.floor(next() * pieces.length)].repeat(1 + Math.floor(next() * 3));
      chunks.push(p);
      length += p.length;
    }
    const text = chunks.join('');
    const m = { jsonrpc: '2.0', method: 'textDocument/didOpen', params: { textDocument: { uri: 'file:///r.art', text }, after: 'x"y' } };
    const body = Buffer.from(JSON.stringify(m), 'utf8');
    assert.deepEqual(await decodeInSlices(body, 0), JSON.parse(body.toString('utf8')), `round ${round}`);
  }
});

test('while a large message about one document is decoded, a request about another goes first; everything else keeps its order', async () => {
  const text = 'line é\n'.repeat((DECODE_SLICE * 2) / 7);
  const open = {
    jsonrpc: '2.0',
    method: 'textDocument/didOpen',
    params: { textDocument: { uri: 'file:///a.art', languageId: 'art', version: 1, text } },
  };
  const hoverB = {
    jsonrpc: '2.0',
    id: 2,
    method: 'textDocument/hover',
    params: { textDocument: { uri: 'file:///b.art' }, position: { line: 0, character: 0 } },
  };
  const changeB = {
    jsonrpc: '2.0',
    method: 'textDocument/didChange',
    params: { textDocument: { uri: 'file:///b.art', version: 2 }, contentChanges: [{ text: 'x' }] },
  };
  const hoverB2 = { ...hoverB, id: 3 };
  const hoverA = { ...hoverB, id: 4, params: { ...hoverB.params, textDocument: { uri: 'file:///a.art' } } };
  const shutdown = { jsonrpc: '2.0', id: 5, method: 'shutdown' };
  const bytes = Buffer.concat([open, hoverB, changeB, hoverB2, hoverA, shutdown].map(frame));
  for (const size of [4096, bytes.length]) {
    const r = await readAll(bytes, size);
    assert.deepEqual(r.errors, []);
    assert.deepEqual(
      r.messages.map(m => (m as { id?: number; method: string }).id ?? (m as { method: string }).method),
      [2, 'textDocument/didOpen', 'textDocument/didChange', 3, 4, 5],
      `chunks of ${size}`,
    );
  }
  // A large message whose document is not written before its text: nothing goes ahead of it.
  const late = { jsonrpc: '2.0', method: 'textDocument/didOpen', params: { text, textDocument: { uri: 'file:///a.art' } } };
  const r = await readAll(Buffer.concat([late, hoverB].map(frame)), 65536);
  assert.deepEqual(
    r.messages.map(m => (m as { id?: number; method: string }).id ?? (m as { method: string }).method),
    ['textDocument/didOpen', 2],
  );
});
