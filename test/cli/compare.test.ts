// `art compare` as users run it (dist/cli.js): the example (A right on 60 of 100 shared examples, B on 70,
// 15 fixed, 5 broken, one example only in B) as text and --json, the headers and the warning when the evaluations
// differ in more than the library, a file from before headers, and one-line errors.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, test } from 'node:test';
import type { EvalResult } from '../../core/evaluation/eval';
import type { ResultsHeader } from '../../core/evaluation/header';
import { acceptancePair } from '../support/evalResults';

const CLI = resolve(__dirname, '../../dist/cli.js');
const art = (...args: string[]) => {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
};
const tmp = mkdtempSync(join(tmpdir(), 'art-cli-compare-'));

const header = (library: string, model: string): ResultsHeader => ({
  kind: 'art-evaluation',
  version: 1,
  date: '2025-01-02T03:04:05.000Z',
  library: { path: 'lib.art', sha256: library.repeat(64 / library.length), git: { commit: 'abcdef0123456789abcdef0123456789abcdef01', dirty: true } },
  data: { path: 'data.jsonl', sha256: 'd'.repeat(64) },
  model,
  endpoint: 'http://127.0.0.1:8000/v1',
  options: { api: 'completions', select: 'same-file', samples: 1, constrain: 'off', inlineTriggers: false },
});

function write(name: string, results: EvalResult[], h?: ResultsHeader): string {
  const path = join(tmp, name);
  writeFileSync(path, [...(h ? [h] : []), ...results].map(x => JSON.stringify(x)).join('\n') + '\n');
  return path;
}

describe('art compare', () => {
  const [ra, rb] = acceptancePair();
  const a = write('a.results.jsonl', ra, header('a1', 'm'));
  const b = write('b.results.jsonl', rb, header('b2', 'm'));

  test("the issue's example: accuracies 0.60 and 0.70, 15 fixed, 5 broken, p = 0.0414, onlyB 1", () => {
    const r = art('compare', a, b, '--json');
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    assert.deepEqual([j.a.n, j.a.correct, j.a.accuracy, j.b.n, j.b.correct, j.b.accuracy], [100, 60, 0.6, 100, 70, 0.7]);
    assert.equal(j.fixed.length, 15);
    assert.equal(j.broken.length, 5);
    assert.deepEqual(j.broken, ['e70', 'e71', 'e72', 'e73', 'e74']);
    assert.equal(j.pValue.toFixed(4), '0.0414');
    assert.deepEqual([j.onlyA, j.onlyB, j.onlyBIds], [0, 1, ['new']]);
    assert.equal(j.a.header.library.sha256, 'a1'.repeat(32));
    assert.deepEqual(j.headerDifferences, []);
    assert.equal(j.examples.length, 20);
    assert.equal(r.err, '');
  });

  test('as text: both headers, the accuracies, the difference, the p-value in words, the examples', () => {
    const r = art('compare', a, b);
    assert.equal(r.code, 0, r.err);
    assert.match(
      r.out,
      /^A .*a\.results\.jsonl\n {2}lib\.art a1a1a1a1 \(git abcdef0, uncommitted changes\) · model m at http:\/\/127\.0\.0\.1:8000\/v1 · /,
    );
    assert.match(r.out, /^ {2}lib\.art b2b2b2b2 /m);
    assert.match(r.out, /^A .*: 60\/100 = 60\.0% \(95% CI 50\.2%–69\.1%\)$/m);
    assert.match(r.out, /^difference B − A: \+10\.0 points/m);
    assert.match(r.out, /McNemar exact: p = 0\.0414/);
    assert.match(r.out, /^broken \(right in A, wrong in B\):\n {2}e70: question e70$/m);
    assert.equal(r.err, '', 'no warning: only the library differs');
  });

  test('another model: a warning on stderr; a file from before headers still compares', () => {
    const other = write('other.results.jsonl', rb, header('b2', 'bigger-model'));
    const r = art('compare', a, other);
    assert.equal(r.code, 0);
    assert.match(r.err, /^art compare: warning: the evaluations differ in more than the library: model: m → bigger-model\n$/);
    const old = write('old.results.jsonl', ra);
    const o = art('compare', old, b, '--metric', 'substring');
    assert.equal(o.code, 0, o.err);
    assert.match(o.out, /^ {2}no header \(written before results files said what produced them\)$/m);
    assert.match(o.out, /^substring match on the 100 examples both have$/m);
  });

  test('errors are one line naming the file and the fix', () => {
    const missing = art('compare', a, join(tmp, 'nope.jsonl'));
    assert.equal(missing.code, 2);
    assert.match(
      missing.err,
      /^art compare: .*nope\.jsonl: cannot read the results \(ENOENT\): give a results file written by art eval or Evaluate Task\n$/,
    );
    assert.match(art('compare', a).err, /^art compare: give two results files\nusage: art compare/);
    assert.match(art('compare', a, b, '--metric', 'f1').err, /^art compare: --metric: expected exact or substring, not "f1"\n$/);
  });
});
