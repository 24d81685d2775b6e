// `art eval` (in-process, test/support/cli.ts; the stop by SIGINT in a child process, dist/cli.js) over
// examples/data/arithmetic.jsonl and examples/library.art, against the scripted OpenAI-compatible server, whose scripted model uses the
// calculator (re-executed for real) and answers one example wrong. Checks the accuracy, the results file, the
// plain progress lines in a pipe, and that a run stopped half-way resumes without running a finished example again
// (counted at the server).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { ScriptedServer } from '../support/scriptedServer';
import { CLI, runCli, runCliProcess } from '../support/cli';
import { until } from '../support/until';
import { ARITHMETIC_DATA, ARITHMETIC_LIBRARY, arithmeticExamples, arithmeticScripts, runsAtServer } from '../support/arithmeticModel';

const LIBRARY = ARITHMETIC_LIBRARY;
const DATA = ARITHMETIC_DATA;
const work = mkdtempSync(join(tmpdir(), 'art-cli-eval-'));
const examples = arithmeticExamples();

const art = (args: string[]) => runCli(args, { cwd: work });
/** `art ARGS` as a child process, for what only a process shows: its pid (the lock's holder) and another user (as root). */
function artProcess(
  args: string[],
  onStart?: (child: ReturnType<typeof spawn>) => void,
  as?: { uid: number; gid: number },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: work, env: { ...process.env }, ...as });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', d => (stdout += d));
    child.stderr.on('data', d => (stderr += d));
    child.on('error', reject);
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', code => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    onStart?.(child);
  });
}

/** The results in a results file (its first line, the header, left out). */
const readLines = (path: string) => readAll(path).filter(l => l.kind !== 'art-evaluation');
const readAll = (path: string) =>
  existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter(l => l.trim())
        .map(l => JSON.parse(l))
    : [];

