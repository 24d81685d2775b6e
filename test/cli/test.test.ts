// `art test` (in-process, test/support/cli.ts): every demonstration is a test, a wrong recording fails with its diff,
// the last line is `N passed, N failed`, exit 1 on a failure and 2 on a usage error; `--tools all` compares the
// model-backed steps too, with the endpoint's code.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { ContinuationScript } from '../../core/replay/script';
import { fixturePath } from '../support/fixtures';
import { ScriptedServer } from '../support/scriptedServer';
import { runCli } from '../support/cli';

const art = (...args: string[]) => runCli(args);

const LIB = fixturePath('programs/library-test.art');

describe('art test', () => {
  after(() => ScriptedServer.closeAll());

  test('passing libraries: one PASS line per program, then "N passed, 0 failed", exit 0', async () => {
    const r = await art('test', fixturePath('programs/arithmetic.art'), fixturePath('programs/physics.art'));
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.match(lines[0], /^PASS .*arithmetic\.art:6 program 0 \(Aqua-rat\)$/);
    assert.equal(lines.filter(l => l.startsWith('PASS')).length, 3);
    assert.equal(lines.at(-1), '3 passed, 0 failed');
  });

  test('a wrong recording fails with the step, the recorded and the new output; exit 1', async () => {
    const r = await art('test', LIB);
    assert.equal(r.code, 1, r.stderr);
    const out = r.stdout.trim().split('\n');
    const i = out.findIndex(l => /^FAIL .*library-test\.art:15 program 1 \(Sums\)$/.test(l));
    assert.ok(i >= 0, r.stdout);
    assert.deepEqual(out.slice(i + 1, i + 4), ['  #2 [code execute] (line 20)', '    recorded: 5', '    got:      4']);
    assert.match(r.stdout, /FAIL .*program 2 \(Unfinished\)\n {2}the recording ends at #1: with no \[EOQ\]/);
    assert.match(out[0], /^PASS .*program 0 \(Remainders\)$/);
    assert.equal(out.at(-1), '1 passed, 2 failed');
  });

  test('usage errors are one line and exit 2', async () => {
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
      const r = await art('test', ...args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr.trim(), message);
      assert.equal(r.stderr.trim().split('\n').length, 1);
    }
  });

  test('the tools run under the run options: the Python limits of `art run` apply (a 1 ms time limit fails the code steps)', async () => {
    const r = await art('test', fixturePath('programs/arithmetic.art'), '--python-timeout-ms', '1', '--python-cpu-seconds', '1');
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /FAIL /);
    assert.match(r.stdout, /stopped after the time limit of 0.001 s/);
    const help = await art('test', '--help');
    assert.equal(help.code, 0);
    for (const flag of ['--tools deterministic|all', '--python-timeout-ms', '--tool-timeout-ms', '--word-list', '--base-url'])
      assert.ok(help.stdout.includes(flag), flag);
    assert.ok(!help.stdout.includes('--input'), help.stdout);
  });

  test('--tools all compares model-backed steps with what the endpoint writes', async () => {
    const server = new ScriptedServer({ tokenDelayMs: 0 });
    server.setScripts(
      ContinuationScript.parse('ans = "cat"[2]', '"cat"?\nInput:\n2\nPython code:\n'),
      ContinuationScript.parse('ans = 17 % 5', 'Python code:\n'),
    );
    await server.start();
    const r = await art('test', LIB, '--tools', 'all', '--base-url', server.baseURL, '--model', 'scripted');
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stdout, /FAIL .*program 0 \(Remainders\)\n {2}#3 \[string index\] \(line 10\)\n {4}recorded: a\n {4}got: {6}t\n/);
    assert.match(r.stdout, /#1 \[generate python code\] \(line 17\)\n {4}recorded: ans = \[2 \+ 2\]\n {4}got: {6}ans = 17 % 5\n/);
    assert.ok(server.requests.length >= 2);
  });
});
