// `art mcp` as MCP clients start it: the built CLI (node dist/cli.js mcp) over stdio, driven by the official SDK's
// Client and StdioClientTransport. The acceptance checks of the server: the tools are listed; `check` reports a
// misspelled tool name (tool-name-typo); `run` replays examples/library.art's Elementary Math to 210; `test` reports
// "6 passed, 0 failed"; a stepping session in replay pauses at `generate python code`, then at `code execute` with
// 210, and an override of 999 shows in the program and ends the recording with the reason. Then the server ends by
// itself, exit 0, when the client closes its stdin with a session still paused; `art mcp --help` prints the usage.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

const ROOT = resolve(__dirname, '../..');
const CLI = join(ROOT, 'dist/cli.js');
const work = mkdtempSync(join(tmpdir(), 'art-mcp-'));

type Result = CallToolResult & { structuredContent?: Record<string, unknown> };
const text = (r: Result) => (r.content[0] as { text: string }).text;
const data = (r: Result): any => {
  assert.ok(!r.isError, `the tool failed: ${text(r)}`);
  return r.structuredContent;
};

describe('art mcp over stdio', () => {
  let client: Client;
  let stderr = '';
  before(async () => {
    assert.ok(existsSync(CLI), 'build first: node scripts/build.mjs (dist/cli.js)');
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--allow-path', work], cwd: ROOT, stderr: 'pipe' });
    transport.stderr?.on('data', d => (stderr += d));
    client = new Client({ name: 'art-mcp-acceptance', version: '1' });
    await client.connect(transport);
  });
  after(() => client.close());

  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as Result;

  test('lists check, run, test, debug_start and debug_continue (and the other tools)', async () => {
    const names = (await client.listTools()).tools.map(t => t.name);
    for (const n of [
      'check',
      'run',
      'test',
      'debug_start',
      'debug_continue',
      'debug_step_back',
      'debug_stop',
      'evaluate',
      'improve',
      'show_prompt',
      'constrain',
    ])
      assert.ok(names.includes(n), `${n} in ${names.join(', ')}`);
    assert.equal(client.getServerVersion()?.name, 'art');
  });

  test('check: a misspelled tool name is reported as tool-name-typo', async () => {
    const typo = join(work, 'typo.art');
    writeFileSync(typo, readFileSync(join(ROOT, 'examples/library.art'), 'utf8').replace('[code execute]', '[code exectue]'));
    const d = data(await call('check', { files: [typo] }));
    const codes = d.files[0].diagnostics.map((x: { code: string }) => x.code);
    assert.ok(codes.includes('tool-name-typo'), codes.join(', '));
  });

  test("run: replays examples/library.art's Elementary Math to 210", async () => {
    const d = data(await call('run', { file: 'examples/library.art', task: 'Elementary Math' }));
    assert.deepEqual([d.status, d.answer, d.mode], ['finished', '210', 'replay']);
    assert.match(d.program, /Ans: 210/);
  });

  test('test: examples/library.art reports 6 passed, 0 failed', async () => {
    const r = await call('test', { files: ['examples/library.art'] });
    assert.equal(data(r).summary, '6 passed, 0 failed');
    assert.match(text(r), /6 passed, 0 failed$/);
  });

  test('a stepping session: generate python code, then code execute with 210; an override of 999 ends the recording with the reason', async () => {
    const first = data(await call('debug_start', { file: 'examples/library.art', task: 'Elementary Math', mode: 'replay' }));
    assert.deepEqual([first.status, first.tool], ['paused', 'generate python code']);
    const second = data(await call('debug_continue', { session: first.session }));
    assert.deepEqual([second.status, second.tool, second.output], ['paused', 'code execute', '210']);
    const end = data(await call('debug_continue', { session: first.session, output: '999' }));
    assert.equal(end.status, 'departed');
    assert.match(end.program, /Q2: \[code execute\] .*\n#2: 999/);
    assert.match(end.error, /the run departed from its recording \(#2's output was set by hand\)/);
    assert.match(stderr, /art mcp: serving on stdio/);
  });
});

describe('art mcp as a process', () => {
  test('ends by itself, exit 0, when the client closes its stdin with a session paused', async () => {
    const child = spawn(process.execPath, [CLI, 'mcp'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>(done => child.on('exit', code => done(code)));
    let out = '';
    const answered = (id: number) =>
      new Promise<Record<string, unknown>>(done => {
        const look = () => {
          for (const line of out.split('\n')) {
            if (!line.trim()) continue;
            const m = JSON.parse(line) as { id?: number; result?: Record<string, unknown> };
            if (m.id === id && m.result) return done(m.result);
          }
          child.stdout.once('data', d => ((out += d), look()));
        };
        look();
      });
    const send = (m: object) => child.stdin.write(`${JSON.stringify(m)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    await answered(1);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'debug_start', arguments: { file: 'examples/library.art', task: 'Elementary Math' } },
    });
    const started = (await answered(2)) as { structuredContent: { status: string } };
    assert.equal(started.structuredContent.status, 'paused');
    child.stdin.end();
    assert.equal(await exited, 0);
  });

  test('art mcp --help prints the usage; an argument is refused in one line', () => {
    const help = spawnSync(process.execPath, [CLI, 'mcp', '--help'], { encoding: 'utf8' });
    assert.equal(help.status, 0);
    assert.match(help.stdout, /^usage: art mcp \[--allow-path DIR\]/);
    assert.match(help.stdout, /docs\/mcp\.md/);
    const bad = spawnSync(process.execPath, [CLI, 'mcp', 'extra'], { encoding: 'utf8' });
    assert.equal(bad.status, 2);
    assert.equal(bad.stderr, 'art mcp: unexpected argument "extra": art mcp takes only flags (art mcp --help)\n');
    const usage = spawnSync(process.execPath, [CLI, 'help'], { encoding: 'utf8' });
    assert.match(usage.stdout, /^ {2}mcp {2,}a Model Context Protocol server over stdio/m);
  });
});
