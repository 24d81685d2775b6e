// `art eval` with concurrency against llama-server (two slots) on the project's word problems, and the request cache:
// a run given the trace of an earlier one (`--from`) sends the server nothing and ends the same. What holds for any
// model is asserted: every example ends with an answer or an error, two examples were decoded at once, a cached run
// is the recorded one.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TraceRecord } from '../../core/trace/schema';
import { LLAMA_MODEL, jsonLinesOf, llamaServerForTests } from '../support/llamaServer';
import { runCli } from '../support/cli';

const ROOT = resolve(__dirname, '../..');
const LIBRARY = join(ROOT, 'examples/art-vs-cot/tools.art');
const work = mkdtempSync(join(tmpdir(), 'art-llama-eval-'));
const lines = (path: string) => jsonLinesOf(path);

describe('llama-server: art eval and the request cache', () => {
  const t = llamaServerForTests({ before, after }, { parallel: 2 });

  test('art eval --concurrency 2: every example scored or failed with a reason, two at once at the server', async () => {
    const data = join(work, 'four.jsonl');
    writeFileSync(data, readFileSync(join(ROOT, 'examples/data/word-problems.jsonl'), 'utf8').split('\n').slice(0, 4).join('\n') + '\n');
    const out = join(work, 'four.results.jsonl');
    const r = await runCli(
      [
        'eval',
        LIBRARY,
        ...['--data', data, '--task', 'Elementary Math', '--base-url', t.proxy.baseURL, '--model', LLAMA_MODEL],
        ...['--temperature', '0', '--max-tokens', '64', '--concurrency', '2', '--out', out, '--runs', join(work, 'runs')],
      ],
      { cwd: work },
    );
    assert.equal(r.code, 0, r.stderr);
    const results = lines(out).filter(l => l.kind !== 'art-evaluation');
    assert.equal(results.length, 4);
    for (const x of results) {
      assert.ok(typeof x.answer === 'string' || x.error, JSON.stringify(x));
      assert.equal(typeof x.exact, 'boolean');
    }
    assert.equal(t.proxy.maxInFlight, 2, 'two examples decoded at once');
    assert.match(r.stdout, /exact/);
  });

  test('--from: a run given its own trace is answered from it, the server asked nothing, the same program', async () => {
    const args = [
      'run',
      LIBRARY,
      ...['--task', '0', '--input', 'A shop sells 48 shirts on Monday and twice as many on Tuesday. How many shirts does it sell?'],
      ...['--base-url', t.proxy.baseURL, '--model', LLAMA_MODEL, '--temperature', '0', '--max-tokens', '64'],
    ];
    const first = join(work, 'first.jsonl');
    const again = join(work, 'again.jsonl');
    const a = await runCli([...args, '--trace', first], { cwd: work });
    const sent = t.proxy.completions.length;
    const b = await runCli([...args, '--from', first, '--trace', again], { cwd: work });
    assert.equal(t.proxy.completions.length, sent, 'no request reached the server');
    const end = (path: string) => (lines(path) as TraceRecord[]).find(x => x.t === 'end') as Extract<TraceRecord, { t: 'end' }>;
    assert.equal(end(again).text, end(first).text);
    assert.equal(end(again).answer, end(first).answer);
    const completions = (lines(again) as TraceRecord[]).filter(x => x.t === 'completion' || x.t === 'toolRequest');
    assert.ok(completions.length >= 1);
    assert.ok(
      completions.every(x => (x.t === 'completion' || x.t === 'toolRequest') && x.cached),
      'every answer from the cache',
    );
    assert.equal(b.code, a.code);
  });
});
