// `art prompt` (in-process, test/support/cli.ts): the exact prompt of a run with its
// demonstrations and why each was chosen, without running anything; the prompt a trace recorded; and one-line errors.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROMPT_MARKER } from '../../core/prompt/promptReport';
import { fixturePath } from '../support/runs';
import { runCli } from '../support/cli';

const PROGRAM = fixturePath('programs/arithmetic.art');
const work = mkdtempSync(join(tmpdir(), 'art-cli-prompt-'));

const art = (args: string[]) => runCli(args, { cwd: work });

describe('art prompt', () => {
  test('prints the prompt exactly, after the demonstrations and why each was chosen; runs nothing', async () => {
    const trace = join(work, 'never.jsonl');
    const r = await art(['prompt', PROGRAM, '--task', 'Elementary Math', '--select', 'similar', '--trace', trace]);
    // --trace is not an option of art prompt: a run that does not run writes no trace.
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^art prompt: Unknown option '--trace'/);

    const ok = await art(['prompt', PROGRAM, '--task', 'Elementary Math', '--select', 'similar']);
    assert.equal(ok.code, 0, ok.stderr);
    const out = ok.stdout;
    assert.match(out, /^Prompt of Elementary Math · arithmetic\.art\n/);
    assert.match(
      out,
      /\nDemonstrations \(\d+\), in prompt order:\n1\. Aqua-rat \(arithmetic\.art:\d+, program 0\)\n {3}why: similar: rank \d+, BM25 score [\d.]+, shared terms: /,
    );
    // The other libraries of the folder are candidates of `similar`, each named with its file.
    assert.match(out, /\((?!arithmetic\.art)[\w.-]+\.art:\d+, program \d+\)\n {3}why: similar: /);
    const prompt = out.slice(out.indexOf(`${PROMPT_MARKER}\n`) + PROMPT_MARKER.length + 1);
    assert.match(prompt, /^In these examples, you are given a task description/);
    assert.match(prompt, /\nDescription: \(Elementary Math\)[^\n]*\nInput: [^\n]*\nQ1:\n$/);
    // Not run: no program text after the prompt.
    assert.ok(!out.includes('generated so far'));
  });

  test('--json gives the report as data; the prompt of the same run is the same', async () => {
    const r = await art(['prompt', PROGRAM, '--task', '1', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.equal(report.kind, 'art');
    assert.deepEqual(
      report.demonstrations.map((d: { title: string; why: unknown }) => [d.title, d.why]),
      [['Aqua-rat', { strategy: 'same-file' }]],
    );
    assert.ok(report.prompt.endsWith(report.header));
    const text = (await art(['prompt', PROGRAM, '--task', '1'])).stdout;
    assert.ok(text.endsWith(`${PROMPT_MARKER}\n${report.prompt}\n`));
  });

  test('a trace: the prompt it recorded, the reasons, and what the model wrote after it', async () => {
    const trace = join(work, 'ducks.jsonl');
    const run = await art(['run', PROGRAM, '--task', '1', '--mode', 'replay', '--trace', trace, '--quiet']);
    assert.equal(run.code, 0, run.stderr);
    const r = await art(['prompt', trace]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Prompt of ducks\.jsonl\n/);
    assert.match(r.stdout, /why: same-file: a program of the library being run\n/);
    assert.match(r.stdout, /\n======== generated so far[^\n]*\n[\s\S]*\nAns: 18\n?$/);
    const recorded = JSON.parse(readFileSync(trace, 'utf8').split('\n')[0]);
    assert.ok(r.stdout.includes(`${PROMPT_MARKER}\n${recorded.prompt}\n`));
  });

  test('errors are one line naming the fix', async () => {
    const r = await art(['prompt', PROGRAM, '--task', 'Nope']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^art prompt: no task named "Nope": the file has 0: Aqua-rat, 1: Elementary Math/);
    const none = await art(['prompt']);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /^art prompt: give exactly one file\nusage: art prompt FILE/);
    const llm = await art(['prompt', PROGRAM, '--select', 'llm']);
    assert.equal(llm.code, 2);
    assert.match(llm.stderr, /select "llm" asks the model: run in generate mode/);
  });
});
