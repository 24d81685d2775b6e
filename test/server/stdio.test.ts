// The smoke test a Neovim user does: start `node dist/server.js --stdio`, frame JSON-RPC by hand with a client
// that has no workspace/configuration and no markdown, open a file, read diagnostics and a hover, shut down.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { ROOT, SERVER, ensureServerBuilt, fileUri } from './lspClient';
import { deepAgent } from '../core/agent/helpers';

interface Message {
  id?: number | null;
  method?: string;
  params?: any;
  result?: any;
  error?: { code: number; message: string };
}

/** `node dist/server.js --stdio` with JSON-RPC framed by hand, as a bare-bones client does it. */
function stdioServer(t: { after: (fn: () => void) => void }) {
  ensureServerBuilt();
  const child = spawn(process.execPath, [SERVER, '--stdio'], { cwd: ROOT, stdio: 'pipe' });
  // A failed assertion must not leave the server running: it would keep the test process alive.
  t.after(() => void (child.exitCode === null && child.signalCode === null && child.kill()));
  const messages: Message[] = [];
  const waiters: { match: (m: Message) => boolean; resolve: (m: Message) => void }[] = [];
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  let buffer = Buffer.alloc(0);
  child.stdout.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      const headerEnd = buffer.indexOf('\r\n\r\n');
      if (headerEnd < 0) return;
      const length = Number(/Content-Length: (\d+)/i.exec(buffer.subarray(0, headerEnd).toString('ascii'))?.[1]);
      if (buffer.length < headerEnd + 4 + length) return;
      const m = JSON.parse(buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString('utf8')) as Message;
      buffer = buffer.subarray(headerEnd + 4 + length);
      messages.push(m);
      // Server-to-client requests a minimal client does not implement get an error, as Neovim does.
      if (m.method && m.id !== undefined) send({ id: m.id, error: { code: -32601, message: 'not supported' } } as any);
      for (const w of waiters.splice(0)) {
        if (w.match(m)) w.resolve(m);
        else waiters.push(w);
      }
    }
  });
  const send = (m: object) => {
    const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', ...m }), 'utf8');
    child.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
    child.stdin.write(body);
  };
  const next = (match: (m: Message) => boolean, what: string) => {
    const seen = messages.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise<Message>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), 10_000);
      waiters.push({ match, resolve: m => (clearTimeout(timer), resolve(m)) });
    });
  };
  /** The whole response, error included. */
  const call = async (id: number, method: string, params: unknown) => {
    send({ id, method, params });
    return next(m => m.id === id && m.method === undefined, method);
  };
  const request = async (id: number, method: string, params: unknown) => {
    const r = await call(id, method, params);
    assert.equal(r.error, undefined, r.error?.message);
    return r.result;
  };
  const exited = new Promise<number | null>(resolve => child.once('exit', code => resolve(code)));
  return { child, send, next, call, request, exited, stderr: () => stderr };
}

test('stdio: a bare-bones client gets diagnostics, plain-text hover, and a clean exit', async t => {
  const { send, next, request, exited } = stdioServer(t);

  const init = await request(1, 'initialize', { processId: process.pid, rootUri: null, capabilities: {} });
  assert.ok(init.capabilities.hoverProvider);
  send({ method: 'initialized', params: {} });

  const uri = fileUri('/tmp/nvim-smoke.art');
  const text = 'Description: (Demo) add\nInput: 1 + 2\nQ1: [calculator] 1 + 2\n#1: 3\nQ3: [EOQ]\nAns: 3\n';
  send({ method: 'textDocument/didOpen', params: { textDocument: { uri, languageId: 'art', version: 1, text } } });
  const published = await next(m => m.method === 'textDocument/publishDiagnostics' && m.params.uri === uri, 'publishDiagnostics');
  assert.deepEqual(
    published.params.diagnostics.map((d: any) => [d.code, d.range.start.line]),
    [['step-out-of-order', 4]],
  );

  const hover = await request(2, 'textDocument/hover', { textDocument: { uri }, position: { line: 2, character: 7 } });
  assert.equal(hover.contents.kind, 'plaintext');
  assert.match(hover.contents.value, /calculator/);

  assert.equal(await request(3, 'shutdown', null), null);
  send({ method: 'exit', params: null });
  assert.equal(await exited, 0);
});

test('stdio: a request before initialize gets the ServerNotInitialized error, then the server works', async t => {
  const { call, request, send, exited } = stdioServer(t);
  const early = await call(1, 'textDocument/hover', { textDocument: { uri: fileUri('/tmp/early.art') }, position: { line: 0, character: 0 } });
  assert.equal(early.result, undefined);
  assert.equal(early.error?.code, -32002);
  assert.match(early.error!.message, /not initialized/);
  const init = await request(2, 'initialize', { processId: process.pid, rootUri: null, capabilities: {} });
  assert.ok(init.capabilities.hoverProvider);
  send({ method: 'initialized', params: {} });
  assert.deepEqual(await request(3, 'textDocument/documentSymbol', { textDocument: { uri: fileUri('/tmp/not-open.art') } }), null);
  assert.equal(await request(4, 'shutdown', null), null);
  send({ method: 'exit', params: null });
  assert.equal(await exited, 0);
});

