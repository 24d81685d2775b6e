// The sandbox cases of issue 4: each is stopped or denied with a clear message, and the next run works.
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createExecuteTool } from '../../../core/tools/python';
import { networkNamespaceAvailable, runPython } from '../../../core/tools/sandbox';
import { PYTHON, ctx } from './helpers';

const SECRET = 'sk-art-test-0123456789';
process.env.ART_TEST_SECRET = SECRET;
after(() => { delete process.env.ART_TEST_SECRET; });

const fast = { timeoutMs: 4000, memoryBytes: 256 * 1024 * 1024 };

describe('python sandbox', () => {
  test('an infinite loop is stopped by the timeout', async () => {
    const tool = createExecuteTool({ pythonPath: PYTHON, limits: fast });
    const r = await tool.run({ instruction: 'Run', previousAnswer: 'while True:\n    pass' }, ctx({ timeoutMs: 1500 }));
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.timedOut, true);
    assert.equal(!r.ok ? r.error : '', '[execute] stopped after the time limit of 1.5 s');
  });

  test('unbounded allocation ends with a memory error', async () => {
    const r = await runPython({ code: 'blocks = []\nwhile True:\n    blocks.append(bytearray(50 * 1024 * 1024))', pythonPath: PYTHON, limits: fast });
    assert.equal(r.status, 'memory');
    assert.equal(r.message, 'ran out of memory: the sandbox allows 256 MB');
    const viaTool = await createExecuteTool({ pythonPath: PYTHON, limits: fast }).run({ instruction: 'x', previousAnswer: 'x = bytearray(10**12)' }, ctx());
    assert.equal(viaTool.ok, false);
    assert.match(!viaTool.ok ? viaTool.error : '', /^\[execute\] ran out of memory/);
  });

  test('unbounded printing is capped and stopped', async () => {
    const r = await runPython({ code: 'while True:\n    print("spam " * 20)', pythonPath: PYTHON, limits: { ...fast, maxOutputBytes: 4096 } });
    assert.equal(r.status, 'output-limit');
    assert.ok(r.stdout.length < 4200, `stdout has ${r.stdout.length} characters`);
    assert.match(r.stdout, /\[output truncated at 4096 bytes\]$/);
    const tool = await createExecuteTool({ pythonPath: PYTHON, limits: { ...fast, maxOutputBytes: 4096 } }).run({ instruction: 'x', previousAnswer: 'while True: print("x")' }, ctx());
    assert.ok(tool.ok);
    assert.match(tool.output, /\[stopped after printing more than the output limit of 4096 bytes\]$/);
  });

  test('a secret in the parent environment is not visible', async () => {
    assert.equal(process.env.ART_TEST_SECRET, SECRET);
    const r = await runPython({ code: 'import os\nprint(repr(os.environ.get("ART_TEST_SECRET")))\nprint(sorted(os.environ))', pythonPath: PYTHON, limits: fast });
    assert.equal(r.status, 'ok');
    assert.equal(r.stdout.split('\n')[0], 'None');
    assert.doesNotMatch(r.stdout, new RegExp(SECRET));
    assert.doesNotMatch(r.stdout, /ART_TEST_SECRET|OPENAI|API_KEY/);
    const proc = await runPython({ code: 'print(open("/proc/self/environ").read())', pythonPath: PYTHON, limits: fast });
    assert.doesNotMatch(proc.stdout, new RegExp(SECRET));
  });

  test('opening a socket is denied with a clear message', async () => {
    const r = await runPython({ code: 'import socket\nsocket.create_connection(("127.0.0.1", 9), timeout=2)', pythonPath: PYTHON, limits: fast });
    assert.equal(r.status, 'exception');
    assert.deepEqual(r.exception, { type: 'PermissionError', message: 'network access is disabled in the ART sandbox' });
    const s = await runPython({ code: 'import socket\nsocket.socket(socket.AF_INET, socket.SOCK_STREAM)', pythonPath: PYTHON, limits: fast, networkNamespace: false });
    assert.equal(s.exception?.message, 'network access is disabled in the ART sandbox');
    assert.equal(s.isolation.networkNamespace, false);
  });

  test('where user namespaces work, even the raw _socket module reaches no network', async () => {
    const available = await networkNamespaceAvailable();
    // This machine (Linux, unshare present) must offer the namespace; elsewhere the guard above is the isolation.
    assert.equal(available, process.platform === 'linux' && existsSync('/usr/bin/unshare'));
    if (!available) return;
    const r = await runPython({ code: 'import _socket\ns = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)\ns.settimeout(2)\ns.connect(("127.0.0.1", 9))', pythonPath: PYTHON, limits: fast });
    assert.equal(r.status, 'exception');
    assert.equal(r.isolation.networkNamespace, true);
    assert.match(r.exception?.message ?? '', /Network is unreachable/);
  });

  test('the scratch folder is the working directory and is deleted afterwards; runs go on after failures', async () => {
    const r = await runPython({ code: 'import os\nopen("note.txt", "w").write("x")\nprint(os.getcwd())', pythonPath: PYTHON, limits: fast });
    assert.equal(r.status, 'ok');
    const dir = r.stdout.trim();
    assert.match(dir, /art-python-/);
    assert.equal(existsSync(dir), false);
    const next = await runPython({ code: 'ans = 2 + 2', resultVars: ['ans'], pythonPath: PYTHON, limits: fast });
    assert.deepEqual(next.value, { found: true, name: 'ans', text: '4' });
  });

  test('a background process that leaves the process group does not hang the run', async () => {
    const started = Date.now();
    const code = 'import os, time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(5)\n    os._exit(0)\nprint("parent done")';
    const r = await runPython({ code, pythonPath: PYTHON, limits: fast });
    assert.equal(r.status, 'ok');
    assert.equal(r.stdout.trim(), 'parent done');
    assert.ok(Date.now() - started < 3500, `took ${Date.now() - started} ms`);
  });

  test('cancellation stops the process', async () => {
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 300);
    const r = await runPython({ code: 'import time\ntime.sleep(30)', pythonPath: PYTHON, limits: fast, signal: controller.signal });
    assert.equal(r.status, 'cancelled');
    assert.ok(Date.now() - started < 3000);
  });
});
