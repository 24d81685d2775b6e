// `art test` (dist/cli.js, as users run it): every demonstration is a test, a wrong recording fails with its diff,
// the last line is `N passed, N failed`, exit 1 on a failure and 2 on a usage error; `--tools all` compares the
// model-backed steps too, with the endpoint's code.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { after, describe, test } from 'node:test';
import { ContinuationScript } from '../../core/replay/script';
import { fixturePath } from '../support/fixtures';
import { ScriptedServer } from '../support/scriptedServer';

const CLI = resolve(__dirname, '../../dist/cli.js');
const art = (...args: string[]) => {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
};
/** Asynchronous, so a scripted server in this process can answer. */
const artAsync = (...args: string[]) =>
  new Promise<{ code: number | null; out: string }>(done => {
    const p = spawn(process.execPath, [CLI, ...args]);
    let out = '';
    p.stdout.on('data', d => (out += d));
    p.on('close', code => done({ code, out }));
  });

const LIB = fixturePath('programs/library-test.art');

describe('art test', () => {
  after(() => ScriptedServer.closeAll());

  test('passing libraries: one PASS line per program, then "N passed, 0 failed", exit 0', () => {
    const r = art('test', fixturePath('programs/arithmetic.art'), fixturePath('programs/physics.art'));
    assert.equal(r.code, 0, r.out + r.err);
    const lines = r.out.trim().split('\n');
    assert.match(lines[0], /^PASS .*arithmetic\.art:6 program 0 \(Aqua-rat\)$/);
    assert.equal(lines.filter(l => l.startsWith('PASS')).length, 3);
    assert.equal(lines.at(-1), '3 passed, 0 failed');
  });

  test('a wrong recording fails with the step, the recorded and the new output; exit 1', () => {
    const r = art('test', LIB);
    assert.equal(r.code, 1, r.err);
    const out = r.out.trim().split('\n');
    const i = out.findIndex(l => /^FAIL .*library-test\.art:15 program 1 \(Sums\)$/.test(l));
    assert.ok(i >= 0, r.out);
    assert.deepEqual(out.slice(i + 1, i + 4), ['  #2 [code execute] (line 20)', '    recorded: 5', '    got:      4']);
    assert.match(r.out, /FAIL .*program 2 \(Unfinished\)\n {2}the recording ends at #1: with no \[EOQ\]/);
    assert.match(out[0], /^PASS .*program 0 \(Remainders\)$/);
    assert.equal(out.at(-1), '1 passed, 2 failed');
  });

  test('usage errors are one line and exit 2', () => {
    for (const [args, message] of [
      [[], /give at least one task library/],
      [[LIB, '--tools', 'some'], /--tools is "deterministic" or "all", not "some"/],
      [[LIB, '--base-url', 'http://127.0.0.1:9/v1'], /give both --base-url and --model/],
      [[LIB, '--tool-timeout-ms', 'soon'], /--tool-timeout-ms: expected/],
      [[LIB, '--python-memory-mb', '0'], /--python-memory-mb: expected/],
      [[LIB, '--input', '3'], /Unknown option '--input'.*art test --help lists the options/],
      [[fixturePath('agents/react.agent')], /art test runs the programs of task libraries/],
      [['/nonexistent/x.art'], /\/nonexistent\/x\.art: .*check the path/],
    ] as const) {
      const r = art('test', ...args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.out}${r.err}`);
      assert.match(r.err.trim(), message);
      assert.equal(r.err.trim().split('\n').length, 1);
    }
  });

  test('the tools run under the run options: the Python limits of `art run` apply (a 1 ms time limit fails the code steps)', () => {
    const r = art('test', fixturePath('programs/arithmetic.art'), '--python-timeout-ms', '1', '--python-cpu-seconds', '1');
    assert.equal(r.code, 1, r.out + r.err);
    assert.match(r.out, /FAIL /);
    assert.match(r.out, /stopped after the time limit of 0.001 s/);
    const help = art('test', '--help');
    assert.equal(help.code, 0);
    for (const flag of ['--tools deterministic|all', '--python-timeout-ms', '--tool-timeout-ms', '--word-list', '--base-url'])
      assert.ok(help.out.includes(flag), flag);
    assert.ok(!help.out.includes('--input'), help.out);
  });

  test('--tools all compares model-backed steps with what the endpoint writes', async () => {
    const server = new ScriptedServer({ tokenDelayMs: 0 });
    server.setScripts(
      ContinuationScript.parse('ans = "cat"[2]', '"cat"?\nInput:\n2\nPython code:\n'),
      ContinuationScript.parse('ans = 17 % 5', 'Python code:\n'),
    );
    await server.start();
    const r = await artAsync('test', LIB, '--tools', 'all', '--base-url', server.baseURL, '--model', 'scripted');
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, /FAIL .*program 0 \(Remainders\)\n {2}#3 \[string index\] \(line 10\)\n {4}recorded: a\n {4}got: {6}t\n/);
    assert.match(r.out, /#1 \[generate python code\] \(line 17\)\n {4}recorded: ans = \[2 \+ 2\]\n {4}got: {6}ans = 17 % 5\n/);
    assert.ok(server.requests.length >= 2);
  });
});
