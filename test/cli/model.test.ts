// `art model pull` and `art model list` (core/cli/model.ts) in-process, against a local server that answers as the
// hub does (HF_ENDPOINT), into a models folder of the test's own.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, spawnCli } from '../support/cli';
import { ggufBytes, modelHub } from '../support/modelHub';
import { until } from '../support/until';

describe('art model', () => {
  test('pull downloads into --dir with progress lines in a pipe, prints the path; list shows it', async () => {
    const body = ggufBytes(2 << 20);
    const hub = await modelHub({ '/someone/tiny-GGUF/resolve/main/tiny.gguf': body });
    const dir = mkdtempSync(join(tmpdir(), 'art-model-cli-'));
    try {
      const pulled = await runCli(['model', 'pull', 'hf:someone/tiny-GGUF/tiny.gguf', '--dir', dir], { env: { HF_ENDPOINT: hub.url } });
      assert.equal(pulled.code, 0, pulled.stderr);
      const path = pulled.stdout.trim();
      assert.ok(readFileSync(path).equals(body));
      assert.match(pulled.stderr, /^Pulling hf:someone\/tiny-GGUF\/tiny\.gguf into /);
      assert.match(pulled.stderr, /100% of 2\.1 MB/);
      const listed = await runCli(['model', 'list', '--dir', dir, '--json']);
      assert.equal(listed.code, 0);
      const json = JSON.parse(listed.stdout) as { folder: string; models: { path: string; bytes: number }[] };
      assert.equal(json.folder, dir);
      assert.deepEqual(
        json.models.map(m => [m.path, m.bytes]),
        [[path, body.length]],
      );
      const text = await runCli(['model', 'list', '--dir', dir]);
      assert.match(text.stdout, /2\.1 MB/);
    } finally {
      await hub.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a model the hub does not have is one line with exit 1; an empty folder says how to get one', async () => {
    const hub = await modelHub({});
    const dir = mkdtempSync(join(tmpdir(), 'art-model-cli-'));
    try {
      const r = await runCli(['model', 'pull', 'hf:nobody/none/none.gguf', '--dir', dir], { env: { HF_ENDPOINT: hub.url } });
      assert.equal(r.code, 1);
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.length, 2, r.stderr);
      assert.match(lines[1], /^art model pull: hf:nobody\/none\/none\.gguf: /);
      const empty = await runCli(['model', 'list', '--dir', dir]);
      assert.match(empty.stdout, /^No model in .*: art model pull downloads /);
    } finally {
      await hub.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    test(`${signal} ends a pull at once (dist/cli.js), and the same pull resumes what came`, async () => {
      const body = ggufBytes(4 << 20);
      const file = '/someone/tiny-GGUF/resolve/main/slow.gguf';
      const stallAfter = 256 << 10;
      // The hub sends 256 KB, then holds the connection open: the pull waits on it until the signal.
      const hub = await modelHub({ [file]: body }, { chunk: 64 << 10, stallAfter });
      const dir = mkdtempSync(join(tmpdir(), 'art-model-cli-'));
      const child = spawnCli(['model', 'pull', 'hf:someone/tiny-GGUF/slow.gguf', '--dir', dir], { env: { HF_ENDPOINT: hub.url } });
      let stderr = '';
      child.stderr.on('data', d => (stderr += d));
      try {
        await hub.sent(stallAfter);
        await until(() => /\d+% of 4\.2 MB/.test(stderr), { what: 'the pull to report its progress' });
        child.kill(signal);
        await until(() => child.exitCode !== null || child.signalCode !== null, { what: `art model pull to end after ${signal}` });
        assert.equal(child.exitCode, 130, stderr);
        assert.match(
          stderr.trim().split('\n').at(-1)!,
          /^art model pull: hf:someone\/tiny-GGUF\/slow\.gguf: cancelled; nothing was added .*resumes it/,
        );
        const listed = await runCli(['model', 'list', '--dir', dir, '--json']);
        assert.deepEqual(JSON.parse(listed.stdout).models, []);
      } finally {
        child.kill('SIGKILL');
        await hub.close();
      }
      const second = await modelHub({ [file]: body });
      try {
        const pulled = await runCli(['model', 'pull', 'hf:someone/tiny-GGUF/slow.gguf', '--dir', dir], { env: { HF_ENDPOINT: second.url } });
        assert.equal(pulled.code, 0, pulled.stderr);
        assert.ok(readFileSync(pulled.stdout.trim()).equals(body));
        assert.deepEqual(second.ranges, [`bytes=${stallAfter}-`], 'the bytes that came before the signal are not fetched again');
      } finally {
        await second.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });

  test('an unknown subcommand names the two there are', async () => {
    const r = await runCli(['model', 'fetch']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown subcommand 'fetch': pull or list/);
  });
});
