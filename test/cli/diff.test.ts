// `art diff` as users run it (dist/cli.js): two traces of the same program, one with an overridden tool output,
// compared step by step; exit 0; one-line errors for files that are not traces.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { parseArt } from '../../core/art/parse';
import { ReplayModel } from '../../core/replay/programReplay';
import { createArtRunner } from '../../core/engine/create';
import { MemoryTrace } from '../../core/trace/trace';
import { fakeTool, fixturePath, withTools } from '../core/runner/helpers';

const CLI = resolve(__dirname, '../../dist/cli.js');
const art = (...args: string[]) => {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
};
const tmp = mkdtempSync(join(tmpdir(), 'art-cli-diff-'));

/** A trace of the arithmetic fixture's first program, replayed with `code execute` overridden to `output`. */
async function trace(name: string, output: string | null): Promise<string> {
  const doc = parseArt(readFileSync(fixturePath('programs/arithmetic.art'), 'utf8'));
  const tools = withTools(
    { get: () => undefined },
    {
      'generate python code': fakeTool('generate python code', () => ({ ok: true, output: 'ans = 18\nprint(ans)' })),
      'code execute': fakeTool('code execute', () => ({ ok: true, output: '18' })),
    },
  );
  const sink = new MemoryTrace();
  const model = ReplayModel.fromArtProgram(doc, 0, n => tools.get(n) !== undefined);
  const runner = createArtRunner({ library: doc, program: 0 }, { model, tools, trace: sink, pauseAfterTool: true });
  runner.on('paused', ({ call }) => {
    if (output !== null && call?.tool === 'code execute') runner.setToolOutput(output);
    runner.continue();
  });
  await runner.run();
  const path = join(tmp, name);
  writeFileSync(path, sink.toJSONL());
  return path;
}

describe('art diff', () => {
  test('prints the steps that differ (the overridden output) and the ones that are the same; exit 0', async () => {
    const a = await trace('a.jsonl', null);
    const b = await trace('b.jsonl', '7');
    const r = art('diff', a, b);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, new RegExp(`^--- ${a.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(art, `));
    assert.match(r.out, /^Q1 \[generate python code\]: same$/m);
    assert.match(r.out, /^Q2 \[code execute\]: differs\n {2}output:\n {2}- 18\n {2}\+ 7$/m);
    assert.match(art('diff', a, a).out.trim().split('\n').pop()!, /^0 of [1-9]\d* step\(s\) differ; the answers are the same\.$/);
  });

  test('bad files: one line naming the file and the fix, exit 2', async () => {
    const a = await trace('ok.jsonl', null);
    const notJson = join(tmp, 'notes.txt');
    writeFileSync(notJson, 'hello\n');
    const noRun = join(tmp, 'norun.jsonl');
    writeFileSync(noRun, '{"t":"chunk","n":1,"text":"x"}\n');
    for (const [args, pattern] of [
      [[a, join(tmp, 'missing.jsonl')], /^art diff: .*missing\.jsonl: cannot read the file \(ENOENT\): give a run's \.jsonl trace\n$/],
      [[notJson, a], /^art diff: .*notes\.txt:1: not JSON: .*give a run's \.jsonl trace/],
      [[a, noRun], /^art diff: .*norun\.jsonl: no "run" record: give a run's \.jsonl trace/],
      [[a], /^art diff: give two run traces: art diff TRACE_A TRACE_B\n$/],
    ] as const) {
      const r = art('diff', ...args);
      assert.equal(r.code, 2, r.out);
      assert.match(r.err, pattern);
      assert.equal(r.err.trim().split('\n').length, 1);
    }
  });
});
