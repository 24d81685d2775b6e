// `art run` as a user runs it: the built CLI (dist/cli.js) in a child process, replaying a fixture program with its
// tools re-executed, interactively with overrides typed on stdin, against the scripted OpenAI-compatible server,
// and failing with one clear line.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { descendants, waitFor, zombie } from '../support/processes';
import { ScriptedServer } from '../support/scriptedServer';
import { CODEGEN_SCRIPT, DUCKS_SCRIPT, fixturePath } from '../core/runner/helpers';

const CLI = join(__dirname, '../../dist/cli.js');
const PROGRAM = fixturePath('programs/arithmetic.art');
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
    assert.match(r.stderr, /── \[generate python code\] returned[^\n]*:\ntotal_eggs = 16/);
    assert.match(r.stderr, /── \[code execute\] returned[^\n]*:\n18\n── override/);
    assert.match(r.stdout, /\nans = sold_eggs \* dollars_per_egg\nprint\(ans\)\nQ2: /, 'the kept output');
    // The override ends the replay: with no endpoint the run stops there and says why (the recording's `Ans: 18`
    // no longer follows from 42).
    assert.match(r.stdout, /\n#2: 42\n$/, 'the override, and nothing replayed after it');
    assert.match(r.stderr, /the run ended \(departed\): the run departed from its recording \(#2's output was set by hand\)[^\n]*--base-url and --model/);
    assert.equal(r.code, 1);
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

  test('errors are one line, exit 2: missing file, bad task, no endpoint, bad option value', async () => {
    const cases: [string[], RegExp][] = [
      [['run', join(work, 'nope.art')], /^art run: .*nope\.art: no such file\n$/],
      [['run', PROGRAM, '--task', 'Nope', '--mode', 'replay'], /^art run: no task named "Nope": the file has 0: Aqua-rat, 1: Elementary Math\n$/],
      [['run', PROGRAM, '--task', '9', '--mode', 'replay'], /^art run: no program 9/],
      [['run', PROGRAM], /^art run: no endpoint: give the base URL/],
      [['run', PROGRAM, '--mode', 'fast'], /^art run: --mode must be generate or replay, not "fast"\n$/],
      [['run', PROGRAM, '--base-url', 'http://127.0.0.1:9/v1'], /^art run: no model/],
      [['run', join(work)], /is a directory/],
    ];
    for (const [args, message] of cases) {
      const r = await art(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message);
      assert.equal(r.stdout, '');
    }
  });

  test('a run that cannot reach its endpoint ends with exit 1 and says why', async () => {
    const r = await art(['run', PROGRAM, '--task', '1', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /art run: the run ended \(error\): /);
  });
});

describe('art run and its sandbox (issue 8)', () => {
  const SLOW = `Description: (Slow) A code step that sleeps
Input: wait
Q1: [generate python code] Sleep, then set ans
#1:
import time
time.sleep(30)
ans = 1
Q2: [code execute] Execute the python code in #1 and get the value of "ans"
#2: 1
Q3: [EOQ]
Ans: 1
`;

  test('the first line says the sandbox level and what it does not isolate', async () => {
    const r = await art(['run', PROGRAM, '--task', 'Elementary Math', '--mode', 'replay', '--quiet']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr.split('\n')[0], /^\[art\] tools: Python sandbox: .+; not isolated: .+\.$/);
  });

  test('SIGTERM stops the run: the code step\'s processes end, scratch folders go, the CLI says so and exits 1', async () => {
    const program = join(work, 'slow.art');
    writeFileSync(program, SLOW);
    const child = spawn(process.execPath, [CLI, 'run', program, '--mode', 'replay', '--quiet'], { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', d => (stderr += d));
    const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(resolve => child.on('close', (code, signal) => resolve({ code, signal })));
    try {
      // Wait for the code step's Python (not the sandbox's start-up probes, which run before the run begins).
      const python = () => descendants(child.pid!).some(pid => { try { return readFileSync(`/proc/${pid}/cmdline`, 'latin1').startsWith('/usr/bin/python3\0-I\0'); } catch { return false; } });
      await waitFor(python, 15_000);
      assert.ok(python(), 'the code step started');
      const tree = descendants(child.pid!);
      assert.ok(tree.length >= 2, `the code step started (${tree.length} processes)`);
      child.kill('SIGTERM');
      const { code, signal } = await closed;
      assert.equal(signal, null, 'the CLI handled SIGTERM');
      assert.equal(code, 1);
      assert.match(stderr, /art run: the run ended \(stopped\)/);
      assert.deepEqual(tree.filter(pid => existsSync(`/proc/${pid}`) && !zombie(pid)), []);
      assert.deepEqual(readdirSync(tmpdir()).filter(n => n.startsWith(`art-python-${child.pid}-`)), []);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