for (const [what, header] of [
  ['a Content-Length that is not a number', 'Content-Length: twelve\r\n\r\n{}'],
  ['no Content-Length', 'Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}'],
  ['a Content-Length too short for its message', 'Content-Length: 5\r\n\r\n{"jsonrpc": "2.0", "method": "initialized", "params": {}}'],
] as const) {
  test(`stdio: ${what}: the server says so on stderr and exits non-zero (the client restarts it)`, async t => {
    const { child, request, exited, stderr } = stdioServer(t);
    await request(1, 'initialize', { processId: process.pid, rootUri: null, capabilities: {} });
    child.stdin.write(header);
    const code = await Promise.race([exited, new Promise<string>(r => setTimeout(() => r('still running'), 10_000))]);
    assert.equal(code, 1, stderr());
    assert.match(stderr(), /^art-language-server: unreadable message from the client \(.+\); exiting so that the client restarts the server$/m);
  });
}

// Issue 20 item 10: a header that never ends was buffered without bound; a body that is not JSON ended the server.
test('stdio: a header that never ends: the server says so and exits non-zero once it passes the bound', async t => {
  const { child, request, exited, stderr } = stdioServer(t);
  await request(1, 'initialize', { processId: process.pid, rootUri: null, capabilities: {} });
  child.stdin.on('error', () => undefined); // the server exits before it has read the whole megabyte
  child.stdin.write('Content-Type: ' + 'x'.repeat(1024 * 1024));
  const code = await Promise.race([exited, new Promise<string>(r => setTimeout(() => r('still running'), 10_000))]);
  assert.equal(code, 1, stderr());
  assert.match(stderr(), /^art-language-server: unreadable message from the client \(Header longer than \d+ bytes without its end.*\); exiting/m);
});

test('stdio: a well-framed body that is not JSON gets a parse error (-32700, id null), and the server goes on', async t => {
  const { child, request, next, send, exited } = stdioServer(t);
  await request(1, 'initialize', { processId: process.pid, rootUri: null, capabilities: {} });
  child.stdin.write('Content-Length: 9\r\n\r\nnot json!');
  const error = await next(m => m.id === null && m.error !== undefined, 'the parse error');
  assert.equal(error.error?.code, -32700);
  assert.match(error.error?.message ?? '', /^Parse error: /);
  assert.equal(await request(2, 'shutdown', null), null);
  send({ method: 'exit', params: null });
  assert.equal(await exited, 0);
});

test('stdio: an agent spec nested 3,000 deep gets the "nested too deeply" diagnostic, and the server goes on', async t => {
  const { send, next, request } = stdioServer(t);
  await request(1, 'initialize', { processId: process.pid, rootUri: null, capabilities: {} });
  send({ method: 'initialized', params: {} });
  const uri = fileUri('/tmp/deep.agent');
  send({ method: 'textDocument/didOpen', params: { textDocument: { uri, languageId: 'art-agent', version: 1, text: deepAgent(3_000) } } });
  const published = await next(m => m.method === 'textDocument/publishDiagnostics' && m.params.uri === uri, 'publishDiagnostics');
  assert.equal(published.params.diagnostics.length, 1);
  assert.match(published.params.diagnostics[0].message, /nested too deeply/);
  assert.ok(Array.isArray(await request(2, 'textDocument/documentSymbol', { textDocument: { uri } })));
  await request(3, 'textDocument/formatting', { textDocument: { uri }, options: { tabSize: 2, insertSpaces: true } });
  await request(4, 'textDocument/semanticTokens/full', { textDocument: { uri } });
});

test('node-ipc (a client may start it so; VS Code uses stdio): initialize, diagnostics, clean exit', async t => {
  ensureServerBuilt();
  const { fork } = await import('node:child_process');
  const { IPCMessageReader, IPCMessageWriter, createProtocolConnection } = await import('vscode-languageserver-protocol/node');
  const child = fork(SERVER, ['--node-ipc', `--clientProcessId=${process.pid}`], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  t.after(() => void (child.exitCode === null && child.signalCode === null && child.kill()));
  const connection = createProtocolConnection(new IPCMessageReader(child), new IPCMessageWriter(child));
  const uri = fileUri('/tmp/ipc-smoke.agent');
  const published = new Promise<any>(resolve => {
    connection.onNotification('textDocument/publishDiagnostics', (p: any) => {
      if (p.uri === uri) resolve(p);
    });
  });
  connection.onRequest('client/registerCapability', () => null);
  connection.listen();
  const init: any = await connection.sendRequest('initialize', { processId: process.pid, rootUri: null, capabilities: {} });
  assert.ok(init.capabilities.documentSymbolProvider);
  await connection.sendNotification('initialized', {});
  await connection.sendNotification('textDocument/didOpen', {
    textDocument: { uri, languageId: 'art-agent', version: 1, text: '(define a\n  (:states (Q (:text "[Q]")))\n  (:behavior (next Q R)))\n' },
  });
  const p = await published;
  assert.deepEqual(
    p.diagnostics.map((d: any) => d.code),
    ['unknown-state'],
  );
  const exited = new Promise<number | null>(resolve => child.once('exit', code => resolve(code)));
  await connection.sendRequest('shutdown', null);
  await connection.sendNotification('exit', null);
  assert.equal(await exited, 0);
  connection.dispose();
});
