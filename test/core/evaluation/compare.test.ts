// Two evaluations compared example by example (core/evaluation/compare.ts) and the results header
// (core/evaluation/header.ts). The statistics are checked against values computed independently in Python
// (McNemar's tail as an exact fraction: sum of math.comb(m, i) for i ≤ k over 2^m; Wilson and Newcombe's method 10
// written out from their formulas), not against this code's own output.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareResults, formatComparison, mcnemarExact, pairedDifferenceInterval, pValueWords } from '../../../core/evaluation/compare';
import { readResults } from '../../../core/evaluation/eval';
import { newResultsPath } from '../../../core/evaluation/evaluate';
import { formatHeader, headerDifferences, loadResultsFile, makeHeader, readHeader, type ResultsHeader } from '../../../core/evaluation/header';
import { parseRunOptions } from '../../../core/launch/options';
import { acceptancePair, result } from '../../support/evalResults';

const close = (actual: number, expected: number, digits = 10) =>
  assert.ok(Math.abs(actual - expected) < 10 ** -digits, `${actual} is not ${expected}`);

describe('McNemar exact and the paired interval', () => {
  test('two-sided exact p-values match the binomial tails computed independently', () => {
    const python: [number, number, number][] = [
      [15, 5, 0.04138946533203125],
      [5, 15, 0.04138946533203125],
      [10, 2, 0.03857421875],
      [7, 1, 0.0703125],
      [40, 25, 0.08168153394154005],
      [200, 150, 0.008720036530555949],
      [0, 6, 0.03125],
      [3, 3, 1],
      [1, 0, 1],
      [0, 0, 1],
    ];
    for (const [b, c, p] of python) close(mcnemarExact(b, c), p, 12);
    assert.ok(mcnemarExact(3000, 2000) > 0 && mcnemarExact(3000, 2000) < 1e-40, 'large counts do not underflow to 0 or overflow');
  });

  test("Newcombe's paired interval matches the formula written out independently", () => {
    const [lo, hi] = pairedDifferenceInterval(55, 15, 5, 25);
    close(lo, 0.014335518551114229);
    close(hi, 0.18351176537093483);
    const [lo2, hi2] = pairedDifferenceInterval(3, 4, 1, 2);
    close(lo2, -0.09872498768873589);
    close(hi2, 0.5876584320758791);
    // No discordant pair and an empty margin (phi taken as 0): symmetric around 0.
    const [lo3, hi3] = pairedDifferenceInterval(0, 0, 0, 10);
    close(lo3, -0.2775401687666166);
    close(hi3, 0.2775401687666166);
  });
});

describe('compareResults', () => {
  test("the issue's example: 0.60 and 0.70, 15 fixed, 5 broken, p = 0.0414, one example only in B", () => {
    const [a, b] = acceptancePair();
    const c = compareResults(a, b);
    assert.deepEqual([c.a.n, c.a.correct, c.a.accuracy, c.b.correct, c.b.accuracy], [100, 60, 0.6, 70, 0.7]);
    close(c.difference, 0.1);
    assert.equal(c.fixed.length, 15);
    assert.equal(c.broken.length, 5);
    assert.deepEqual(c.fixed[0], { id: 'e55', input: 'question e55', target: '1', answerA: '2', answerB: '1', endA: 'finished', endB: 'finished' });
    assert.equal(c.pValue.toFixed(4), '0.0414');
    assert.deepEqual([c.onlyA, c.onlyB, c.bothRight, c.bothWrong], [[], ['new'], 55, 25]);
    // Wilson intervals of 60/100 and 70/100 (Python: 0.50200..0.69060, 0.60415..0.78105).
    close(c.a.interval[0], 0.5020007846184025);
    close(c.b.interval[1], 0.7810524613377188);
    const text = formatComparison(c, ['a.jsonl', 'b.jsonl']);
    assert.match(text, /^A a\.jsonl: 60\/100 = 60\.0% \(95% CI 50\.2%–69\.1%\)$/m);
    assert.match(text, /^B b\.jsonl: 70\/100 = 70\.0% \(95% CI 60\.4%–78\.1%\)$/m);
    assert.match(text, /^difference B − A: \+10\.0 points \(95% paired CI \+1\.4 to \+18\.4\)$/m);
    assert.match(text, /^fixed 15, broken 5, right in both 55, wrong in both 25$/m);
    assert.match(text, /p = 0\.0414: .* likely real/);
    assert.match(text, /^not compared: 0 example\(s\) only in A, 1 only in B$/m);
    assert.match(text, /^ {2}e70: question e70\n {4}target "1" · A "1" · B "2"$/m);
  });

  test('the substring metric scores by substring; an example with no answer says how its run ended', () => {
    const a = [result('1', false, { substring: true }), result('2', true)];
    const b = [result('1', false, { substring: false, answer: null, end: 'error' }), result('2', true)];
    assert.equal(compareResults(a, b, 'exact').broken.length, 0);
    const c = compareResults(a, b, 'substring');
    assert.deepEqual(
      c.broken.map(e => e.id),
      ['1'],
    );
    assert.match(formatComparison(c, ['a', 'b']), /B no answer \(error\)/);
    assert.match(pValueWords(compareResults(a, a)), /no example changed/);
    assert.match(pValueWords(c), /^p = 1\.0000: 0 fixed against 1 broken is within what chance alone gives/);
  });
});

