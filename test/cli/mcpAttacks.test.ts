// `art mcp` attacked as a prompt-injected client would (issue 29, items 1-4), over the MCP SDK's own Client: each test
// is an attack that worked before, and says what the server does now. Paths outside the client's roots (or the start
// folder, or --allow-path) are refused; writes replace only their own kind of file; a key goes only to the origins
// fixed at start, and no tool argument names another variable; the tool file's commands start only with
// --allow-tools, and building a prompt starts nothing; devices and FIFOs are refused by the one bounded reader; the
// session cap holds under parallel starts; idle sessions expire; cancel and debug_stop stop a busy step. And what a
// caller may spend (issue 37, item 3): a model file only in the roots or the models folder, one message for any
// other; the context size, the idle release, the sandbox's memory and time limits lowered to the server's caps; at
// most --max-runs calls that run programs at once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createArtMcpServer } from '../../core/cli/mcp';
import { MAX_SESSIONS, type HeadlessSessions } from '../../core/agentTools/sessions';
import type { McpStart } from '../../core/cli/mcpCommon';
import { defaultLimits, type RunSlots } from '../../core/agentTools/limits';
import { ContinuationScript } from '../../core/replay/script';
import { ScriptedServer } from '../support/scriptedServer';
import { runCli } from '../support/cli';
import { until } from '../support/until';

const ROOT = resolve(__dirname, '../..');
const LIBRARY = join(ROOT, 'examples/library.art');
const BAKER = 'A baker makes 12 loaves a day. She keeps 2 for her family and sells the rest for $3 each. How much money does she make in a week?';
const SECRET = 'sk-attack-test-key-4242';
const TOKEN = 'ghp_attackTestGithubToken0000';

/** The workspace the server starts in, and a private folder outside it (the attacker's targets). */
const base = mkdtempSync(join(tmpdir(), 'art-mcp-attack-'));
const ws = join(base, 'ws');
const priv = join(base, 'private');
mkdirSync(ws);
mkdirSync(priv);
writeFileSync(join(priv, 'id_ed25519'), '-----BEGIN OPENSSH PRIVATE KEY-----\nsecret-key-material\n');
mkdirSync(join(priv, 'docs'));
writeFileSync(join(priv, 'docs/private.txt'), 'The private plan is codenamed BLUEHERON.\n');
writeFileSync(join(ws, 'library.art'), readFileSync(LIBRARY, 'utf8'));

/** The slow tool's sleep, its length unique to this process so that pgrep finds only its own. */
const SLOW = `600.${process.pid}`;

/** A library whose steps call the tool file's command tools: `mark` leaves a file, `slow` sleeps. */
const MARKS = `Description: (Marks) Touch a file, then wait
Input: go
Q1: [mark] first
#1: done
Q2: [slow] second
#2: done
Q3: [EOQ]
Ans: done
`;
writeFileSync(join(ws, 'marks.art'), MARKS);
writeFileSync(
  join(ws, '.art-tools.json'),
  JSON.stringify({
    tools: [
      { kind: 'command', name: 'mark', command: ['sh', '-c', 'touch ran-mark; echo done'], stdin: false },
      { kind: 'command', name: 'slow', command: ['sleep', SLOW], stdin: false, timeoutMs: 120_000 },
    ],
  }),
);
/** A workspace whose tool file starts an MCP server (it leaves a file and exits): building a prompt must not start it. */
const wsServer = join(base, 'ws-server');
mkdirSync(wsServer);
writeFileSync(join(wsServer, 'library.art'), readFileSync(LIBRARY, 'utf8'));
writeFileSync(join(wsServer, '.art-tools.json'), JSON.stringify({ tools: [{ kind: 'mcp', command: ['sh', '-c', 'touch ran-mcp-server'] }] }));

type Result = CallToolResult & { structuredContent?: Record<string, unknown> };
const text = (r: Result) => (r.content[0] as { text: string }).text;
const data = (r: Result): any => {
  assert.ok(!r.isError, `the tool failed: ${text(r)}`);
  return r.structuredContent;
};

