// Writes that followed a link out of the workspace (issue 37, item 1), each an attack that worked before: over the MCP
// SDK's own Client (`art mcp` in process), and from `art improve` in process. A link planted where ART writes (the
// trace, the results file, the proposal, improve's work folder and the files in it) or read as a default companion
// file (a spec's NAME.preamble.txt) is refused in one line, and the file it points to is neither made nor changed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createArtMcpServer } from '../../core/cli/mcp';
import { FAST_RETRY, runCli } from '../support/cli';

const ROOT = resolve(__dirname, '../..');
const base = mkdtempSync(join(tmpdir(), 'art-link-attack-'));
const ws = join(base, 'ws');
const priv = join(base, 'private');
mkdirSync(ws);
mkdirSync(priv);
writeFileSync(join(ws, 'library.art'), readFileSync(join(ROOT, 'examples/library.art'), 'utf8'));
writeFileSync(join(ws, 'data.jsonl'), '{"input": "1 + 1", "target": "2"}\n{"input": "2 + 2", "target": "4"}\n{"input": "3 + 3", "target": "6"}\n');
for (const [i, split] of ['train', 'dev', 'test'].entries())
  writeFileSync(join(ws, `${split}.jsonl`), `{"input": "${i} + 1", "target": "${i + 1}"}\n`);
/** improve's arguments: three splits and an endpoint that is never reached (the writes come first). */
const ENDPOINT = { baseURL: 'http://127.0.0.1:9/v1', model: 'm', task: 'Elementary Math' };
const SPLITS = { train: 'train.jsonl', dev: 'dev.jsonl', test: 'test.jsonl', ...ENDPOINT };
const BASHRC = join(priv, 'bashrc');
const SHELL_START = 'export PATH=$HOME/bin:$PATH\n';
writeFileSync(BASHRC, SHELL_START);

type Result = CallToolResult & { structuredContent?: Record<string, unknown> };
const text = (r: Result) => (r.content[0] as { text: string }).text;
/** What a refused write says: one line, naming the link. */
const LINK = /symbolic link/;

let client: Client;
const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as Result;

before(async () => {
  const { server } = createArtMcpServer({ cwd: ws, env: { ...process.env }, log: () => {} });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  client = new Client({ name: 'attacker', version: '1' });
  await client.connect(a);
});
after(() => client.close());

