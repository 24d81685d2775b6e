// "Show Prompt" in core: task selection gives each demonstration its reason, the runner writes the prompt and the
// reasons into the trace's `run` record (checked by the trace schema), and the report shows them with the prompt
// exactly as sent, for a run prepared and not run, and for a recorded trace.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArt } from '../../../core/art/parse';
import { createArtRunner } from '../../../core/launch/create';
import { promptOfRun } from '../../../core/launch/promptOfRun';
import { buildArtPrompt } from '../../../core/prompt/prompt';
import { describeWhy, formatPromptReport, PROMPT_MARKER, promptReportFromTrace } from '../../../core/prompt/promptReport';
import { selectDemonstrations } from '../../../core/prompt/selection';
import { chooseDemonstrations } from '../../../core/evaluation/taskSelection';
import { MemoryTrace, parseTrace } from '../../../core/trace/trace';
import { traceRecordProblem } from '../../../core/trace/schema';
import { answeringModel } from '../../support/fakeModels';
import { DUCKS, fakeTool, fixturePath, runWithoutPauses } from '../../support/runs';

const LIB = `Preamble.

Description: (Sum) Add the numbers.
Input: 2 and 3
Q1: [EOQ]
Ans: 5
----
Description: (Reverse) Reverse the word.
Input: abc
Q1: [EOQ]
Ans: cba
----
Description: (Capital) Name the capital city.
Input: France
Q1: [EOQ]
Ans: Paris
`;

describe('task selection says why', () => {
  const lib = parseArt(LIB);

  test('same-file: every program of the library, each "same-file"', () => {
    const demos = selectDemonstrations([lib], { input: 'x' }, { exclude: [1] });
    assert.deepEqual(
      demos.map(d => [d.index, d.why]),
      [
        [0, { strategy: 'same-file' }],
        [2, { strategy: 'same-file' }],
      ],
    );
    assert.equal(describeWhy(demos[0].why), 'same-file: a program of the library being run');
  });

  test('similar: the rank, the BM25 score and the shared terms; a program no term matched fills up with rank null', () => {
    const demos = selectDemonstrations(
      [lib],
      { taskName: 'Capital', description: 'Name the capital city.', input: 'Kenya' },
      { strategy: 'similar', k: 2 },
    );
    const capital = demos.find(d => d.index === 2)!;
    assert.equal(capital.why?.strategy, 'similar');
    if (capital.why?.strategy !== 'similar') return;
    assert.equal(capital.why.rank, 1);
    assert.ok(capital.why.score > 0);
    assert.deepEqual(capital.why.terms, ['capital', 'city', 'name', 'the']);
    // "the" is shared with "Reverse the word" too: it ranks second; nothing shared with Sum.
    const other = demos.find(d => d.index !== 2)!;
    assert.equal(other.index, 1);
    assert.deepEqual(other.why, { strategy: 'similar', score: other.why?.strategy === 'similar' ? other.why.score : -1, terms: ['the'], rank: 2 });
    const none = selectDemonstrations([lib], { input: 'zzz qqq' }, { strategy: 'similar', k: 2 });
    assert.deepEqual(
      none.map(d => d.why),
      [
        { strategy: 'similar', score: 0, terms: [], rank: null },
        { strategy: 'similar', score: 0, terms: [], rank: null },
      ],
    );
    assert.match(describeWhy(capital.why), /^similar: rank 1, BM25 score \d+\.\d\d, shared terms: capital, city, name, the$/);
    assert.equal(describeWhy(none[0].why), 'similar: no shared term; fills the prompt up to k in file order');
  });

  test('chooseDemonstrations names the file of each demonstration', async () => {
    const other = parseArt('Description: (Capital) Capitals.\nInput: Peru\nQ1: [EOQ]\nAns: Lima\n');
    const demos = await chooseDemonstrations({
      strategy: 'similar',
      libraries: [
        { path: '/x/a.art', doc: lib },
        { path: '/x/b.art', doc: other },
      ],
      task: { taskName: 'Capital', input: 'Chile' },
      k: 2,
    });
    assert.deepEqual(
      demos.map(d => [d.file, d.index]),
      [
        ['/x/a.art', 2],
        ['/x/b.art', 0],
      ],
    );
  });
});

