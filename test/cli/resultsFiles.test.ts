// Results files that are not what art eval writes (issue 37, item 6), in process: a first line that says it is a
// results header but lacks its fields is one line naming the file and the fix, for every command that reads one
// (compare, eval resuming it, the evaluations' history), never an internal error; a last line too long to be a
// result is found by reading a bounded window from the end, and said, the file left as it was.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCli } from '../support/cli';
import { readHistoryFiles } from '../../core/evaluation/history';
import { MAX_RESULT_LINE_BYTES } from '../../core/evaluation/resultsFile';

const ROOT = resolve(__dirname, '../..');
const work = mkdtempSync(join(tmpdir(), 'art-results-files-'));
const data = join(work, 'data.jsonl');
writeFileSync(data, '{"input": "1 + 1", "target": "2"}\n');
const WHOLE = {
  id: '1',
  input: '1 + 1',
  target: '2',
  answer: '2',
  exact: true,
  substring: true,
  toolCalls: 0,
  tokens: { prompt: 10, completion: 2 },
  requests: 1,
  durationMs: 5,
  end: 'finished',
  error: null,
};
const RESULT = JSON.stringify(WHOLE);
const GOOD_HEADER = JSON.stringify({
  kind: 'art-evaluation',
  version: 1,
  date: '2025-01-02T03:04:05.000Z',
  library: { path: 'lib.art', sha256: 'a'.repeat(64) },
  data: { path: 'data.jsonl', sha256: 'd'.repeat(64) },
  model: 'm',
  endpoint: 'http://127.0.0.1:8000/v1',
  options: { api: 'completions', select: 'same-file', samples: 1, constrain: 'off', inlineTriggers: false },
});
const MALFORMED = {
  'no fields': { kind: 'art-evaluation' },
  'library null': { ...JSON.parse(GOOD_HEADER), library: null },
  'options a string': { ...JSON.parse(GOOD_HEADER), options: 'x' },
  'data without its hash': { ...JSON.parse(GOOD_HEADER), data: { path: 'd.jsonl' } },
};
const file = (name: string, lines: string[]) => {
  const path = join(work, name);
  writeFileSync(path, lines.map(l => `${l}\n`).join(''));
  return path;
};
const good = file('good.results.jsonl', [GOOD_HEADER, RESULT]);
/** `art eval` that would resume `out` (its endpoint is never reached: the file is refused first). */
const evalInto = (out: string) =>
  runCli([
    'eval',
    join(ROOT, 'examples/library.art'),
    '--data',
    data,
    '--task',
    'Elementary Math',
    '--base-url',
    'http://127.0.0.1:9/v1',
    '--model',
    'm',
    '--out',
    out,
    '--resume',
  ]);

describe('results files that are not what art eval writes (issue 37, item 6)', () => {
  for (const [what, header] of Object.entries(MALFORMED))
    test(`a malformed header (${what}) is one line naming the file and the fix: compare, eval, the history`, async () => {
      const bad = file(`bad-${what.replace(/ /g, '-')}.results.jsonl`, [JSON.stringify(header), RESULT]);
      for (const r of [await runCli(['compare', bad, good]), await runCli(['compare', good, bad]), await evalInto(bad)]) {
        assert.equal(r.code, 2, r.stderr);
        const lines = r.stderr.trim().split('\n');
        assert.equal(lines.length, 1, r.stderr);
        assert.ok(lines[0].includes(bad), r.stderr);
        assert.match(lines[0], /results header.*give a results file written by art eval/);
      }
      const { files, skipped } = readHistoryFiles([bad, good]);
      assert.deepEqual(
        files.map(f => f.path),
        [good],
      );
      assert.match(skipped[0], /results header/);
    });

  const BROKEN = {
    'no input': { ...WHOLE, input: undefined },
    'an input that is an object': { ...WHOLE, input: { text: '1 + 1' } },
    'no tokens': { ...WHOLE, tokens: undefined },
    'a trace that is a number': { ...WHOLE, trace: 5 },
  };
  for (const [what, result] of Object.entries(BROKEN))
    test(`a result line (${what}) that says it is one but is not whole is one line naming the file, its line and the fix`, async () => {
      // Before: an internal error (exit 3) in compare (reading the input) and in eval resuming it (counting the tokens).
      const bad = file(`bad-result-${what.replace(/ /g, '-')}.results.jsonl`, [GOOD_HEADER, JSON.stringify(result)]);
      for (const r of [await runCli(['compare', bad, good]), await runCli(['compare', good, bad]), await evalInto(bad)]) {
        assert.equal(r.code, 2, r.stderr);
        const lines = r.stderr.trim().split('\n');
        assert.equal(lines.length, 1, r.stderr);
        assert.ok(lines[0].includes(`${bad}:2:`), r.stderr);
        assert.match(lines[0], /a result .*give a results file written by art eval/);
      }
      assert.match(readHistoryFiles([bad, good]).skipped[0], new RegExp(`${bad.replace(/[.]/g, '\\.')}:2: a result`));
    });

  test('a last line longer than a result can be is found from a bounded window at the end, and said; the file is left as it was', async () => {
    const long = join(work, 'long-tail.results.jsonl');
    writeFileSync(long, `${GOOD_HEADER}\n${RESULT}\n${'x'.repeat(MAX_RESULT_LINE_BYTES + 4096)}`);
    const before = readFileSync(long);
    const r = await evalInto(long);
    assert.equal(r.code, 2, r.stderr);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0], /long-tail\.results\.jsonl: its last line is longer than \d+ MB/);
    assert.ok(readFileSync(long).equals(before), 'the file changed');
    assert.equal(statSync(long).size, before.length);
  });
});
