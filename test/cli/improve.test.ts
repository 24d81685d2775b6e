// `art improve` (in-process, test/support/cli.ts) against the scripted model that learns only from the demonstrations
// in its prompt (test/support/kindsModel.ts): the plan printed before anything runs, the --json fields, the proposed
// file (the original's lines kept, the additions named by their training examples), --data alone split by the seed,
// and one-line errors.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScriptedServer } from '../support/scriptedServer';
import { runCli, runCliProcess } from '../support/cli';
import { KINDS_LIBRARY, jsonl, kindsData, useKindsModel } from '../support/kindsModel';

let server: ScriptedServer;
before(async () => {
  server = useKindsModel(await new ScriptedServer({ tokenDelayMs: 0 }).start());
});
after(() => server.close());

function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'art-cli-improve-'));
  writeFileSync(join(dir, 'kinds.art'), KINDS_LIBRARY);
  writeFileSync(join(dir, 'train.jsonl'), jsonl(kindsData(3, 100)));
  writeFileSync(join(dir, 'dev.jsonl'), jsonl(kindsData(2, 200)));
  writeFileSync(join(dir, 'test.jsonl'), jsonl(kindsData(4, 300)));
  writeFileSync(join(dir, 'all.jsonl'), jsonl(kindsData(8, 400)));
  return dir;
}
const endpoint = () => ['--base-url', server.baseURL, '--model', 'scripted', '--task', 'Arithmetic'];

