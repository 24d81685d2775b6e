// `art diff` (in-process, test/support/cli.ts): two traces of the same program, one with an overridden tool output,
// compared step by step; exit 0; one-line errors for files that are not traces, the same as every other reader of
// traces gives (the trace schema, core/trace/schema.ts).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parseArt } from '../../core/art/parse';
import { ReplayModel } from '../../core/replay/programReplay';
import { createArtRunner } from '../../core/launch/create';
import { MemoryTrace } from '../../core/trace/trace';
import { fakeTool, fixturePath, withTools } from '../support/runs';
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

  test('a record the trace schema refuses: art diff refuses it as art run --from, art run and art prompt do, in the same line', async () => {
    const good = await trace('schema-ok.jsonl', null);
    const lines = readFileSync(good, 'utf8').trimEnd().split('\n');
    // A tool record whose call has no id: the loose history reader took it, the schema does not.
    const at = lines.findIndex(l => JSON.parse(l).t === 'tool');
    assert.ok(at > 0);
    const record = JSON.parse(lines[at]);
    delete record.call.id;
    lines[at] = JSON.stringify(record);
    const bad = join(tmp, 'schema-bad.jsonl');
    writeFileSync(bad, `${lines.join('\n')}\n`);
    const expected = `${bad}:${at + 1}: a "tool" record with a bad "call.id": expected number, received undefined: give a run's .jsonl trace (written with --trace or kept in .art/runs)`;

    const diff = await art('diff', good, bad);
    assert.equal(diff.code, 2, diff.stdout);
    assert.equal(diff.stderr, `art diff: ${expected}\n`);
    const program = fixturePath('programs/arithmetic.art');
    for (const [args, command] of [
      [['run', program, '--task', 'Elementary Math', '--from', bad], 'art run'],
      [['run', bad], 'art run'],
      [['prompt', bad], 'art prompt'],
    ] as const) {
      const r = await art(...args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stdout}`);
      assert.equal(r.stderr.trim().split('\n').at(-1), `${command}: ${expected}`, args.join(' '));
    }
  });
});