describe('art eval', () => {
  let server: ScriptedServer;
  before(async () => {
    server = await new ScriptedServer({ tokenDelayMs: 0 }).start();
    server.setScripts(...arithmeticScripts());
  });
  after(() => ScriptedServer.closeAll());

  const base = () => [LIBRARY, '--data', DATA, '--task', 'Elementary Math', '--base-url', server.baseURL, '--model', 'scripted'];

  test('scores every example, writes the results file and plain progress lines in a pipe', async () => {
    server.reset();
    const out = join(work, 'all.jsonl');
    const runs = join(work, 'runs-all');
    const r = await art(['eval', ...base(), '--out', out, '--concurrency', '3', '--runs', runs]);
    assert.equal(r.code, 0, r.stderr);
    const lines = readLines(out);
    assert.deepEqual(lines.map(l => l.id).sort(), examples.map(e => e.id).sort());
    // The first line says what produced the results.
    const header = readAll(out)[0];
    assert.equal(header.kind, 'art-evaluation');
    assert.equal(header.library.sha256, createHash('sha256').update(readFileSync(LIBRARY)).digest('hex'));
    assert.deepEqual([header.model, header.endpoint, header.options.select, header.options.samples], ['scripted', server.baseURL, 'same-file', 1]);
    assert.equal(header.options.task, 'Elementary Math');
    const pages = lines.find(l => l.id === 'pages');
    assert.equal(pages.answer, '6');
    assert.equal(pages.exact, false);
    assert.equal(pages.substring, false);
    const eggs = lines.find(l => l.id === 'eggs');
    assert.deepEqual([eggs.answer, eggs.exact, eggs.substring, eggs.toolCalls, eggs.end, eggs.error], ['9', true, true, 1, 'finished', null]);
    assert.ok(eggs.tokens.prompt > 0 && eggs.tokens.completion > 0 && eggs.durationMs >= 0, JSON.stringify(eggs));
    assert.match(r.stdout, /exact match: +5\/6 = 83\.3% \(95% CI 43\.6%–97\.0%\)/);
    assert.match(r.stdout, /tool calls: +6 in 6\/6 examples \(100\.0% used a tool\)/);
    assert.match(r.stdout, /failures: +wrong answer 1/);
    // No terminal: one plain line per example, no bar's carriage returns or escape codes.
    const progress = r.stdout.split('\n').filter(l => /^\[\d\/6\] /.test(l));
    assert.equal(progress.length, 6, r.stdout);
    assert.match(progress[5], /^\[6\/6\] \w+: (ok|wrong) .*\| [\d.]+ ex\/s \| ETA 0 s \| accuracy 83\.3%$/);
    assert.ok(!r.stdout.includes('\r') && !r.stdout.includes('\u001b['), 'no carriage return or escape code');
    assert.deepEqual(Object.values(runsAtServer(server)), [1, 1, 1, 1, 1, 1]);
    // Each example's run is in the run history with its summary; the result names its trace (relative to the results file).
    assert.equal(readdirSync(runs).filter(f => f.endsWith('.jsonl')).length, 6);
    for (const l of lines) {
      assert.equal(l.task, 'Elementary Math');
      const trace = resolve(dirname(out), l.trace);
      assert.ok(trace.startsWith(runs) && existsSync(trace), `${l.id}: ${l.trace}`);
      assert.match(trace, new RegExp(`-library-${l.id}\\.jsonl$`));
      const summary = JSON.parse(readFileSync(trace.replace(/\.jsonl$/, '.json'), 'utf8'));
      assert.deepEqual([summary.status, summary.answer, summary.title], ['finished', l.answer, 'Elementary Math']);
    }
  });

  test("an example's trace replays its run with no endpoint (art run TRACE)", async () => {
    const out = join(work, 'all.jsonl');
    const pages = readLines(out).find(l => l.id === 'pages');
    const r = await art(['run', resolve(dirname(out), pages.trace)]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Ans: 6$/m);
  });

  test('stopped half-way (SIGINT), the same command resumes and runs no finished example again', async () => {
    server.reset();
    server.tokenDelayMs = 15; // a few hundred ms per example
    const out = join(work, 'resume.jsonl');
    const runs = join(work, 'runs-resume');
    let stopped: Promise<void> | undefined;
    const first = await runCliProcess(['eval', ...base(), '--out', out, '--concurrency', '1', '--runs', runs], {
      cwd: work,
      onStart: child =>
        (stopped = until(() => readLines(out).length >= 2, { what: 'two results in the results file' }).then(() => void child.kill('SIGINT'))),
    });
    await stopped;
    assert.equal(first.code, 130, first.stderr);
    assert.match(first.stderr, /stopped with \d of 6 examples done: run the same command again to resume/);
    const done = readLines(out).map(l => l.id);
    assert.ok(done.length >= 2 && done.length < 6, `done after the stop: ${done}`);
    // The example the stop cut short left no trace: the history holds the finished examples' runs only.
    assert.deepEqual(
      readdirSync(runs)
        .filter(f => f.endsWith('.jsonl'))
        .sort(),
      readLines(out)
        .map(l => l.trace.split('/').pop())
        .sort(),
    );
    server.tokenDelayMs = 0;
    const second = await art(['eval', ...base(), '--out', out, '--concurrency', '2', '--runs', runs]);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stderr, new RegExp(`${done.length} already in .*, ${6 - done.length} to run`));
    const all = readLines(out);
    assert.deepEqual(all.map(l => l.id).sort(), examples.map(e => e.id).sort(), 'each example once in the results');
    const atServer = runsAtServer(server);
    for (const id of done) assert.equal(atServer[id], 1, `${id} finished before the stop and ran again: ${JSON.stringify(atServer)}`);
    assert.match(second.stdout, /exact match: +5\/6/);
    assert.equal(readdirSync(runs).filter(f => f.endsWith('.jsonl')).length, 6);
  });

  test('--new starts a new results file beside the old one, kept; art compare pairs the two', async () => {
    server.reset();
    const out = join(work, 'all.jsonl');
    const before = readFileSync(out, 'utf8');
    const r = await art(['eval', ...base(), '--out', out, '--new', '--runs', join(work, 'runs-new')]);
    assert.equal(r.code, 0, r.stderr);
    const fresh = join(work, 'all-2.jsonl');
    assert.match(r.stderr, /6 examples, 0 already in .*all-2\.jsonl, 6 to run/);
    assert.equal(readFileSync(out, 'utf8'), before, 'the old results are untouched');
    assert.equal(readLines(fresh).length, 6);
    const c = await art(['compare', out, fresh, '--json']);
    assert.equal(c.code, 0, c.stderr);
    const j = JSON.parse(c.stdout);
    assert.deepEqual([j.a.n, j.a.correct, j.b.correct, j.fixed, j.broken, j.pValue, j.onlyA, j.onlyB], [6, 5, 5, [], [], 1, 0, 0]);
    assert.deepEqual(j.headerDifferences, []);
    assert.equal(j.a.header.library.sha256, j.b.header.library.sha256);
  });

  test('run again after the library changed: a new results file, said so, every example run again; --resume resumes anyway', async () => {
    const dir = join(work, 'changed');
    mkdirSync(dir, { recursive: true });
    const [library, data] = [join(dir, 'library.art'), join(dir, 'data.jsonl')];
    writeFileSync(library, readFileSync(LIBRARY, 'utf8'));
    writeFileSync(data, readFileSync(DATA, 'utf8'));
    const args = [
      library,
      '--data',
      data,
      '--task',
      'Elementary Math',
      '--base-url',
      server.baseURL,
      '--model',
      'scripted',
      '--runs',
      join(dir, 'runs'),
    ];
    const first = join(dir, 'data.library.results.jsonl');
    const second = join(dir, 'data.library-2.results.jsonl');
    server.reset();
    assert.equal((await art(['eval', ...args])).code, 0);
    assert.equal(readLines(first).length, 6);

    writeFileSync(library, `${readFileSync(library, 'utf8')}\n\n`);
    server.reset();
    const again = await art(['eval', ...args]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(
      again.stderr,
      /library\.art changed since .*data\.library\.results\.jsonl was begun \(library [0-9a-f]{8} → [0-9a-f]{8}\): the examples run again in a new results file, .*data\.library-2\.results\.jsonl/,
    );
    assert.match(again.stderr, /6 examples, 0 already in .*data\.library-2\.results\.jsonl, 6 to run/);
    assert.match(again.stdout, /results: .*data\.library-2\.results\.jsonl\n$/);
    assert.deepEqual(Object.values(runsAtServer(server)), [1, 1, 1, 1, 1, 1], 'every example ran again');
    assert.equal(readLines(first).length, 6, 'the old results are kept');
    assert.equal(readAll(second)[0].library.sha256, createHash('sha256').update(readFileSync(library)).digest('hex'));

    // The same library again: the latest results file is resumed, nothing runs.
    server.reset();
    const same = await art(['eval', ...args]);
    assert.match(same.stderr, /6 examples, 6 already in .*data\.library-2\.results\.jsonl, 0 to run/);
    assert.equal(server.requests.length, 0);

    // Asked for: resumed although the library changed (the mix said in the log).
    writeFileSync(library, `${readFileSync(library, 'utf8')}\n`);
    const resumed = await art(['eval', ...args, '--resume']);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stderr, /6 examples, 6 already in .*data\.library-2\.results\.jsonl, 0 to run/);
    assert.match(resumed.stderr, /the library changed.*will mix/);
    assert.ok(!existsSync(join(dir, 'data.library-3.results.jsonl')));
  });

  test('a second evaluation over the same results file stops at once, naming the one writing them; no example runs twice', async () => {
    server.reset();
    server.tokenDelayMs = 10;
    const out = join(work, 'locked.jsonl');
    const runs = join(work, 'runs-locked');
    let second: Awaited<ReturnType<typeof art>> | undefined;
    let firstPid = 0;
    const first = await artProcess(['eval', ...base(), '--out', out, '--concurrency', '1', '--runs', runs], child => {
      firstPid = child.pid!;
      void until(() => existsSync(`${out}.lock`), { what: 'the first evaluation to take the lock', timeoutMs: 30_000 }).then(async () => {
        second = await art(['eval', ...base(), '--out', out, '--concurrency', '1', '--runs', runs]);
      });
    });
    server.tokenDelayMs = 0;
    await until(() => second !== undefined, { what: 'the second evaluation to end', timeoutMs: 30_000 });
    assert.equal(first.code, 0, first.stderr);
    assert.equal(second!.code, 2, second!.stderr);
    assert.match(
      second!.stderr,
      new RegExp(
        `^art eval: .*locked\\.jsonl: another evaluation \\(pid ${firstPid}, started \\d{4}-[^)]+\\) is writing these results \\(lock .*locked\\.jsonl\\.lock\\): wait for it to end, or write the results elsewhere\n$`,
      ),
    );
    assert.deepEqual(
      readLines(out)
        .map(l => l.id)
        .sort(),
      examples.map(e => e.id).sort(),
      'each example once in the results',
    );
    assert.deepEqual(Object.values(runsAtServer(server)), [1, 1, 1, 1, 1, 1]);
    assert.ok(!existsSync(`${out}.lock`), 'the lock is given back');
  });

  test('the lock of an evaluation that is gone (killed with -9) is taken over, and said so', async () => {
    server.reset();
    const out = join(work, 'stale.jsonl');
    const dead = spawn(process.execPath, ['-e', '']);
    await new Promise(r => dead.on('exit', r));
    writeFileSync(`${out}.lock`, JSON.stringify({ pid: dead.pid, started: '2020-01-01T00:00:00.000Z', nonce: 'gone' }));
    const r = await art(['eval', ...base(), '--out', out, '--runs', join(work, 'runs-stale')]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(
        `stale\\.jsonl\\.lock: took over the lock of an evaluation that is no longer running \\(pid ${dead.pid}, started 2020-01-01T00:00:00\\.000Z\\)`,
      ),
    );
    assert.equal(readLines(out).length, 6);
    assert.ok(!existsSync(`${out}.lock`), 'the lock is given back');
  });

  test('a last line cut short is removed on resume: the next result starts its own line, and the example runs once more only', async () => {
    // The results so far: its header (what produced it), three whole results and the first 60 bytes of a fourth.
    const [header, ...full] = readFileSync(join(work, 'all.jsonl'), 'utf8').split('\n').filter(Boolean);
    const out = join(work, 'torn.jsonl');
    const cut = JSON.parse(full[3]).id as string;
    writeFileSync(out, `${[header, ...full.slice(0, 3)].join('\n')}\n${full[3].slice(0, 60)}`);
    server.reset();
    const r = await art(['eval', ...base(), '--out', out, '--runs', join(work, 'runs-torn')]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stderr,
      /torn\.jsonl: the last line was cut short \(60 bytes, a write stopped by a kill or a full disk\): removed; its example runs again\n/,
    );
    assert.match(r.stderr, /6 examples, 3 already in .*, 3 to run/);
    const lines = readLines(out); // every line parses
    assert.deepEqual(lines.map(l => l.id).sort(), examples.map(e => e.id).sort());
    assert.equal(runsAtServer(server)[cut], 1);
    server.reset();
    const again = await art(['eval', ...base(), '--out', out, '--runs', join(work, 'runs-torn')]);
    assert.match(again.stderr, /6 already in .*, 0 to run/);
    assert.ok(!/cut short/.test(again.stderr), again.stderr);
    assert.equal(server.requests.length, 0);
  });

  test('a results file, its folder or a runs folder that cannot be written is one line naming it, before any request', async () => {
    // As root every file is writable: the command runs as nobody then.
    const as = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;
    const dir = join(work, 'readonly');
    mkdirSync(join(dir, 'ro'), { recursive: true });
    chmodSync(work, 0o755);
    chmodSync(dir, 0o777);
    const [header, ...full] = readFileSync(join(work, 'all.jsonl'), 'utf8').split('\n').filter(Boolean);
    const file = join(dir, 'file.jsonl');
    writeFileSync(file, `${[header, ...full.slice(0, 3)].join('\n')}\n`);
    chmodSync(file, 0o444);
    chmodSync(join(dir, 'ro'), 0o555);
    server.reset();
    const cases: [string[], RegExp][] = [
      [
        ['--out', file, '--runs', join(dir, 'runs')],
        /^art eval: .*file\.jsonl: cannot write the results \(EACCES\): make the file and its folder writable, or write the results elsewhere\n$/,
      ],
      [
        ['--out', join(dir, 'ro', 'r.jsonl'), '--runs', join(dir, 'runs')],
        /^art eval: .*readonly\/ro: cannot create the lock file of the results there \(EACCES\): make the folder writable, or write the results elsewhere\n$/,
      ],
      [
        ['--out', join(dir, 'r.jsonl'), '--runs', join(dir, 'ro', 'runs')],
        /^art eval: .*readonly\/ro\/runs: cannot write the run history there \(EACCES\): make that folder writable, or give another runs folder\n$/,
      ],
    ];
    for (const [args, message] of cases) {
      const r = await artProcess(['eval', ...base(), '--progress', 'none', ...args], undefined, as);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr.replace(/^\[art\] .*\n/gm, ''), message);
      assert.ok(!r.stderr.includes('internal error'), r.stderr);
    }
    assert.equal(server.requests.length, 0, 'no example ran');
    assert.ok(!existsSync(join(dir, 'r.jsonl.lock')), 'the lock is given back');
  });

  test('with no model (no --model-file, no endpoint): one line naming both, and no results file or run history is left', async () => {
    const dir = join(work, 'no-model');
    mkdirSync(dir, { recursive: true });
    const data = join(dir, 'data.jsonl');
    writeFileSync(data, readFileSync(DATA, 'utf8'));
    const old = join(dir, 'earlier.results.jsonl');
    writeFileSync(old, readFileSync(join(work, 'all.jsonl'), 'utf8'));
    const before = readdirSync(dir).sort();
    for (const extra of [[], ['--out', old, '--new']]) {
      const r = await runCli(['eval', LIBRARY, '--data', data, '--task', 'Elementary Math', '--runs', join(dir, 'runs'), ...extra], {
        cwd: dir,
        env: { OPENAI_API_KEY: undefined },
      });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr.replace(/^\[art\] .*\n/gm, ''), /^art eval: no model: .*--model-file.*--base-url.*\n$/);
      assert.doesNotMatch(r.stderr, /replay/, 'an evaluation cannot replay');
      assert.deepEqual(readdirSync(dir).sort(), before, `nothing is written (${extra.join(' ') || 'no --new'})`);
    }
  });

  test('a dataset line that is not an example is one line naming the file and line', async () => {
    const r = await art(['eval', LIBRARY, '--data', join(__dirname, 'eval.test.ts'), '--task', '0']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^art eval: .*eval\.test\.ts:1: not JSON: each line must be an object \{"input": \.\.\., "target": \.\.\.\}\n$/);
  });
});
