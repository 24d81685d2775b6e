// `art diff` (in-process, test/support/cli.ts): two traces of the same program, one with an overridden tool output,
// compared step by step; exit 0; one-line errors for files that are not traces.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parseArt } from '../../core/art/parse';
import { ReplayModel } from '../../core/replay/programReplay';
import { createArtRunner } from '../../core/engine/create';
import { MemoryTrace } from '../../core/trace/trace';
import { fakeTool, fixturePath, withTools } from '../core/runner/helpers';
import { runCli } from '../support/cli';

const art = (...args: string[]) => runCli(args);
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
    const r = await art('diff', a, b);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^--- ${a.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(art, `));
    assert.match(r.stdout, /^Q1 \[generate python code\]: same$/m);
    assert.match(r.stdout, /^Q2 \[code execute\]: differs\n {2}output:\n {2}- 18\n {2}\+ 7$/m);
    assert.match((await art('diff', a, a)).stdout.trim().split('\n').pop()!, /^0 of [1-9]\d* step\(s\) differ; the answers are the same\.$/);
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
      const r = await art('diff', ...args);
      assert.equal(r.code, 2, r.stdout);
      assert.match(r.stderr, pattern);
      assert.equal(r.stderr.trim().split('\n').length, 1);
    }
  });
});
