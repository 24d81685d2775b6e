// The evaluation history (core/evaluation/history.ts): results files grouped into series by name, each evaluation
// with its accuracy, date, model and library version, oldest first, and the change from the one before; files from
// before headers dated by their modification time; unreadable files named, not fatal; and the report of a past
// evaluation from its results file alone (what the Evaluations view opens).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EvalResult } from '../../../core/evaluation/eval';
import type { ResultsHeader } from '../../../core/evaluation/header';
import {
  comparisonChoices,
  earlierFirst,
  evaluationHistory,
  formatChange,
  formatHistoryDate,
  formatHistoryEntry,
  libraryVersion,
  readHistoryFiles,
  seriesKey,
  seriesTitle,
} from '../../../core/evaluation/history';
import { resultsFileReport } from '../../../core/evaluation/report';
import { lockPathOf, ResultsFile } from '../../../core/evaluation/resultsFile';
import { spawnSync } from 'node:child_process';
import { result } from '../../support/evalResults';

/** A local time as an ISO date: its formatting in local time gives back these figures whatever the time zone. */
const at = (day: number, hour: number, minute: number) => new Date(2026, 10, day, hour, minute).toISOString();

function header(o: { date: string; model?: string; sha?: string; git?: { commit: string; dirty: boolean } }): ResultsHeader {
  return {
    kind: 'art-evaluation',
    version: 1,
    date: o.date,
    library: { path: '../library.art', sha256: o.sha ?? 'a'.repeat(64), ...(o.git ? { git: o.git } : {}) },
    data: { path: 'arithmetic.jsonl', sha256: 'd'.repeat(64) },
    model: o.model ?? 'gpt-4o-mini',
    endpoint: 'http://127.0.0.1:1/v1',
    options: { api: 'completions', select: 'same-file', samples: 1, constrain: 'off', inlineTriggers: false },
  };
}

/** `right` of `n` results right. */
const results = (right: number, n: number): EvalResult[] => Array.from({ length: n }, (_, i) => result(`e${i}`, i < right));

describe('evaluationHistory', () => {
  test('a series per library on a dataset, oldest first, with the accuracy, its change, the previous evaluation and the version', () => {
    const commit = '1a2b3c4d5e6f7a8b9c0d1a2b3c4d5e6f7a8b9c0d';
    const series = evaluationHistory([
      // Given out of order: sorted by the headers' dates.
      { path: '/w/data/arithmetic.library-3.results.jsonl', header: header({ date: at(26, 9, 30), sha: 'c'.repeat(64) }), results: results(7, 10) },
      {
        path: '/w/data/arithmetic.library.results.jsonl',
        header: header({ date: at(25, 14, 2), git: { commit, dirty: false } }),
        results: results(6, 10),
      },
      {
        path: '/w/data/arithmetic.library-2.results.jsonl',
        header: header({ date: at(25, 16, 40), model: 'gpt-4o', git: { commit, dirty: true }, sha: 'b'.repeat(64) }),
        results: results(6, 10),
      },
      { path: '/w/data/arithmetic.other.results.jsonl', header: header({ date: at(20, 8, 0) }), results: results(1, 2) },
    ]);
    assert.deepEqual(
      series.map(s => s.key),
      ['/w/data/arithmetic.library', '/w/data/arithmetic.other'],
    );
    const [lib, other] = series;
    assert.equal(lib.library, '/w/library.art');
    assert.equal(lib.data, '/w/data/arithmetic.jsonl');
    assert.equal(seriesTitle(lib, '/w'), 'library.art on arithmetic.jsonl');
    assert.deepEqual(
      lib.entries.map(e => [
        e.path.replace('/w/data/', ''),
        e.correct,
        e.n,
        e.accuracy,
        e.change,
        e.previous?.replace('/w/data/', ''),
        e.model,
        e.version,
        e.libraryChanged,
      ]),
      [
        ['arithmetic.library.results.jsonl', 6, 10, 0.6, null, undefined, 'gpt-4o-mini', '1a2b3c4', undefined],
        ['arithmetic.library-2.results.jsonl', 6, 10, 0.6, 0, 'arithmetic.library.results.jsonl', 'gpt-4o', '1a2b3c4 dirty', true],
        ['arithmetic.library-3.results.jsonl', 7, 10, 0.7, 0.7 - 0.6, 'arithmetic.library-2.results.jsonl', 'gpt-4o-mini', 'cccccccc', true],
      ],
    );
    assert.deepEqual(lib.entries.map(formatHistoryEntry), [
      '0.60 · 2026-11-25 14:02 · gpt-4o-mini · 1a2b3c4',
      '0.60 (±0.00) · 2026-11-25 16:40 · gpt-4o · 1a2b3c4 dirty',
      '0.70 (+0.10) · 2026-11-26 09:30 · gpt-4o-mini · cccccccc',
    ]);
    assert.deepEqual(
      other.entries.map(e => [e.accuracy, e.change]),
      [[0.5, null]],
    );
  });

  test('a file from before headers joins its series by name, dated by its modification time, with no model or version', () => {
    const [s] = evaluationHistory([
      { path: '/w/a.lib-2.results.jsonl', header: header({ date: at(25, 10, 0) }), results: results(3, 4) },
      { path: '/w/a.lib.results.jsonl', header: null, results: results(2, 4), modified: at(24, 18, 5) },
    ]);
    assert.deepEqual(s.entries.map(formatHistoryEntry), [
      '0.50 · 2026-11-24 18:05 · model unknown · version unknown',
      '0.75 (+0.25) · 2026-11-25 10:00 · gpt-4o-mini · aaaaaaaa',
    ]);
    assert.equal(s.entries[1].libraryChanged, undefined, 'unknown: the first file does not say its library');
  });

  test('an evaluation with no result yet has no accuracy and no change, nor does the one after it', () => {
    const [s] = evaluationHistory([
      { path: '/w/x.l.results.jsonl', header: header({ date: at(1, 1, 0) }), results: [] },
      { path: '/w/x.l-2.results.jsonl', header: header({ date: at(1, 2, 0) }), results: results(1, 1) },
    ]);
    assert.deepEqual(
      s.entries.map(e => [e.accuracy, e.change]),
      [
        [null, null],
        [1, null],
      ],
    );
    assert.match(formatHistoryEntry(s.entries[0]), /^no results yet · /);
  });

  test('the same date: ordered by the -N the file was named with', () => {
    const date = at(3, 3, 3);
    const [s] = evaluationHistory([
      { path: '/w/d.l-10.results.jsonl', header: header({ date }), results: results(1, 1) },
      { path: '/w/d.l-2.results.jsonl', header: header({ date }), results: results(1, 1) },
      { path: '/w/d.l.results.jsonl', header: header({ date }), results: results(1, 1) },
    ]);
    assert.deepEqual(
      s.entries.map(e => e.path),
      ['/w/d.l.results.jsonl', '/w/d.l-2.results.jsonl', '/w/d.l-10.results.jsonl'],
    );
  });
});