interface Connected {
  client: Client;
  sessions: HeadlessSessions;
  slots: RunSlots;
  start: McpStart;
  call(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<Result>;
  close(): Promise<void>;
}

async function connect(o: { cwd?: string; start?: McpStart; roots?: string[]; env?: NodeJS.ProcessEnv } = {}): Promise<Connected> {
  const start = o.start ?? {};
  const env = { ...process.env, OPENAI_API_KEY: SECRET, GITHUB_TOKEN: TOKEN, ...o.env };
  const { server, sessions, slots } = createArtMcpServer({ cwd: o.cwd ?? ws, env, log: () => {}, start });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'attacker', version: '1' }, o.roots ? { capabilities: { roots: { listChanged: true } } } : undefined);
  if (o.roots) client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: o.roots!.map(r => ({ uri: pathToFileURL(r).href })) }));
  await client.connect(clientSide);
  return {
    client,
    sessions,
    slots,
    start,
    call: async (name, args, signal) => (await client.callTool({ name, arguments: args }, undefined, signal ? { signal } : undefined)) as Result,
    close: () => client.close(),
  };
}

const OUTSIDE = /outside the folders art mcp may use .*start art mcp with --allow-path DIR/;

describe('art mcp attacked: paths (item 1)', () => {
  let c: Connected;
  before(async () => (c = await connect()));
  after(() => c.close());

  test('show_prompt {preamble: a private key} is refused in one line, the key file quoted nowhere', async () => {
    const r = await c.call('show_prompt', { file: 'library.art', task: 'Elementary Math', preamble: join(priv, 'id_ed25519') });
    assert.equal(r.isError, true);
    assert.match(text(r), OUTSIDE);
    assert.match(text(r), /"preamble"/);
    assert.doesNotMatch(JSON.stringify(r), /secret-key-material/);
  });

  test('run {corpus: a private folder} and a symbolic link into it are refused', async () => {
    const r = await c.call('run', { file: 'library.art', task: 'Elementary Math', corpus: join(priv, 'docs') });
    assert.equal(r.isError, true);
    assert.match(text(r), OUTSIDE);
    execFileSync('ln', ['-sfn', join(priv, 'docs'), join(ws, 'link-to-private')]);
    const linked = await c.call('run', { file: 'library.art', task: 'Elementary Math', corpus: 'link-to-private' });
    assert.equal(linked.isError, true, 'the link is followed before the check');
    assert.match(text(linked), new RegExp(`link-to-private \\(${join(priv, 'docs').replace(/[/.]/g, '\\$&')}\\)`));
    assert.doesNotMatch(JSON.stringify(linked), /BLUEHERON/);
  });

  test('the file arguments of every tool are confined: check, test, compare, constrain, evaluate', async () => {
    const key = join(priv, 'id_ed25519');
    for (const [tool, args] of [
      ['check', { files: [key] }],
      ['test', { files: [key] }],
      ['compare', { a: key, b: key }],
      ['constrain', { spec: key }],
      ['evaluate', { library: 'library.art', data: key }],
      ['debug_start', { file: key }],
    ] as const) {
      const r = await c.call(tool, args);
      assert.equal(r.isError, true, tool);
      assert.match(text(r), OUTSIDE, tool);
    }
  });

  test('run {trace: a file outside} is refused; a file inside that is not a trace is not replaced', async () => {
    const outside = join(priv, 'victim.txt');
    writeFileSync(outside, 'precious\n');
    const r = await c.call('run', { file: 'library.art', task: 'Elementary Math', trace: outside });
    assert.equal(r.isError, true);
    assert.match(text(r), OUTSIDE);
    assert.equal(readFileSync(outside, 'utf8'), 'precious\n');
    const inside = join(ws, 'notes.txt');
    writeFileSync(inside, 'my notes\n');
    const notTrace = await c.call('run', { file: 'library.art', task: 'Elementary Math', trace: 'notes.txt' });
    assert.equal(notTrace.isError, true);
    assert.match(text(notTrace), /notes\.txt: not a trace .* give a new file for the trace/);
    assert.equal(readFileSync(inside, 'utf8'), 'my notes\n');
    const fresh = data(await c.call('run', { file: 'library.art', task: 'Elementary Math', trace: 'fresh.jsonl' }));
    assert.equal(fresh.trace, join(ws, 'fresh.jsonl'), 'a new trace is written');
    data(await c.call('run', { file: 'library.art', task: 'Elementary Math', trace: 'fresh.jsonl' }));
  });

  test('evaluate {out: a file that is not a results file} appends nothing; {runs: a repository} writes no .gitignore', async () => {
    writeFileSync(join(ws, 'data.jsonl'), '{"input": "1 + 1", "target": "2"}\n');
    writeFileSync(join(ws, 'todo.txt'), 'buy milk\n');
    // A model is named (no request reaches it): an evaluation without one is refused before its results file is looked at.
    const model = { baseURL: 'http://127.0.0.1:9/v1', model: 'm' };
    const out = await c.call('evaluate', { library: 'library.art', data: 'data.jsonl', out: 'todo.txt', task: 'Elementary Math', ...model });
    assert.equal(out.isError, true);
    assert.match(text(out), /todo\.txt: not a results file/);
    assert.equal(readFileSync(join(ws, 'todo.txt'), 'utf8'), 'buy milk\n');
    assert.ok(!existsSync(join(ws, 'todo.txt.lock')), 'no lock file is made beside it');
    const repo = join(ws, 'repo');
    mkdirSync(repo);
    writeFileSync(join(repo, 'main.c'), 'int main(void) { return 0; }\n');
    const runs = await c.call('evaluate', {
      library: 'library.art',
      data: 'data.jsonl',
      out: 'new.results.jsonl',
      runs: 'repo',
      task: 'Elementary Math',
      ...model,
    });
    assert.equal(runs.isError, true);
    assert.match(text(runs), /repo: holds files but no runs, and ART did not make it/);
    assert.ok(!existsSync(join(repo, '.gitignore')), 'no .gitignore hides the repository');
  });

  test("improve {out: a file of the user's} writes nothing over it, before any request", async () => {
    writeFileSync(join(ws, 'data.jsonl'), '{"input": "1 + 1", "target": "2"}\n');
    writeFileSync(join(ws, 'package.json'), '{"name": "mine"}\n');
    const r = await c.call('improve', { library: 'library.art', train: 'data.jsonl', dev: 'data.jsonl', test: 'data.jsonl', out: 'package.json' });
    assert.equal(r.isError, true);
    assert.match(text(r), /package\.json: not a library art improve proposed .*so it is not written over/);
    assert.equal(readFileSync(join(ws, 'package.json'), 'utf8'), '{"name": "mine"}\n');
  });

  test('evaluate {out: "/dev/zero"}: refused outside; with /dev allowed, the bounded reader refuses the device (no /dev/zero.lock)', async () => {
    const r = await c.call('evaluate', { library: 'library.art', data: 'data.jsonl', out: '/dev/zero', task: 'Elementary Math' });
    assert.equal(r.isError, true);
    assert.match(text(r), OUTSIDE);
    const dev = await connect({ start: { allowPaths: ['/dev'] } });
    const lock = () => (existsSync('/dev/zero.lock') ? statSync('/dev/zero.lock').mtimeMs : undefined);
    const lockBefore = lock();
    try {
      const d = await dev.call('evaluate', { library: 'library.art', data: 'data.jsonl', out: '/dev/zero', task: 'Elementary Math' });
      assert.equal(d.isError, true);
      assert.match(text(d), /\/dev\/zero: not a regular file \(a device\)/);
      assert.equal(lock(), lockBefore, 'no /dev/zero.lock is made (or touched)');
      const words = data(await dev.call('run', { file: 'library.art', task: 'Elementary Math', wordList: '/dev/zero' }));
      assert.equal(words.status, 'finished', 'the run does not use lookup: the server is still there');
      const cmp = await dev.call('compare', { a: '/dev/zero', b: '/dev/zero' });
      assert.equal(cmp.isError, true);
      assert.match(text(cmp), /\/dev\/zero: cannot read the results \(not a regular file \(a device\)\)/);
    } finally {
      await dev.close();
    }
  });

  test('compare on a FIFO is refused at once, and the next call is answered', async () => {
    const fifo = join(ws, 'pipe.results.jsonl');
    execFileSync('mkfifo', [fifo]);
    const r = await c.call('compare', { a: fifo, b: fifo });
    assert.equal(r.isError, true);
    assert.match(text(r), /not a regular file \(a named pipe\)/);
    assert.equal(data(await c.call('check', { files: ['library.art'] })).errors, 0);
  });

  test("the client's roots replace the start folder; --allow-path adds one", async () => {
    const other = join(base, 'other');
    mkdirSync(other, { recursive: true });
    writeFileSync(join(other, 'library.art'), readFileSync(LIBRARY, 'utf8'));
    const rooted = await connect({ roots: [other] });
    try {
      assert.equal(data(await rooted.call('check', { files: [join(other, 'library.art')] })).errors, 0);
      const r = await rooted.call('check', { files: [join(ws, 'library.art')] });
      assert.equal(r.isError, true, 'the start folder is not a root of this client');
      assert.match(text(r), OUTSIDE);
    } finally {
      await rooted.close();
    }
    const allowed = await connect({ start: { allowPaths: [priv] } });
    try {
      const r = await allowed.call('check', { files: [join(priv, 'id_ed25519')] });
      assert.ok(!text(r).match(OUTSIDE), 'an allowed folder is readable');
    } finally {
      await allowed.close();
    }
  });
});