describe('the results header', () => {
  const work = mkdtempSync(join(tmpdir(), 'art-header-'));
  const git = (...args: string[]) => execFileSync('git', ['-C', work, ...args], { encoding: 'utf8' });
  const lib = join(work, 'lib.art');
  const data = join(work, 'data.jsonl');
  writeFileSync(lib, 'Description: (Sum) Add.\nInput: 1\nQ1: [EOQ]\nAns: 1\n');
  writeFileSync(data, '{"input":"1","target":"1"}\n');
  const options = (extra: Record<string, unknown> = {}) => parseRunOptions({ program: lib, model: 'm1', baseURL: 'http://x/v1', ...extra });

  test('names the library by content hash and git commit, the model, the options that change answers and the date', () => {
    git('init', '-q');
    git('-c', 'user.email=a@b', '-c', 'user.name=t', 'add', 'lib.art');
    git('-c', 'user.email=a@b', '-c', 'user.name=t', 'commit', '-qm', 'lib');
    const commit = git('rev-parse', 'HEAD').trim();
    const resultsPath = join(work, 'data.lib.results.jsonl');
    const h = makeHeader({ library: lib, data, resultsPath, options: options({ temperature: 0.5, samples: 3 }), root: work, date: new Date(0) });
    assert.equal(h.library.path, 'lib.art');
    assert.equal(h.library.sha256, createHash('sha256').update(readFileSync(lib)).digest('hex'));
    assert.deepEqual(h.library.git, { commit, dirty: false });
    assert.deepEqual([h.model, h.endpoint, h.date], ['m1', 'http://x/v1', '1970-01-01T00:00:00.000Z']);
    assert.deepEqual(h.options, {
      api: 'completions',
      select: 'same-file',
      samples: 3,
      temperature: 0.5,
      maxTokens: 512,
      constrain: 'off',
      inlineTriggers: false,
    });
    writeFileSync(lib, 'Description: (Sum) Add.\nInput: 2\nQ1: [EOQ]\nAns: 2\n');
    const edited = makeHeader({ library: lib, data, resultsPath, options: options(), root: work });
    assert.deepEqual(edited.library.git, { commit, dirty: true });
    assert.notEqual(edited.library.sha256, h.library.sha256);
    assert.match(
      formatHeader(edited),
      /^lib\.art [0-9a-f]{8} \(git [0-9a-f]{7}, uncommitted changes\) · model m1 at http:\/\/x\/v1 · select same-file, 1 sample, temperature 0 · /,
    );
  });

  test('a library git does not track (ignored) names no commit: its changes would read as none', () => {
    const ignored = join(work, 'ignored.art');
    writeFileSync(join(work, '.gitignore'), 'ignored.art\n');
    writeFileSync(ignored, 'Description: (Sum) Add.\nInput: 1\nQ1: [EOQ]\nAns: 1\n');
    const h = makeHeader({ library: ignored, data, resultsPath: join(work, 'i.jsonl'), options: options(), root: work });
    assert.equal(h.library.git, undefined);
    assert.doesNotMatch(formatHeader(h), /\(git /);
  });

  test('what differs besides the library: the model, the options; nothing when only the library changed', () => {
    const at = join(work, 'r.jsonl');
    const h1 = makeHeader({ library: lib, data, resultsPath: at, options: options(), root: work });
    writeFileSync(lib, 'Description: (Sum) Add.\nInput: 3\nQ1: [EOQ]\nAns: 3\n');
    const h2 = makeHeader({ library: lib, data, resultsPath: at, options: options(), root: work });
    assert.deepEqual(headerDifferences(h1, h2), []);
    const h3 = makeHeader({ library: lib, data, resultsPath: at, options: options({ model: 'm2', samples: 5 }), root: work });
    assert.deepEqual(headerDifferences(h1, h3), ['model: m1 → m2', 'samples: 1 → 5']);
    assert.deepEqual(headerDifferences(null, h1), ['only B says what produced it: the two may differ in more than the library']);
  });

  test('readers keep working on files with and without a header; a file with no result is an error naming it', () => {
    const header: ResultsHeader = makeHeader({ library: lib, data, resultsPath: join(work, 'x'), options: options(), root: work });
    const withHeader = join(work, 'new.results.jsonl');
    const old = join(work, 'old.results.jsonl');
    const lines = [result('a', true), result('b', false)].map(r => JSON.stringify(r));
    writeFileSync(withHeader, [JSON.stringify(header), ...lines, '{"id":"c","exa'].join('\n'));
    writeFileSync(old, `${lines.join('\n')}\n`);
    assert.deepEqual([...readResults(withHeader).keys()], ['a', 'b']);
    assert.deepEqual([...readResults(old).keys()], ['a', 'b']);
    assert.deepEqual(readHeader(withHeader), header);
    assert.equal(readHeader(old), null);
    const loaded = loadResultsFile(withHeader);
    assert.deepEqual([loaded.header?.kind, loaded.results.map(r => r.id)], ['art-evaluation', ['a', 'b']]);
    assert.deepEqual(loadResultsFile(old).header, null);
    writeFileSync(join(work, 'empty.jsonl'), '\n');
    assert.throws(() => loadResultsFile(join(work, 'empty.jsonl')), /empty\.jsonl: no results in the file: give a results file/);
    assert.throws(() => loadResultsFile(join(work, 'missing.jsonl')), /missing\.jsonl: cannot read the results \(ENOENT\)/);
  });

  test('a new results file goes beside the old one, never over it', () => {
    const first = join(work, 'data.lib.results.jsonl');
    writeFileSync(first, '');
    assert.equal(newResultsPath(first), join(work, 'data.lib-2.results.jsonl'));
    writeFileSync(join(work, 'data.lib-2.results.jsonl'), '');
    assert.equal(newResultsPath(first), join(work, 'data.lib-3.results.jsonl'));
    assert.equal(newResultsPath(join(work, 'data.lib-2.results.jsonl')), join(work, 'data.lib-3.results.jsonl'));
    assert.equal(newResultsPath(join(work, 'out.jsonl')), join(work, 'out-2.jsonl'));
  });
});
