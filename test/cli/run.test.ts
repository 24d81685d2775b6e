// `art run` as a user runs it: the built CLI (dist/cli.js) in a child process, replaying a corpus program with its
// tools re-executed, interactively with overrides typed on stdin, against the scripted OpenAI-compatible server,
// and failing with one clear line.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScriptedServer } from '../support/scriptedServer';
import { CODEGEN_SCRIPT, DUCKS_SCRIPT, corpusPath } from '../core/runner/helpers';

const CLI = join(__dirname, '../../dist/cli.js');
const PROGRAM = corpusPath('programs/arithmetic.art');
const work = mkdtempSync(join(tmpdir(), 'art-cli-run-'));

function art(args: string[], stdin?: string, env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: work, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', d => (stdout += d));
    child.stderr.on('data', d => (stderr += d));
    child.on('error', reject);
    const timer = setTimeout(() => child.kill(), 30_000);
    child.on('close', code => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(stdin ?? '');
  });
}

describe('art run', () => {
  before(() => assert.ok(existsSync(CLI), 'build first: node scripts/build.mjs (dist/cli.js)'));

  test('replay: prints the program as it grows and the answer; Python really runs; writes the trace', async () => {
    const trace = join(work, 'replay.jsonl');
    const r = await art(['run', PROGRAM, '--task', 'Elementary Math', '--mode', 'replay', '--trace', trace]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Description: \(Elementary Math\)[\s\S]*\nQ1: \[generate python code\][^\n]*\n#1:\ntotal_eggs = 16[\s\S]*\n#2: 18\nQ3: \[EOQ\]\nAns: 18\n\nAnswer: 18\n$/);
    const records = readFileSync(trace, 'utf8').trim().split('\n').map(l => JSON.parse(l));
    const exec = records.find(x => x.t === 'tool' && x.call.tool === 'code execute');
    assert.equal(exec.call.output, '18');
    assert.ok(exec.call.durationMs > 0);
  });

  test('--interactive pauses at each tool call; a typed line overrides the output, an empty line keeps it', async () => {
    const r = await art(['run', PROGRAM, '--task', '1', '--mode', 'replay', '--interactive'], '\n42\n');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /── \[generate python code\] returned[^\n]*:\ntotal_eggs = 16/);
    assert.match(r.stderr, /── \[code execute\] returned[^\n]*:\n18\n── override/);
    assert.match(r.stdout, /\nans = sold_eggs \* dollars_per_egg\nprint\(ans\)\nQ2: /, 'the kept output');
    assert.match(r.stdout, /\n#2: 42\nQ3: \[EOQ\]/, 'the override');
  });

  test('--interactive with stdin closed keeps every output', async () => {
    const r = await art(['run', PROGRAM, '--task', '1', '--mode', 'replay', '--interactive', '--quiet'], '');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Answer: 18\n');
  });

  describe('generate mode against the scripted server', () => {
    const server = new ScriptedServer();
    before(async () => {
      await server.start();
      server.setScripts(DUCKS_SCRIPT, CODEGEN_SCRIPT);
    });
    after(() => ScriptedServer.closeAll());

    test('streams from the endpoint with the key from --api-key-env; the override reaches the next request', async () => {
      const r = await art(['run', PROGRAM, '--task', '1', '--base-url', server.baseURL, '--model', 'scripted', '--api-key-env', 'ART_KEY_FOR_TEST', '--interactive'], '\n7\n', { ART_KEY_FOR_TEST: 'sk-cli-test-key' });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /#2: 7\nQ3: \[EOQ\]\nAns: 18\n\nAnswer: 18\n$/);
      const last = server.requests.filter(q => !q.prompt.endsWith('Python code:\n')).at(-1)!;
      assert.ok(last.prompt.endsWith('#2: 7\n'), last.prompt.slice(-40));
      assert.equal(server.tokensAfterCall, 0);
    });
  });

  test('errors are one line, exit 2: missing file, bad task, no endpoint, bad option value, binary or huge file', async () => {
    const binary = join(work, 'binary.art');
    writeFileSync(binary, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0]));
    const huge = join(work, 'huge.art');
    writeFileSync(huge, '');
    truncateSync(huge, 600 * 1024 * 1024);
    const cases: [string[], RegExp][] = [
      [['run', join(work, 'nope.art')], /^art run: .*nope\.art: no such file\n$/],
      [['run', PROGRAM, '--task', 'Nope', '--mode', 'replay'], /^art run: no task named "Nope": the file has 0: Aqua-rat, 1: Elementary Math\n$/],
      [['run', PROGRAM, '--task', '9', '--mode', 'replay'], /^art run: no program 9/],
      [['run', PROGRAM], /^art run: no endpoint: give the base URL/],
      [['run', PROGRAM, '--mode', 'fast'], /^art run: --mode must be generate or replay, not "fast"\n$/],
      [['run', PROGRAM, '--base-url', 'http://127.0.0.1:9/v1'], /^art run: no model/],
      [['run', join(work)], /is a directory/],
      [['run', binary, '--mode', 'replay'], /^art run: .*binary\.art: not a text file \(it holds NUL bytes/],
      [['run', huge, '--mode', 'replay'], /^art run: .*huge\.art: too large \(600 MB; the limit is 100 MB\)\n$/],
    ];
    for (const [args, message] of cases) {
      const r = await art(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message);
      assert.equal(r.stdout, '');
    }
  });

  test('a named pipe as the tool file: the run goes on without it and says why (it used to hang)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'art-cli-fifo-'));
    const tools = join(dir, 'tools.json');
    assert.equal(spawnSync('mkfifo', [tools]).status, 0);
    const r = await art(['run', PROGRAM, '--mode', 'replay', '--quiet', '--tools', tools]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /\[art\] tools: .*tools\.json: not a regular file \(a named pipe\) \(fix: make it a regular JSON file\)/);
    assert.match(r.stdout, /^Answer: /m);
  });

  test('a run that cannot reach its endpoint ends with exit 1 and says why', async () => {
    const r = await art(['run', PROGRAM, '--task', '1', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /art run: the run ended \(error\): /);
  });
});