describe('the choices of Compare Evaluations', () => {
  // Evaluated, edited, evaluated again as a new evaluation: the later file is the one to preselect as B.
  const first = { path: '/w/d.l.results.jsonl', header: header({ date: at(26, 9, 5) }), results: results(5, 6) };
  const second = { path: '/w/d.l-2.results.jsonl', header: header({ date: at(26, 9, 40), sha: 'b'.repeat(64) }), results: results(6, 6) };
  const other = { path: '/w/e.l.results.jsonl', header: header({ date: at(26, 9, 20) }), results: [] };

  test('newest first, each row dated with its accuracy', () => {
    assert.deepEqual(comparisonChoices([first, other, second]), [
      { path: second.path, date: second.header.date, label: '2026-11-26 09:40 · 6/6 right (1.00)' },
      { path: other.path, date: other.header.date, label: '2026-11-26 09:20 · no results yet' },
      { path: first.path, date: first.header.date, label: '2026-11-26 09:05 · 5/6 right (0.83)' },
    ]);
  });

  test("A's choices: those made before B first (newest first), then those after it", () => {
    assert.deepEqual(
      comparisonChoices([first, second], other).map(c => c.path),
      [first.path, second.path],
    );
    assert.deepEqual(
      comparisonChoices([first, other], second).map(c => c.path),
      [other.path, first.path],
    );
  });

  test('A is the earlier evaluation and B the later, whatever the order given; the same date: by -N', () => {
    assert.deepEqual(earlierFirst(second, first), [first, second]);
    assert.deepEqual(earlierFirst(first, second), [first, second]);
    const same = { ...second, header: header({ date: first.header.date }) };
    assert.deepEqual(earlierFirst(same, first), [first, same]);
  });
});