describe('art mcp attacked: keys and hosts (item 2)', () => {
  let server: ScriptedServer;
  before(async () => {
    server = await new ScriptedServer({ tokenDelayMs: 0 }).start();
  });
  after(() => ScriptedServer.closeAll());
  const script = () => server.setScripts(ContinuationScript.parse(' [EOQ]\nAns: 210\n----\nDescription: more', `Input: ${BAKER}\nQ1:`));

  test('apiKeyEnv: "GITHUB_TOKEN" is no argument: a loopback server gets neither that token nor the key', async () => {
    const c = await connect();
    try {
      script();
      server.reset();
      const r = await c.call('run', {
        file: 'library.art',
        task: 'Elementary Math',
        baseURL: server.baseURL,
        model: 'scripted',
        apiKeyEnv: 'GITHUB_TOKEN',
      });
      const d = data(r);
      assert.equal(d.status, 'finished');
      const auth = server.requests.map(q => q.authorization ?? '').join(' ');
      assert.ok(!auth.includes(TOKEN), `the token was sent: ${auth}`);
      assert.ok(!auth.includes(SECRET), `the key went to an origin not allowed: ${auth}`);
      assert.ok(
        d.notes.some((n: string) =>
          /^key: not sent: the endpoint http:\/\/127\.0\.0\.1:\d+ is not one art mcp may send the key in OPENAI_API_KEY to/.test(n),
        ),
        d.notes.join('\n'),
      );
      const { tools } = await c.client.listTools();
      assert.equal(tools.find(t => t.name === 'run')!.inputSchema.properties?.apiKeyEnv, undefined, 'no tool takes apiKeyEnv');
    } finally {
      await c.close();
    }
  });

  test('the origin of --base-url (or a --key-origin) gets the key of --api-key-env', async () => {
    const c = await connect({ start: { baseURL: server.baseURL, model: 'scripted', apiKeyEnv: 'OPENAI_API_KEY' } });
    try {
      script();
      server.reset();
      const d = data(await c.call('run', { file: 'library.art', task: 'Elementary Math' }));
      assert.deepEqual([d.mode, d.status], ['generate', 'finished'], "the server's endpoint is the default");
      assert.equal(server.requests[0].authorization, `Bearer ${SECRET}`);
      assert.ok(!JSON.stringify(d).includes(SECRET));
    } finally {
      await c.close();
    }
  });
});

