// A hostile GGUF file ends the run, not the process (issue 37 item 2): the files crafted from the real model
// (test/support/hostileGguf.ts) given to `art run` as a child process (dist/cli.js: an abort would show as SIGABRT and
// exit 134) and to `art mcp` in this process (an abort would end the test itself); the debug adapter's are in
// test/dap/localModel.test.ts. Each is one line naming the file and the fix, and the process goes on; a load
// cancelled over MCP ends the child process that checks the file. And `--gpu`: auto says the CPU once, cpu says so.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createArtMcpServer } from '../../core/cli/mcp';
import { disposeLocalRuntimes } from '../../core/model/localRuntime';
import { craftedModel, hostileModels } from '../support/hostileGguf';
import { localModelPath } from '../support/localModel';
import { runCliProcess, spawnCli } from '../support/cli';
import { until } from '../support/until';

const ROOT = resolve(__dirname, '../..');
const ws = mkdtempSync(join(tmpdir(), 'art-hostile-model-'));
writeFileSync(join(ws, 'library.art'), readFileSync(join(ROOT, 'examples/library.art'), 'utf8'));
localModelPath();
// The probe's verdicts go to a cache folder of this file's own (the model was found in the real one above).
const cache = join(ws, '.cache');
mkdirSync(cache);
process.env.XDG_CACHE_HOME = cache;
const hostile = hostileModels(ws);
after(async () => {
  await disposeLocalRuntimes();
  rmSync(ws, { recursive: true, force: true });
});

/** What each hostile file's one line says after its path. */
const EXPECTED: [keyof typeof hostile, RegExp][] = [
  ['headCount0', /: gemma3\.attention\.head_count is 0, but block 0 has attention tensors .*: the file is damaged or was altered: download it again/],
  ['blockCount', /: gemma3\.block_count is 4294967295; llama\.cpp needs a whole number from 1 to 512: the file is damaged/],
  ['keys2e62', /: metadata count is 4611686018427387904, more than a file of 24 bytes can hold: the file is damaged/],
  [
    'duplicateToken',
    /: llama\.cpp aborted loading it \(llama-vocab\.cpp:\d+: GGML_ASSERT\(id_to_token\.size\(\) == token_to_id\.size\(\)\) failed\) in the separate process that checks a model file, which ended: the file is damaged/,
  ],
];

/** This process's children (Linux): the probe's child while it runs. */
const children = () => readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);

describe('art run (a child process)', () => {
  for (const [name, pattern] of EXPECTED)
    test(`${name}: exit 1 with one line, no signal`, async () => {
      const r = await runCliProcess(['run', 'library.art', '--task', 'Elementary Math', '--input', 'Add 21 and 3.', '--model-file', hostile[name]], {
        cwd: ws,
        env: { XDG_CACHE_HOME: cache },
      });
      assert.equal(r.signal, null, r.stderr);
      assert.equal(r.code, 1, r.stderr);
      const line = r.stderr.split('\n').find(l => l.startsWith('art run: '));
      assert.ok(line, r.stderr);
      assert.ok(line.includes(`${hostile[name]}: `), line);
      assert.match(line, pattern);
    });
});

describe('art run --gpu', () => {
  /** The loading lines of a run on the real model, up to "loaded" (then the run is stopped: its generation is not the point). */
  const loadingLines = async (extra: string[]) => {
    const child = spawnCli(
      ['run', 'library.art', '--task', 'Elementary Math', '--input', 'Add 21 and 3.', '--model-file', localModelPath(), ...extra],
      { cwd: ws, env: { XDG_CACHE_HOME: cache } },
    );
    let stderr = '';
    child.stderr.on('data', d => (stderr += d));
    const closed = new Promise(resolve => child.on('close', resolve));
    try {
      await until(() => / loaded in /.test(stderr) || child.exitCode !== null, { what: 'the model to load', timeoutMs: 120_000 });
    } finally {
      child.kill();
      await closed;
    }
    return stderr
      .split('\n')
      .filter(l => /local model: loading .* on the/.test(l))
      .map(l => l.replace(/^.*on the/, 'on the'));
  };

  test('auto (the default) on a machine without a GPU: the CPU, said once; cpu: said so', async () => {
    assert.deepEqual(await loadingLines([]), ['on the CPU (no GPU that llama.cpp can use was found)…']);
    assert.deepEqual(await loadingLines(['--gpu', 'cpu']), ['on the CPU (gpu: "cpu")…']);
  });

  test('another value is one line naming the choices', async () => {
    const r = await runCliProcess(['run', 'library.art', '--model-file', localModelPath(), '--gpu', 'cuda'], { cwd: ws });
    assert.equal(r.code, 2);
    assert.equal(r.stderr.trim(), 'art run: --gpu: expected "auto" or "cpu", not "cuda"');
  });
});

type Result = CallToolResult & { structuredContent?: Record<string, unknown> };

describe('art mcp (in this process)', () => {
  const connect = async () => {
    const { server } = createArtMcpServer({ cwd: ws, env: { ...process.env }, log: () => {} });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'hostile', version: '1' });
    await client.connect(clientSide);
    return client;
  };
  const run = (client: Client, modelFile: string, signal?: AbortSignal) =>
    client.callTool(
      { name: 'run', arguments: { file: 'library.art', task: 'Elementary Math', input: 'Add 21 and 3.', modelFile } },
      undefined,
      signal ? { signal, timeout: 600_000 } : { timeout: 600_000 },
    ) as Promise<Result>;

  test('each hostile file ends its run with one line; the server answers the next call', async () => {
    const client = await connect();
    try {
      for (const [name, pattern] of EXPECTED) {
        const r = await run(client, hostile[name]);
        const error = String(r.structuredContent?.error ?? '');
        assert.equal(r.structuredContent?.status, 'error', JSON.stringify(r.structuredContent));
        assert.ok(error.startsWith(`${hostile[name]}: `) && !error.includes('\n'), error);
        assert.match(error, pattern);
      }
      const check = (await client.callTool({ name: 'check', arguments: { files: ['library.art'] } })) as Result;
      assert.ok(!check.isError, JSON.stringify(check.content));
    } finally {
      await client.close();
    }
  });

  test('cancelling the call over MCP while the file is checked ends the check', async () => {
    const client = await connect();
    try {
      // A copy of the real model no verdict knows: its load starts with the probe's child.
      const fresh = craftedModel(ws, 'fresh.gguf');
      const ac = new AbortController();
      const call = run(client, fresh, ac.signal);
      await until(() => children().length > 0, { what: "the probe's child to start" });
      ac.abort();
      await assert.rejects(call);
      await until(() => children().length === 0, { what: "the probe's child to end after the cancel" });
    } finally {
      await client.close();
    }
  });
});