describe('art mcp attacked: writes through links (issue 37, item 1)', () => {
  test('run {trace} through a dangling link to a file outside: refused, the file outside is not made', async () => {
    symlinkSync(join(priv, 'evil.jsonl'), join(ws, 't.jsonl'));
    const r = await call('run', { file: 'library.art', task: 'Elementary Math', trace: 't.jsonl' });
    assert.equal(r.isError, true, text(r));
    assert.match(text(r), /outside the folders art mcp may use/);
    assert.ok(!existsSync(join(priv, 'evil.jsonl')), 'the trace was written outside the roots');
  });

  test('evaluate {out} through a dangling link: refused, no results file (or lock) outside', async () => {
    symlinkSync(join(priv, 'evil.results.jsonl'), join(ws, 'r.results.jsonl'));
    const r = await call('evaluate', { library: 'library.art', data: 'data.jsonl', out: 'r.results.jsonl', ...ENDPOINT });
    assert.equal(r.isError, true, text(r));
    assert.match(text(r), /outside the folders art mcp may use/);
    assert.deepEqual(readdirSync(priv).sort(), ['bashrc'], 'nothing is made outside');
  });

  test('evaluate {out}: a lock file planted beside it (a link to a device, a FIFO) is refused, never read', async () => {
    // Before: the lock was read with readFileSync, following the link: /dev/zero grew the server to gigabytes, a FIFO
    // blocked it for good (every client's calls with it). A FIFO stands in for /dev/zero here: it blocks, not grows.
    execFileSync('mkfifo', [join(priv, 'fifo')]);
    symlinkSync(join(priv, 'fifo'), join(ws, 'linked.results.jsonl.lock'));
    const linked = await call('evaluate', { library: 'library.art', data: 'data.jsonl', out: 'linked.results.jsonl', ...ENDPOINT });
    assert.equal(linked.isError, true, text(linked));
    assert.match(text(linked), /linked\.results\.jsonl\.lock: a symbolic link/);
    execFileSync('mkfifo', [join(ws, 'fifo.results.jsonl.lock')]);
    const fifo = await call('evaluate', { library: 'library.art', data: 'data.jsonl', out: 'fifo.results.jsonl', ...ENDPOINT });
    assert.equal(fifo.isError, true, text(fifo));
    assert.match(text(fifo), /fifo\.results\.jsonl\.lock: not a regular file/);
  });

  test('improve {out} through a dangling link to authorized_keys: refused, nothing made outside', async () => {
    symlinkSync(join(priv, 'authorized_keys'), join(ws, 'prop.art'));
    const r = await call('improve', { library: 'library.art', ...SPLITS, out: 'prop.art' });
    assert.equal(r.isError, true, text(r));
    assert.match(text(r), /outside the folders art mcp may use/);
    assert.ok(!existsSync(join(priv, 'authorized_keys')), 'the proposal was written outside');
  });

  test("improve's work folder: a train.jsonl linked to the shell's start file is refused, the file is unchanged", async () => {
    const work = join(ws, '.art/improve/lib.improved');
    mkdirSync(work, { recursive: true });
    symlinkSync(BASHRC, join(work, 'train.jsonl'));
    const r = await call('improve', { library: 'library.art', ...SPLITS, out: 'lib.improved.art' });
    assert.equal(r.isError, true, text(r));
    assert.match(text(r), LINK);
    assert.match(text(r), /train\.jsonl/);
    assert.equal(readFileSync(BASHRC, 'utf8'), SHELL_START, 'the training lines went into the link');
  });

  test("improve's work folder linked outside (and .art/improve itself): nothing is written there", async () => {
    const elsewhere = join(priv, 'work');
    mkdirSync(elsewhere);
    mkdirSync(join(ws, '.art/improve'), { recursive: true });
    symlinkSync(elsewhere, join(ws, '.art/improve/second'));
    const r = await call('improve', { library: 'library.art', ...SPLITS, out: 'second.art' });
    assert.equal(r.isError, true, text(r));
    assert.match(text(r), LINK);
    assert.deepEqual(readdirSync(elsewhere), [], 'the work folder was followed out');
    const ws2 = join(ws, 'sub');
    mkdirSync(ws2);
    writeFileSync(join(ws2, 'library.art'), readFileSync(join(ws, 'library.art')));
    symlinkSync(elsewhere, join(ws2, '.art'));
    const at = await call('improve', { ...SPLITS, library: join(ws2, 'library.art') });
    assert.equal(at.isError, true, text(at));
    assert.deepEqual(readdirSync(elsewhere), [], '.art was followed out');
  });

  test('show_prompt: a default companion (NAME.preamble.txt) linked outside is not read', async () => {
    writeFileSync(join(priv, 'id_ed25519'), '-----BEGIN OPENSSH PRIVATE KEY-----\nsecret-key-material\n');
    mkdirSync(join(ws, 'agents'));
    writeFileSync(join(ws, 'agents/react.agent'), readFileSync(join(ROOT, 'examples/agents/react.agent')));
    writeFileSync(join(ws, 'agents/react.transcript.txt'), readFileSync(join(ROOT, 'examples/agents/react.transcript.txt')));
    symlinkSync(join(priv, 'id_ed25519'), join(ws, 'agents/react.preamble.txt'));
    const r = await call('show_prompt', { file: 'agents/react.agent' });
    assert.doesNotMatch(JSON.stringify(r), /secret-key-material/);
    assert.equal(r.isError, true, text(r));
    assert.match(text(r), /react\.preamble\.txt/);
    assert.match(text(r), /outside the folders art mcp may use/);
  });

  test("the workspace's default corpus/ and .art-tools.json linked outside are refused, never read", async () => {
    const dir = join(ws, 'defaults');
    mkdirSync(dir);
    writeFileSync(join(dir, 'library.art'), readFileSync(join(ws, 'library.art')));
    mkdirSync(join(priv, 'docs'));
    writeFileSync(
      join(priv, 'docs/plan.md'),
      '# Forces\nThe formula for the horizontal component of a force applied at an angle is F cos theta. The private plan is codenamed BLUEHERON.\n',
    );
    writeFileSync(join(priv, 'hub-token'), 'hf_PrivateHubToken0123456789\n');
    /** `run` and `test` in that folder: refused naming `what`, nothing matching `leak` in the result. */
    const refused = async (what: RegExp, leak: RegExp) => {
      const run = { file: 'defaults/library.art', cwd: 'defaults', task: 'Physics Questions' };
      for (const [tool, a] of [
        ['run', run],
        ['test', { files: [run.file], cwd: run.cwd }],
      ] as const) {
        const r = await call(tool, a);
        assert.doesNotMatch(JSON.stringify(r), leak, tool);
        assert.equal(r.isError, true, `${tool}: ${text(r)}`);
        assert.match(text(r), new RegExp(`${what.source} .*outside the folders art mcp may use`), tool);
      }
    };
    // Before: the replayed [search] step searched the private folder and the result quoted it.
    symlinkSync(join(priv, 'docs'), join(dir, 'corpus'));
    await refused(/corpus/, /BLUEHERON/);
    // Before: the tool file's JSON error quoted the first characters of the file it links to ("hf_Private"...).
    rmSync(join(dir, 'corpus'));
    symlinkSync(join(priv, 'hub-token'), join(dir, '.art-tools.json'));
    await refused(/\.art-tools\.json/, /hf_Priv/);
  });
});

describe('art improve attacked: its work folder (issue 37, item 1)', () => {
  test('a planted train.jsonl link in .art/improve/NAME/ is refused in one line; the file it points to is unchanged', async () => {
    const cli = join(base, 'cli');
    mkdirSync(join(cli, '.art/improve/library.improved/splits'), { recursive: true });
    writeFileSync(join(cli, 'library.art'), readFileSync(join(ROOT, 'examples/library.art')));
    writeFileSync(join(cli, 'data.jsonl'), readFileSync(join(ws, 'data.jsonl')));
    symlinkSync(BASHRC, join(cli, '.art/improve/library.improved/splits/train.jsonl'));
    const r = await runCli(
      ['improve', 'library.art', '--data', 'data.jsonl', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm', '--task', 'Elementary Math'],
      { cwd: cli, retry: FAST_RETRY },
    );
    assert.equal(readFileSync(BASHRC, 'utf8'), SHELL_START, 'the split was written into the link');
    assert.equal(r.code, 1, r.stderr);
    const last = r.stderr.trim().split('\n').at(-1)!;
    assert.match(last, /^art improve: .*train\.jsonl.*symbolic link/);
  });
});