describe('art mcp attacked: commands (item 3)', () => {
  test("without --allow-tools the tool file's tools (commands, HTTP) do not run on run, test or debug_start", async () => {
    // An HTTP tool of the tool file, to a host the workspace names: it would get what the model wrote.
    const posted: string[] = [];
    const host = createServer((req, res) => {
      posted.push(req.url ?? '');
      res.end('sent');
    });
    await new Promise<void>(r => host.listen(0, '127.0.0.1', r));
    const toolsFile = join(ws, '.art-tools.json');
    const tools = readFileSync(toolsFile, 'utf8');
    const withPost = JSON.parse(tools);
    withPost.tools.push({ kind: 'http', name: 'post', url: `http://127.0.0.1:${(host.address() as AddressInfo).port}/collect` });
    writeFileSync(toolsFile, JSON.stringify(withPost));
    writeFileSync(join(ws, 'posts.art'), 'Description: (Posts) Send it\nInput: the plan\nQ1: [post] the plan\n#1: sent\nQ2: [EOQ]\nAns: sent\n');
    const c = await connect();
    try {
      const r = data(await c.call('run', { file: 'marks.art', task: 'Marks' }));
      assert.match(r.calls[0].error, /started without --allow-tools/);
      assert.ok(
        r.notes.some((n: string) => /its 3 entries \(mark, slow, post\) do not run/.test(n)),
        r.notes.join('\n'),
      );
      await c.call('test', { files: ['marks.art'], tools: 'all' });
      await c.call('debug_start', { file: 'marks.art', task: 'Marks' });
      assert.ok(!existsSync(join(ws, 'ran-mark')), 'the command ran');
      const p = data(await c.call('run', { file: 'posts.art', task: 'Posts' }));
      assert.match(p.calls[0].error, /started without --allow-tools/);
      await c.call('test', { files: ['posts.art'], tools: 'all' });
      assert.deepEqual(posted, [], 'the HTTP tool sent nothing');
      const { tools } = await c.client.listTools();
      assert.match(tools.find(t => t.name === 'run')!.description!, /do not run \(art mcp was started without --allow-tools\)/);
    } finally {
      await c.close();
    }
    // With --allow-tools it runs (the test can fail).
    const allowed = await connect({ start: { allowTools: true } });
    try {
      const { tools } = await allowed.client.listTools();
      assert.match(tools.find(t => t.name === 'run')!.description!, /run \(art mcp was started with --allow-tools\)/);
      const s = data(await allowed.call('debug_start', { file: 'marks.art', task: 'Marks' }));
      assert.deepEqual([s.status, s.tool, s.output], ['paused', 'mark', 'done']);
      assert.ok(existsSync(join(ws, 'ran-mark')));
      data(await allowed.call('run', { file: 'posts.art', task: 'Posts' }));
      assert.deepEqual(posted, ['/collect'], 'with --allow-tools the HTTP tool runs (the test can fail)');
    } finally {
      await allowed.close();
      writeFileSync(toolsFile, tools);
      host.closeAllConnections();
      host.close();
    }
  });

  test('show_prompt and art prompt start no MCP server, even with --allow-tools; run does', async () => {
    const c = await connect({ cwd: wsServer, start: { allowTools: true } });
    try {
      data(await c.call('show_prompt', { file: 'library.art', task: 'Elementary Math' }));
      const cli = await runCli(['prompt', 'library.art', '--task', 'Elementary Math'], { cwd: wsServer });
      assert.equal(cli.code, 0, cli.stderr);
      assert.ok(!existsSync(join(wsServer, 'ran-mcp-server')), 'building a prompt started the MCP server');
      await c.call('run', { file: 'library.art', task: 'Elementary Math' });
      await until(() => existsSync(join(wsServer, 'ran-mcp-server')), { what: 'the MCP server started by a run' });
    } finally {
      await c.close();
    }
  });
});