describe('the prompt and the reasons in the trace', () => {
  const lib = parseArt(LIB);
  const tools = { get: (n: string) => (n === 'x' ? fakeTool('x', () => ({ ok: true, output: '' })) : undefined) };

  test('the run record holds the demonstrations with their lines and reasons; the schema accepts it', async () => {
    const demos = selectDemonstrations([lib], { input: 'Kenya' }, { exclude: [2] });
    const trace = new MemoryTrace();
    const model = answeringModel(() => ' [EOQ]\nAns: Nairobi');
    const runner = createArtRunner({ library: lib, program: 2, demonstrations: demos }, { model, tools, trace });
    await runWithoutPauses(runner);
    const run = trace.records.find(r => r.t === 'run');
    assert.ok(run && run.t === 'run');
    assert.deepEqual(run.demonstrations, [
      { index: 0, title: 'Sum', line: 3, why: { strategy: 'same-file' } },
      { index: 1, title: 'Reverse', line: 8, why: { strategy: 'same-file' } },
    ]);
    assert.equal(run.prompt, buildArtPrompt(lib, { taskName: 'Capital', description: 'Name the capital city.', input: 'France' }, demos).prompt);
    for (const r of trace.records) assert.equal(traceRecordProblem(JSON.parse(JSON.stringify(r))), null, r.t);
  });

  test('the schema names a reason that is not one', () => {
    const run = {
      t: 'run',
      kind: 'art',
      prompt: 'p',
      header: 'h',
      demonstrations: [{ index: 0, title: 'T', line: 1, why: { strategy: 'llm', pYes: 0.5 } }],
    };
    assert.match(traceRecordProblem(run) ?? '', /^a "run" record with a bad "demonstrations\.0\.why/);
    const bad = { ...run, demonstrations: [{ index: 0, title: 'T', line: 1, why: { strategy: 'guess' } }] };
    assert.match(traceRecordProblem(bad) ?? '', /demonstrations\.0\.why/);
    const ok = { ...run, demonstrations: [{ index: 0, title: 'T', line: 1, why: { strategy: 'llm', pYes: 0.5, answer: 'Yes', logprob: -0.69 } }] };
    assert.equal(traceRecordProblem(ok), null);
  });
});

describe('the prompt report', () => {
  const work = mkdtempSync(join(tmpdir(), 'art-prompt-'));

  test('a run prepared and not run: the prompt exactly, the demonstrations with where and why', async () => {
    const report = await promptOfRun({ program: fixturePath('programs/arithmetic.art'), task: DUCKS, mode: 'replay', trusted: true });
    assert.equal(report.kind, 'art');
    assert.equal(report.title, 'Elementary Math');
    assert.equal(report.demonstrations?.length, 1);
    const d = report.demonstrations![0];
    assert.equal(d.file, fixturePath('programs/arithmetic.art'));
    assert.equal(d.title, 'Aqua-rat');
    assert.deepEqual(d.why, { strategy: 'same-file' });
    const lines = readFileSync(fixturePath('programs/arithmetic.art'), 'utf8').split('\n');
    assert.match(lines[d.line - 1], /^Description: \(Aqua-rat\)/, 'the line is where the program starts');
    assert.ok(report.prompt.endsWith(report.header) && report.header.endsWith('Q1:'));
    assert.equal(report.generated, undefined, 'nothing ran');

    const text = formatPromptReport(report);
    assert.match(text, /^Prompt of Elementary Math · arithmetic\.art\n/);
    assert.match(text, /\n1\. Aqua-rat \(arithmetic\.art:\d+, program 0\)\n {3}why: same-file: a program of the library being run\n/);
    // Everything after the marker is the prompt, character for character.
    assert.equal(text.slice(text.indexOf(`${PROMPT_MARKER}\n`) + PROMPT_MARKER.length + 1), `${report.prompt}\n`);
  });

  test("a trace: the prompt and reasons it recorded, and what the model wrote; the same as the run's", async () => {
    const trace = join(work, 'ducks.jsonl');
    const { prepareRun } = await import('../../../core/launch/launch');
    const run = await prepareRun({
      program: fixturePath('programs/arithmetic.art'),
      task: DUCKS,
      mode: 'replay',
      trusted: true,
      trace,
      select: 'similar',
      pauseAfterTool: false,
      pauseOnToolError: false,
    });
    await runWithoutPauses(run.runner);
    await run.dispose();
    const fromTrace = await promptOfRun({ program: trace, trusted: true });
    const prepared = await promptOfRun({
      program: fixturePath('programs/arithmetic.art'),
      task: DUCKS,
      mode: 'replay',
      trusted: true,
      select: 'similar',
    });
    assert.equal(fromTrace.prompt, prepared.prompt);
    assert.deepEqual(fromTrace.demonstrations, prepared.demonstrations);
    assert.ok(fromTrace.demonstrations!.every(d => d.why?.strategy === 'similar'));
    assert.match(fromTrace.generated ?? '', /Ans: 18/);
    assert.match(formatPromptReport(fromTrace), /\n======== generated so far[^\n]*\n[\s\S]*Ans: 18\n$/);

    // A trace whose run record holds no reasons (an older writer) still shows its prompt.
    const records = parseTrace(readFileSync(trace, 'utf8')).records.map(r => (r.t === 'run' ? { ...r, demonstrations: undefined } : r));
    const old = join(work, 'old.jsonl');
    writeFileSync(old, records.map(r => JSON.stringify(r)).join('\n'));
    const report = await promptOfRun({ program: old, trusted: true });
    assert.equal(report.demonstrations, undefined);
    assert.equal(report.prompt, prepared.prompt);
    assert.throws(() => promptReportFromTrace([{ t: 'end' }]), /no "run" record/);
  });
});
