// The adapter (dist/debugAdapter.js) sent what a careless or minimal DAP client sends, frame by frame: a body that is
// `null`, not a DAP message or not JSON is said on stderr and the adapter reads on (it exited with code 0 and no
// word); an `initialize` without `pathFormat` (optional in the specification, `path` by default) is answered; a
// `goto`, which the adapter does not advertise, is an error response (it was a success doing nothing).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { ADAPTER } from './adapter';

interface Response {
  type: string;
  request_seq: number;
  command: string;
  success: boolean;
  message?: string;
  body?: Record<string, unknown>;
}

test('bodies that are not DAP messages are said and skipped; initialize without pathFormat; goto is refused', async () => {
  const adapter = spawn(process.execPath, [ADAPTER], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = Buffer.alloc(0);
  let stderr = '';
  const responses: Response[] = [];
  const waiters: (() => void)[] = [];
  adapter.stdout.on('data', (d: Buffer) => {
    stdout = Buffer.concat([stdout, d]);
    for (;;) {
      const head = /^Content-Length: (\d+)\r\n\r\n/.exec(stdout.toString('latin1', 0, 64));
      if (!head || stdout.length < head[0].length + Number(head[1])) break;
      const message = JSON.parse(stdout.toString('utf8', head[0].length, head[0].length + Number(head[1]))) as Response;
      stdout = stdout.subarray(head[0].length + Number(head[1]));
      if (message.type === 'response') responses.push(message);
    }
    waiters.splice(0).forEach(w => w());
  });
  adapter.stderr.on('data', d => (stderr += d));
  const exited = new Promise<number | null>(resolve => adapter.on('exit', code => resolve(code)));
  const send = (body: string) => adapter.stdin.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  const response = async (seq: number) => {
    for (;;) {
      const r = responses.find(x => x.request_seq === seq);
      if (r) return r;
      if (adapter.exitCode !== null) throw new Error(`the adapter exited with code ${adapter.exitCode}; stderr: ${stderr}`);
      await Promise.race([new Promise<void>(resolve => waiters.push(resolve)), exited]);
    }
  };
  try {
    send('null');
    send('{"foo": 1}');
    send('not json');
    send('{"seq": 7, "type": "request", "command": "initialize", "arguments": null}');
    send('{"seq": 1, "type": "request", "command": "initialize", "arguments": {"adapterID": "art", "linesStartAt1": true}}');
    const init = await response(1);
    assert.equal(init.success, true, init.message);
    assert.equal(init.body?.supportsStepBack, true);
    const bad = await response(7);
    assert.deepEqual([bad.success, bad.message], [false, 'not a DAP request: the "initialize" request\'s "arguments" is not an object']);
    send('{"seq": 2, "type": "request", "command": "goto", "arguments": {"threadId": 1, "targetId": 1}}');
    const goto = await response(2);
    assert.deepEqual([goto.success, goto.message], [false, 'the art debug adapter does not support "goto" (it is not among its capabilities)']);
    assert.equal(adapter.exitCode, null, 'the adapter is still running');
    assert.deepEqual(stderr.trim().split('\n'), [
      'art debug adapter: ignored a message that is not a DAP message: the body is null, not an object',
      'art debug adapter: ignored a message that is not a DAP message: it has no number "seq"',
      'art debug adapter: ignored a message it could not read (Error handling data: Unexpected token \'o\', "not json" is not valid JSON); reading on',
      'art debug adapter: ignored a message that is not a DAP message: the "initialize" request\'s "arguments" is not an object',
    ]);
  } finally {
    adapter.kill();
    await exited;
  }
});
