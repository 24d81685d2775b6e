// examples/data/hard-word-problems.jsonl is what scripts/hard-word-problems.mjs writes from its templates and seed
// (targets computed, never typed), and no library or prompt in examples/ contains one of its inputs: the set measures
// a model on problems it was never shown.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, test } from 'node:test';

const ROOT = join(__dirname, '../../..');
const FILE = join(ROOT, 'examples/data/hard-word-problems.jsonl');
const rows = readFileSync(FILE, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map(line => JSON.parse(line) as { id: string; input: string; target: string });
const check = (...extra: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'scripts/hard-word-problems.mjs', '--check', ...extra], { cwd: ROOT, encoding: 'utf8' });

describe('the hard word problems', () => {
  test('at least 48 problems with distinct ids, each {id, input, target} with a whole-number target', () => {
    assert.ok(rows.length >= 48, `${rows.length} problems`);
    assert.equal(new Set(rows.map(r => r.id)).size, rows.length);
    for (const r of rows) {
      assert.deepEqual(Object.keys(r), ['id', 'input', 'target']);
      assert.match(r.target, /^\d+$/, r.id);
    }
  });

  test('the file is what the script writes (same seed, same bytes)', () => {
    const r = check();
    assert.equal(r.status, 0, r.stderr);
  });

  test('the check fails on a file that differs, naming it and the fix', () => {
    const copy = join(mkdtempSync(join(tmpdir(), 'art-hard-')), 'hard.jsonl');
    writeFileSync(
      copy,
      readFileSync(FILE, 'utf8').replace(/"target":"(\d+)"/, (_, t: string) => `"target":"${Number(t) + 1}"`),
    );
    const r = check(`--file=${copy}`);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /hard\.jsonl differs from what the script writes: run node --import tsx scripts\/hard-word-problems\.mjs/);
  });

  test('no library or prompt in examples/ contains one of its inputs', () => {
    const files: string[] = [];
    (function walk(dir: string) {
      for (const name of readdirSync(dir)) {
        const p = join(dir, name);
        if (statSync(p).isDirectory()) {
          if (p !== join(ROOT, 'examples/data')) walk(p);
        } else files.push(p);
      }
    })(join(ROOT, 'examples'));
    assert.ok(files.some(f => f.endsWith('tools.art')) && files.some(f => f.endsWith('cot.art')));
    const leaks = files.flatMap(f => {
      const text = readFileSync(f, 'utf8');
      return rows.filter(r => text.includes(r.input)).map(r => `${relative(ROOT, f)} contains ${r.id}`);
    });
    assert.deepEqual(leaks, []);
  });
});