describe('art mcp attacked: resources (item 4)', () => {
  test(`${MAX_SESSIONS * 3} parallel debug_start calls open at most ${MAX_SESSIONS} sessions`, async () => {
    const c = await connect();
    try {
      const all = await Promise.all(
        Array.from({ length: MAX_SESSIONS * 3 }, () => c.call('debug_start', { file: 'library.art', task: 'Elementary Math' })),
      );
      const opened = all.filter(r => !r.isError);
      assert.equal(opened.length, MAX_SESSIONS);
      assert.match(text(all.find(r => r.isError)!), new RegExp(`${MAX_SESSIONS} sessions are open`));
      assert.equal(c.sessions.size, MAX_SESSIONS);
      // Each started in parallel has its own id, the one its answer names.
      const ids = opened.map(r => data(r).session);
      assert.equal(new Set(ids).size, MAX_SESSIONS, ids.join(', '));
    } finally {
      await c.close();
    }
  });

  test('a paused session nobody drives expires after --session-idle-s', async () => {
    const c = await connect({ start: { sessionIdleMs: 200 } });
    try {
      const s = data(await c.call('debug_start', { file: 'library.art', task: 'Elementary Math' }));
      assert.equal(s.status, 'paused');
      await until(() => c.sessions.size === 0, { what: 'the idle session to expire' });
      const gone = await c.call('debug_continue', { session: s.session });
      assert.match(text(gone), /no session/);
    } finally {
      await c.close();
    }
  });

  test('debug_stop stops a busy session at once; a cancelled debug_continue stops its step', async () => {
    const c = await connect({ start: { allowTools: true } });
    try {
      const s = data(await c.call('debug_start', { file: 'marks.art', task: 'Marks' }));
      const busy = c.call('debug_continue', { session: s.session });
      await until(() => !!pidOf(`sleep ${SLOW}`), { what: 'the slow tool to start' });
      const stopped = data(await c.call('debug_stop', { session: s.session }));
      assert.equal(stopped.status, 'stopped');
      assert.equal(data(await busy).status, 'stopped');
      await until(() => !pidOf(`sleep ${SLOW}`), { what: 'the slow tool to end' });

      const t = data(await c.call('debug_start', { file: 'marks.art', task: 'Marks' }));
      const controller = new AbortController();
      const cancelled = c.call('debug_continue', { session: t.session }, controller.signal);
      await until(() => !!pidOf(`sleep ${SLOW}`), { what: 'the slow tool to start again' });
      controller.abort(new Error('cancelled by the client'));
      await assert.rejects(cancelled);
      await until(() => !pidOf(`sleep ${SLOW}`) && c.sessions.size === 0, { what: 'the cancelled step to stop and its session to end' });
    } finally {
      await c.close();
    }
  });

  test('a 9 MB input gives a result under the transport limit, and the server goes on (stdio)', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [join(ROOT, 'dist/cli.js'), 'mcp'], cwd: ws, stderr: 'pipe' });
    const client = new Client({ name: 'big', version: '1' });
    await client.connect(transport);
    try {
      const r = (await client.callTool({
        name: 'run',
        arguments: { file: 'library.art', task: 'Elementary Math', input: 'x'.repeat(9 * 2 ** 20) },
      })) as Result;
      assert.ok(Buffer.byteLength(JSON.stringify(r)) < 5 * 2 ** 20);
      assert.match(JSON.stringify(r), /characters cut: a result is kept under 4 MB/);
      const next = (await client.callTool({ name: 'check', arguments: { files: ['library.art'] } })) as Result;
      assert.equal(data(next).errors, 0);
    } finally {
      await client.close();
    }
  });
});