describe('history helpers', () => {
  test('series keys, versions, changes and dates', () => {
    assert.equal(seriesKey('/w/data/arith.lib-12.results.jsonl'), '/w/data/arith.lib');
    assert.equal(seriesKey('/w/out.jsonl'), '/w/out');
    assert.equal(libraryVersion(null), null);
    assert.equal(libraryVersion(header({ date: at(1, 1, 1), sha: '3f2a9c1b'.padEnd(64, '0') })), '3f2a9c1b');
    assert.deepEqual([0.1, -0.1, 0.004, -0.004, 1].map(formatChange), ['+0.10', '−0.10', '±0.00', '±0.00', '+1.00']);
    assert.equal(formatHistoryDate(undefined), 'no date');
    assert.equal(formatHistoryDate('not a date'), 'no date');
    assert.equal(formatHistoryDate(at(5, 7, 9)), '2026-11-05 07:09');
  });

  test('readHistoryFiles reads headers and results, and names a file it cannot use instead of failing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'art-history-'));
    const good = join(dir, 'd.l.results.jsonl');
    writeFileSync(
      good,
      [JSON.stringify(header({ date: at(9, 9, 9) })), JSON.stringify(result('a', true)), JSON.stringify(result('b', false)), ''].join('\n'),
    );
    const started = join(dir, 'd.l-2.results.jsonl');
    writeFileSync(started, `${JSON.stringify(header({ date: at(9, 10, 0) }))}\n`);
    const empty = join(dir, 'e.l.results.jsonl');
    writeFileSync(empty, '');
    const { files, skipped } = readHistoryFiles([good, started, empty, join(dir, 'gone.results.jsonl')]);
    assert.deepEqual(
      files.map(f => [f.path, f.results.length, !!f.header, typeof f.modified]),
      [
        [good, 2, true, 'string'],
        [started, 0, true, 'string'],
      ],
    );
    assert.equal(skipped.length, 2);
    assert.match(skipped[0], /e\.l\.results\.jsonl: no results in the file/);
    assert.match(skipped[1], /gone\.results\.jsonl: cannot read the results \(ENOENT\)/);
    const [s] = evaluationHistory(files);
    assert.deepEqual(
      s.entries.map(e => [e.accuracy, e.n]),
      [
        [0.5, 2],
        [null, 0],
      ],
    );
  });
});

describe('resultsFileReport', () => {
  test("a past evaluation's report: names from its header, results in the dataset's order, the dataset's count", () => {
    const dir = mkdtempSync(join(tmpdir(), 'art-history-report-'));
    const data = join(dir, 'arithmetic.jsonl');
    writeFileSync(data, ['a', 'b', 'c'].map(id => JSON.stringify({ id, input: `q ${id}`, target: '1' })).join('\n') + '\n');
    const path = join(dir, 'arithmetic.library.results.jsonl');
    const h = { ...header({ date: at(2, 2, 2) }), data: { path: 'arithmetic.jsonl', sha256: 'd'.repeat(64) } };
    // Written in the order the examples finished; one not done (the evaluation was stopped).
    writeFileSync(path, [h, result('c', true, { trace: 'runs/c.jsonl' }), result('a', false)].map(x => JSON.stringify(x)).join('\n') + '\n');
    const report = resultsFileReport(path, p => p.replace(`${dir}/`, ''));
    assert.deepEqual(
      [report.library, report.data, report.results, report.total, report.stopped],
      [join(dir, '..', 'library.art'), 'arithmetic.jsonl', 'arithmetic.library.results.jsonl', 3, true],
    );
    assert.deepEqual(
      report.rows.map(r => [r.id, r.exact, r.trace]),
      [
        ['a', false, undefined],
        ['c', true, join(dir, 'runs/c.jsonl')],
      ],
    );
    assert.match(report.summaryLines[0], /1\/2 = 50\.0%/);
  });

  /** A results file of 3 examples with 1 done, and its dataset, in a folder of its own. */
  const partial = () => {
    const dir = mkdtempSync(join(tmpdir(), 'art-history-running-'));
    writeFileSync(join(dir, 'data.jsonl'), ['a', 'b', 'c'].map(id => JSON.stringify({ id, input: `q ${id}`, target: '1' })).join('\n') + '\n');
    const path = join(dir, 'data.library.results.jsonl');
    const h = { ...header({ date: at(2, 2, 2) }), data: { path: 'data.jsonl', sha256: 'd'.repeat(64) } };
    writeFileSync(path, [h, result('a', true)].map(x => JSON.stringify(x)).join('\n') + '\n');
    return path;
  };

  test('an evaluation still writing the file (its lock held by a live process) is running, not stopped; once it lets go, stopped', () => {
    const path = partial();
    const writer = ResultsFile.open(path, () => {});
    try {
      const report = resultsFileReport(path, p => p);
      assert.equal(report.stopped, false);
      assert.equal(report.running?.pid, process.pid);
      assert.equal(report.rows.length, 1);
    } finally {
      writer.close();
    }
    const after = resultsFileReport(path, p => p);
    assert.deepEqual([after.stopped, after.running], [true, undefined]);
  });

  test('the lock left by a killed evaluation does not say running: stopped', () => {
    const path = partial();
    // A process that has ended: its pid is free (a reused pid is told apart by its start time, where /proc has it).
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    writeFileSync(lockPathOf(path), `${JSON.stringify({ pid: Number(gone.stdout), started: at(2, 2, 2), nonce: 'feedfacefeedface' })}\n`);
    const report = resultsFileReport(path, p => p);
    assert.deepEqual([report.stopped, report.running], [true, undefined]);
  });

  test('a file from before headers: the results as they are, the library and data not recorded', () => {
    const dir = mkdtempSync(join(tmpdir(), 'art-history-report-'));
    const path = join(dir, 'old.results.jsonl');
    writeFileSync(path, `${JSON.stringify(result('x', true))}\n`);
    const report = resultsFileReport(path, p => p);
    assert.deepEqual([report.library, report.data, report.total, report.stopped], ['(library not recorded)', '(data not recorded)', 1, false]);
  });
});
