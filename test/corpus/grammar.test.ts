// The corpus suite: the TextMate grammars and the language core agree on every corpus file (part 2 of the grammar
// suite, test/grammar/run.mjs, run over the corpus instead of the fixtures).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { CORPUS, requireCorpus } from '../support/corpus';

requireCorpus();

test('the grammars and the core agree on every .art and .agent file of the corpus', () => {
  const root = join(__dirname, '../..');
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'test/grammar/run.mjs', '--corpus', CORPUS], {
    cwd: root,
    encoding: 'utf8',
    timeout: 300_000,
  });
  const out = `${r.stdout}${r.stderr}`;
  assert.equal(r.status, 0, out);
  const m = /^grammar: (\d+) passed, 0 failed$/m.exec(out);
  assert.ok(m && Number(m[1]) >= 30, `expected every corpus file checked:\n${out}`);
});