describe('art improve', () => {
  test('--json: the fields, the plan first, the proposed file beside the library', async () => {
    const dir = workspace();
    const r = await runCli(
      [
        'improve',
        'kinds.art',
        '--data',
        'train.jsonl',
        '--dev',
        'dev.jsonl',
        '--test',
        'test.jsonl',
        '--budget',
        '400',
        '--seed',
        '3',
        '--json',
        // Progress asked for too: its lines go to standard error, standard output is the one object.
        '--progress',
        'lines',
        ...endpoint(),
      ],
      { cwd: dir },
    );
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.match(r.stderr, /^\[\d+\/\d+\] /m);
    for (const k of ['baseline', 'improved']) assert.deepEqual(Object.keys(j[k]).sort(), ['accuracy', 'correct', 'n']);
    assert.equal(j.baseline.n, 12);
    assert.ok(j.improved.correct > j.baseline.correct && j.significant && j.pValue < 0.05);
    assert.ok(j.added.length > 0 && j.added.every((a: { id: string }) => /^(plus|times|minus)-10\d$/.test(a.id)));
    assert.ok(j.requests <= 400);
    assert.equal(j.out, join(dir, 'kinds.improved.art'));
    // The plan is the first thing said, before any evaluation starts.
    const lines = r.stderr.split('\n').filter(Boolean);
    assert.match(lines[0], /^\[art\] at most 400 requests \(--budget\): bootstrap \d round\(s\) of 9 training example\(s\)/);
    // The proposed file keeps every line of the original, in order; what it adds are the header and the demonstrations.
    const proposed = readFileSync(j.out, 'utf8').split('\n');
    let at = 0;
    for (const line of KINDS_LIBRARY.split('\n')) {
      at = proposed.indexOf(line, at);
      assert.ok(at >= 0, `kept: ${line}`);
    }
    for (const a of j.added) assert.ok(proposed.some(l => l.startsWith(`# art improve: from training example "${a.id}" (train.jsonl:${a.line})`)));
    assert.equal(readFileSync(join(dir, 'kinds.art'), 'utf8'), KINDS_LIBRARY);
  });

  test('--data alone is split by the seed; the text report says the verdict', async () => {
    const dir = workspace();
    const r = await runCli(['improve', 'kinds.art', '--data', 'all.jsonl', '--budget', '600', '--out', 'better.art', ...endpoint()], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /--data split by seed 0: 12 train, 6 dev, 6 test/);
    assert.match(r.stdout, /McNemar exact/);
    assert.match(r.stdout, /(a significant gain|no significant gain) \(McNemar p = /);
    assert.ok(existsSync(join(dir, 'better.art')));
  });

  test('stopped by SIGINT (exit 130, nothing proposed), the same command resumes with what ran', async () => {
    const dir = workspace();
    const args = ['improve', 'kinds.art', '--data', 'train.jsonl', '--dev', 'dev.jsonl', '--test', 'test.jsonl', '--budget', '400', ...endpoint()];
    server.tokenDelayMs = 5;
    let lines = 0;
    let sent = false;
    const first = await runCliProcess([...args, '--progress', 'lines'], {
      cwd: dir,
      onStart: child =>
        child.stdout.on('data', (d: Buffer) => {
          lines += (String(d).match(/^\[\d+\/\d+\] /gm) ?? []).length;
          // One Ctrl-C: a second one, sent by a later chunk on a loaded machine, would find the command's handler
          // gone once it has stopped, and end the process by the signal (no exit code) instead of testing the stop.
          if (lines >= 5 && !sent) {
            sent = true;
            child.kill('SIGINT');
          }
        }),
    });
    server.tokenDelayMs = 0;
    assert.equal(first.code, 130, first.stderr);
    assert.match(first.stderr, /art improve: stopped: run the same command again to resume/);
    assert.ok(!existsSync(join(dir, 'kinds.improved.art')), 'nothing proposed');
    const second = await runCli(args, { cwd: dir });
    assert.equal(second.code, 0, second.stderr);
    const resumed = /bootstrap round 1: 9 example\(s\), (\d+) already run/.exec(second.stderr);
    assert.ok(resumed && Number(resumed[1]) >= 5, second.stderr);
    assert.ok(existsSync(join(dir, 'kinds.improved.art')));
  });

  test('takes every run option art eval takes (the one declaration)', async () => {
    const flags = (help: string) =>
      new Set(
        help
          .split('\n')
          .map(l => /^ {2}(--[a-z-]+)/.exec(l)?.[1])
          .filter(Boolean),
      );
    const [improveHelp, evalHelp] = [await runCli(['improve', '--help']), await runCli(['eval', '--help'])];
    // art eval's own flags about its results file and output (art improve keeps its own results, resumed by content).
    const own = new Set(['--data', '--out', '--new', '--resume', '--runs', '--concurrency', '--select-examples', '--progress']);
    const missing = [...flags(evalHelp.stdout)].filter(f => !own.has(f!) && !flags(improveHelp.stdout).has(f));
    assert.deepEqual(missing, []);
    assert.ok(flags(improveHelp.stdout).has('--base-url') && flags(improveHelp.stdout).has('--temperature'));
  });

  test("errors are one line: the original or a file of the user's as --out, a budget too small, a missing split", async () => {
    const dir = workspace();
    const base = ['improve', 'kinds.art', '--data', 'train.jsonl', '--dev', 'dev.jsonl', '--test', 'test.jsonl', ...endpoint()];
    const same = await runCli([...base, '--out', 'kinds.art'], { cwd: dir });
    assert.equal(same.code, 2);
    assert.match(same.stderr, /never written over the original/);
    writeFileSync(join(dir, 'notes.md'), '# my notes\n');
    const other = await runCli([...base, '--out', 'notes.md'], { cwd: dir });
    assert.equal(other.code, 2);
    assert.match(other.stderr, /notes\.md: not a library art improve proposed .*so it is not written over: move it away, or name another file/);
    assert.equal(readFileSync(join(dir, 'notes.md'), 'utf8'), '# my notes\n', 'the file is untouched');
    const small = await runCli([...base, '--budget', '10'], { cwd: dir });
    assert.match(small.stderr, /^art improve: --budget 10 is below the least this needs, \d+ requests/);
    const half = await runCli(['improve', 'kinds.art', '--data', 'train.jsonl', '--dev', 'dev.jsonl', ...endpoint()], { cwd: dir });
    assert.match(half.stderr, /give both --dev and --test, or neither/);
  });
});