/** The pid of a process whose command line is `cmd`, its program named or at its path (this user's), if one runs. */
function pidOf(cmd: string): string | undefined {
  return pidsOf(cmd)[0];
}

/** The pids of the processes whose command line is `cmd` (this user's). */
function pidsOf(cmd: string): string[] {
  const r = spawnSync('pgrep', ['-f', `^(\\S*/)?${cmd.replace(/\./g, '\\.')}$`], { encoding: 'utf8' });
  return r.stdout.trim().split('\n').filter(Boolean);
}

describe('art mcp attacked: what a caller may spend (issue 37, item 3)', () => {
  /** A file that is no GGUF model: a local run with it ends on its first request, before llama.cpp is loaded. */
  const models = join(base, 'models');
  mkdirSync(models);
  writeFileSync(join(models, 'pulled.gguf'), 'not a model\n');
  writeFileSync(join(ws, 'mine.gguf'), 'not a model\n');
  writeFileSync(join(priv, 'real.gguf'), Buffer.concat([Buffer.from('GGUF'), Buffer.alloc(60)]));
  symlinkSync(join(priv, 'id_ed25519'), join(ws, 'linked.gguf'));
  const local = { file: 'library.art', task: 'Elementary Math' };
  const notesOf = (r: Result): string[] => data(r).notes;

  test('a modelFile outside the roots and the models folder gets one message, whatever is there', async () => {
    const c = await connect({ env: { ART_MODELS_DIR: models } });
    try {
      const outside = [join(priv, 'absent.gguf'), join(priv, 'id_ed25519'), join(priv, 'real.gguf'), 'linked.gguf', join(priv, 'docs')];
      const said = new Set<string>();
      for (const modelFile of outside) {
        const r = await c.call('run', { ...local, modelFile });
        assert.equal(r.isError, true, modelFile);
        assert.doesNotMatch(text(r), /no such|not a GGUF|header|not a file|secret-key-material/i, modelFile);
        said.add(text(r).replace(modelFile, 'FILE'));
      }
      assert.equal(said.size, 1, [...said].join('\n'));
      assert.match(
        [...said][0],
        /^"modelFile" FILE: not a model file art mcp may load: give a \.gguf file in the client's roots .* or in the models folder .*, or start art mcp with --allow-path DIR$/,
      );
      // In the roots or the models folder, the file is the caller's to name: it is tried (and is no model).
      for (const modelFile of ['mine.gguf', join(models, 'pulled.gguf')]) {
        const d = data(await c.call('run', { ...local, modelFile }));
        assert.equal(d.status, 'error', modelFile);
        assert.match(d.error, /not a GGUF model file/, modelFile);
      }
    } finally {
      await c.close();
    }
  });

  test('four context sizes past the cap all get the cap (one loaded model, not four), released within the idle cap', async () => {
    const c = await connect({ start: { limits: { ...defaultLimits(), contextSize: 4096, idleRelease: 60 } } });
    try {
      const answers = await Promise.all(
        [30000, 30001, 30002, 30003].map(contextSize => c.call('run', { ...local, modelFile: 'mine.gguf', contextSize, idleReleaseMs: 2 ** 31 })),
      );
      for (const [i, r] of answers.entries()) {
        const notes = notesOf(r);
        assert.ok(
          notes.includes(`"contextSize" ${30000 + i} is over what a caller may ask for: 4096 is used (art mcp --max-context-size)`),
          notes.join('\n'),
        );
        assert.ok(
          notes.includes(`"idleReleaseMs" ${2 ** 31} is over what a caller may ask for: 60000 is used (art mcp --max-idle-release-s)`),
          notes.join('\n'),
        );
      }
      // Below the cap too, every size is the cap: callers cannot make one loaded model per size.
      assert.ok(
        notesOf(await c.call('run', { ...local, modelFile: 'mine.gguf', contextSize: 1000 })).some(n =>
          /^"contextSize" 1000: every caller that sets it gets 4096/.test(n),
        ),
      );
    } finally {
      await c.close();
    }
  });

  test('contextSize 200000 is lowered to the default cap of a laptop, 8192', async () => {
    const c = await connect();
    try {
      const notes = notesOf(await c.call('run', { ...local, modelFile: 'mine.gguf', contextSize: 200000 }));
      assert.ok(
        notes.includes('"contextSize" 200000 is over what a caller may ask for: 8192 is used (art mcp --max-context-size)'),
        notes.join('\n'),
      );
    } finally {
      await c.close();
    }
  });

  test("pythonMemoryMb 4096 and a timeout of 2^53 are lowered to the server's caps, and the sandbox holds them", async () => {
    const program = (code: string) => `Description: (Spend) Spend the machine
Input: go
Q1: [generate python code] spend
#1:
${code}
Q2: [code execute] Execute the code in #1
#2: 1
Q3: [EOQ]
Ans: 1
`;
    writeFileSync(join(ws, 'memory.art'), program('import mmap\nm = mmap.mmap(-1, 1536 * 2**20)\nans = len(m)'));
    writeFileSync(join(ws, 'time.art'), program('import time\ntime.sleep(60)\nans = 1'));
    const c = await connect({ start: { limits: { ...defaultLimits(), timeout: 1 } } });
    try {
      const memory = await c.call('run', { file: 'memory.art', pythonMemoryMb: 4096 });
      assert.ok(notesOf(memory).includes('"pythonMemoryMb" 4096 is over what a caller may ask for: 512 is used (art mcp --max-python-memory-mb)'));
      const mapped = data(memory).calls.find((k: { tool: string }) => k.tool === 'code execute');
      assert.notEqual(mapped.output, String(1536 * 2 ** 20), 'the 1.5 GB mapping was refused');
      assert.match(`${mapped.error ?? ''} ${mapped.output ?? ''}`, /Cannot allocate memory|MemoryError/);

      const timed = await c.call('run', { file: 'time.art', pythonTimeoutMs: 2 ** 53, pythonCpuSeconds: 2 ** 53 });
      const notes = notesOf(timed);
      assert.ok(
        notes.includes(`"pythonTimeoutMs" ${2 ** 53} is over what a caller may ask for: 1000 is used (art mcp --max-timeout-s)`),
        notes.join('\n'),
      );
      assert.ok(
        notes.includes(`"pythonCpuSeconds" ${2 ** 53} is over what a caller may ask for: 1 is used (art mcp --max-timeout-s)`),
        notes.join('\n'),
      );
      const slept = data(timed).calls.find((k: { tool: string }) => k.tool === 'code execute');
      assert.match(slept.error ?? slept.output, /time|limit/i, 'the sleeping code was stopped at the cap');
    } finally {
      await c.close();
    }
  });

  test('24 parallel runs do not all run at once: --max-runs run, the others wait their turn, and cancelled they leave', async () => {
    const c = await connect({ start: { allowTools: true, limits: { ...defaultLimits(), runs: 2 } } });
    const controllers = Array.from({ length: 24 }, () => new AbortController());
    try {
      const calls = controllers.map(a => c.call('run', { file: 'marks.art', task: 'Marks' }, a.signal));
      await until(() => c.slots.waiting === 22 && pidsOf(`sleep ${SLOW}`).length === 2, { what: '2 runs under way and 22 waiting' });
      assert.equal(c.slots.inFlight, 2);
      assert.equal(pidsOf(`sleep ${SLOW}`).length, 2, 'two slow tools run, not 24');
      for (const a of controllers) a.abort(new Error('cancelled by the client'));
      const settled = await Promise.allSettled(calls);
      assert.ok(
        settled.every(x => x.status === 'rejected'),
        'every cancelled call ended',
      );
      await until(() => !pidOf(`sleep ${SLOW}`) && c.slots.inFlight === 0 && c.slots.waiting === 0, {
        what: 'the runs to stop and the queue to empty',
      });
    } finally {
      await c.close();
    }
  });

  test('art mcp --help names every cap with its default; a bad value is refused in one line', async () => {
    const help = await runCli(['mcp', '--help']);
    for (const flag of [
      '--max-context-size N',
      '--max-idle-release-s S',
      '--max-python-memory-mb MB',
      '--max-timeout-s S',
      '--max-concurrency N',
      '--max-runs N',
    ])
      assert.ok(help.stdout.includes(flag), flag);
    const bad = await runCli(['mcp', '--max-runs', '0']);
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr, 'art mcp: --max-runs: expected a whole number of at least 1, not "0"\n');
  });
});
