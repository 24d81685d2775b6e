// The run history (core/trace/history.ts) and the comparison of two runs (core/replay/diff.ts), on traces of real
// runs: the arithmetic fixture replayed with stand-in tools (no Python) and ReACT transcripts through the monitor.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArt } from '../../../core/art/parse';
import { compileAgent } from '../../../core/agent/compile';
import { parseAgentFile } from '../../../core/agent/parse';
import { ReplayModel } from '../../../core/replay/programReplay';
import { createAgentRunner, createArtRunner } from '../../../core/launch/create';
import { alignRuns, diffReport, diffRuns, renderRun, runView } from '../../../core/replay/diff';
import {
  deleteRun,
  historyTree,
  listRuns,
  newRunId,
  prepareRunsFolder,
  programOfRun,
  readRecords,
  runFiles,
  runLabel,
  runsFolderProblem,
  summarize,
  writeSummary,
  type LooseRecord,
} from '../../../core/trace/history';
import { MemoryTrace } from '../../../core/trace/trace';
import { fakeTool, fixturePath, runWithoutPauses, withTools } from '../../support/runs';

const none = { get: () => undefined };

/** The arithmetic fixture's "Elementary Math" program replayed; code execute answers `answer`. */
async function artRun(answer: string): Promise<LooseRecord[]> {
  const doc = parseArt(readFileSync(fixturePath('programs/arithmetic.art'), 'utf8'));
  const index = doc.programs.findIndex(p => /Elementary Math/.test(JSON.stringify(p.description)));
  assert.ok(index >= 0);
  const tools = withTools(none, {
    'generate python code': fakeTool('generate python code', () => ({ ok: true, output: 'ans = 18\nprint(ans)' })),
    'code execute': fakeTool('code execute', () => ({ ok: true, output: answer })),
  });
  const trace = new MemoryTrace();
  const model = ReplayModel.fromArtProgram(doc, index, name => tools.get(name) !== undefined);
  await runWithoutPauses(createArtRunner({ library: doc, program: index }, { model, tools, trace, pauseAfterTool: false }));
  return trace.records as unknown as LooseRecord[];
}

const react = compileAgent(parseAgentFile(readFileSync(fixturePath('agents/react.agent'), 'utf8')).agents[0]);
const MILHOUSE = readFileSync(fixturePath('traces/react-milhouse.txt'), 'utf8');

/** A ReACT run of `transcript` (its first line the question), the tools answering what the transcript says. */
async function agentRun(transcript: string, observation: string): Promise<LooseRecord[]> {
  const question = transcript.split('\n')[0].replace(/^\[Question\]\s*/, '');
  const tools = withTools(none, {
    search: fakeTool('Search', () => ({ ok: true, output: observation })),
    lookup: fakeTool('Lookup', () => ({
      ok: true,
      output: '(Result 1 / 1) Milhouse was named after U.S. president Richard Nixon, whose middle name was Milhous.',
    })),
  });
  const trace = new MemoryTrace();
  const model = ReplayModel.fromAgentTranscript(react, transcript);
  await runWithoutPauses(createAgentRunner({ agent: react, question }, { model, tools, trace, pauseAfterTool: false }));
  return trace.records as unknown as LooseRecord[];
}

/** The records with the end's answer set (the replayed program always ends `Ans: 18`, whatever the tools said). */
function answered(records: LooseRecord[], answer: string): LooseRecord[] {
  return records.map(r => (r.t === 'end' ? { ...r, answer } : r));
}

/**
 * The records as an endpoint's run has them: each completion with its usage (10 prompt + 3 completion tokens), the end
 * with their sums. A replay reports none (it asks no endpoint).
 */
function withUsage(records: LooseRecord[]): LooseRecord[] {
  const n = records.filter(r => r.t === 'completion').length;
  return records.map(r =>
    r.t === 'completion'
      ? { ...r, usage: { promptTokens: 10, completionTokens: 3 } }
      : r.t === 'end'
        ? { ...r, usage: { promptTokens: 10 * n, completionTokens: 3 * n } }
        : r,
  );
}

const jsonl = (records: LooseRecord[]) => records.map(r => JSON.stringify(r)).join('\n') + '\n';

describe('run history', () => {
  test('a summary from a trace: status, answer, tokens, time, title; unknown record kinds are kept and read', async () => {
    const records = withUsage(await artRun('18'));
    records.splice(3, 0, { t: 'branch', at: 1, callId: 2, step: 2, trace: 'other.jsonl', answer: '20' }, { t: 'some-future-kind', x: 1 });
    const { records: back, errors } = readRecords(jsonl(records) + 'not json\n');
    assert.equal(back.length, records.length);
    assert.deepEqual(
      errors.map(e => e.line),
      [records.length + 1],
    );
    const s = summarize('r1', back, { program: 'arithmetic.art', task: 'Elementary Math' });
    assert.equal(s.status, 'finished');
    assert.equal(s.answer, '18');
    assert.equal(s.kind, 'art');
    assert.equal(s.title, 'Elementary Math');
    const completions = back.filter(r => r.t === 'completion').length;
    assert.ok(completions > 0);
    assert.deepEqual(s.tokens, { promptTokens: 10 * completions, completionTokens: 3 * completions });
    assert.equal(s.requests, back.filter(r => r.t === 'request').length);
    assert.ok(s.durationMs !== undefined && s.durationMs >= 0);
    assert.deepEqual(
      s.branches.map(b => [b.callId, b.step, b.trace, b.answer]),
      [[2, 2, 'other.jsonl', '20']],
    );
    // No program given: the title comes from the trace (the task's Description, the agent's name).
    assert.equal(summarize('r1', back).title, 'Elementary Math');
    assert.equal(summarize('a1', await agentRun(MILHOUSE, 'Milhouse Mussolini Van Houten is a recurring character.')).title, 'react-agent');
  });

  test('a cut-short trace is "unfinished" with the tokens counted so far', async () => {
    const records = withUsage(await artRun('18')).filter(r => r.t !== 'end');
    const s = summarize('r', records);
    assert.equal(s.status, 'unfinished');
    assert.equal(s.answer, null);
    assert.equal(s.tokens.completionTokens, 3 * records.filter(r => r.t === 'completion').length);
    assert.ok(s.tokens.completionTokens > 0);
  });

  test('listing a folder: summaries written, derived when missing or stale, parents from replays, deleting', async () => {
    const home = mkdtempSync(join(tmpdir(), 'art-runs-'));
    prepareRunsFolder(home, true);
    assert.ok(!existsSync(join(home, '.gitignore')), 'a folder ART did not make gets no .gitignore');
    const dir = join(home, 'runs');
    prepareRunsFolder(dir, true);
    assert.equal(readFileSync(join(dir, '.gitignore'), 'utf8').trim().split('\n').pop(), '*', 'the folder ART made keeps the runs out of git');
    const first = newRunId('/w/arithmetic.art', new Date(Date.UTC(2025, 0, 1)));
    assert.equal(first, '2025-01-01T00-00-00-000Z-arithmetic');
    writeFileSync(runFiles(dir, first).trace, jsonl(answered(await artRun('18'), '18')));
    writeSummary(dir, first, { program: '/w/arithmetic.art', task: 'Elementary Math' });
    // A replay of the first run's trace that departed at call 2: its child.
    const second = newRunId(runFiles(dir, first).trace, new Date(Date.UTC(2025, 0, 2)));
    const replay = answered(await artRun('20'), '20');
    replay.splice(replay.length - 1, 0, { t: 'live', at: 5, callId: 2, why: 'an override', model: 'm' });
    writeFileSync(runFiles(dir, second).trace, jsonl(replay));
    const s2 = writeSummary(dir, second, { program: runFiles(dir, first).trace });
    assert.deepEqual(s2.parent, { run: first, callId: 2 });
    assert.deepEqual(s2.live, { callId: 2, why: 'an override' });
    // A step back to before the change: the run followed its recording again, so it did not go live.
    const rejoined = [...replay];
    rejoined.splice(rejoined.length - 1, 0, { t: 'rejoin', at: 6, why: 'back before the change (an override)' });
    assert.equal(summarize('x', rejoined as never).live, undefined);
    // A trace with no summary: derived.
    const third = newRunId('/w/arithmetic.art', new Date(Date.UTC(2025, 0, 3)));
    writeFileSync(runFiles(dir, third).trace, jsonl(answered(await artRun('21'), '21')));

    const runs = listRuns(dir);
    assert.deepEqual(
      runs.map(r => [r.summary.id, r.summary.answer]),
      [
        [third, '21'],
        [second, '20'],
        [first, '18'],
      ],
    );
    assert.equal(runs[2].summary.program, '/w/arithmetic.art');
    const tree = historyTree(runs);
    assert.equal(tree.length, 2, 'the first run (known program) and the third (trace only) are listed apart');
    const withChild = tree.flatMap(g => g.runs).find(n => n.entry.summary.id === first)!;
    assert.deepEqual(
      withChild.children.map(c => c.entry.summary.id),
      [second],
    );

    // A stale summary (older than its trace) is derived again, keeping what only the shell knew.
    writeFileSync(runFiles(dir, first).trace, jsonl(answered(await artRun('19'), '19')));
    utimesSync(runFiles(dir, first).summary, new Date(0), new Date(0));
    const again = listRuns(dir).find(r => r.summary.id === first)!.summary;
    assert.equal(again.answer, '19');
    assert.equal(again.program, '/w/arithmetic.art');

    deleteRun(dir, second);
    assert.ok(!existsSync(runFiles(dir, second).trace) && !existsSync(runFiles(dir, second).summary));
    assert.equal(listRuns(dir).length, 2);
    assert.deepEqual(listRuns(join(dir, 'missing')), []);
  });

  test('a runs folder a repository planted links in (to /dev/zero, a FIFO): listed and checked without reading them', async () => {
    // Before: each was read with readFileSync, following the link: /dev/zero grew the process (the editor's extension
    // host, for the Runs view) to gigabytes, a FIFO blocked it for good. A FIFO stands in for /dev/zero: it blocks, not grows.
    const dir = mkdtempSync(join(tmpdir(), 'art-runs-planted-'));
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const real = newRunId('/w/arithmetic.art', new Date(Date.UTC(2025, 0, 1)));
    writeFileSync(runFiles(dir, real).trace, jsonl(answered(await artRun('18'), '18')));
    symlinkSync(fifo, runFiles(dir, real).summary);
    symlinkSync(fifo, runFiles(dir, newRunId('/w/a.art', new Date(Date.UTC(2025, 0, 2)))).trace);
    assert.deepEqual(
      listRuns(dir).map(r => [r.summary.id, r.summary.answer]),
      [[real, '18']],
    );
    const other = mkdtempSync(join(tmpdir(), 'art-runs-planted-'));
    writeFileSync(join(other, 'notes.txt'), 'mine\n');
    symlinkSync(fifo, join(other, '.gitignore'));
    assert.match(runsFolderProblem(other) ?? '', /holds files but no runs, and ART did not make it/);
  });
});

describe('programOfRun', () => {
  test("a run's program from its summary, followed through replays of replays; none when no summary says", async () => {
    const root = mkdtempSync(join(tmpdir(), 'art-program-of-'));
    const dir = join(root, '.art/runs');
    prepareRunsFolder(dir, false);
    const trace = jsonl(answered(await artRun('18'), '18'));
    const [a, b, c, d] = [1, 2, 3, 4].map(day => newRunId('x', new Date(Date.UTC(2025, 0, day))));
    for (const id of [a, b, c, d]) writeFileSync(runFiles(dir, id).trace, trace);
    // An evaluated example's run names its library relative to the workspace; its replay names that trace, relative
    // too; a replay of the replay names it absolute.
    writeSummary(dir, a, { program: 'evaluation/library.art' });
    writeSummary(dir, b, { program: `.art/runs/${a}.jsonl` });
    writeSummary(dir, c, { program: runFiles(dir, b).trace });
    assert.equal(programOfRun(runFiles(dir, c).trace, root), join(root, 'evaluation/library.art'));
    assert.equal(programOfRun(runFiles(dir, a).trace, root), join(root, 'evaluation/library.art'));
    assert.equal(programOfRun(runFiles(dir, d).trace, root), undefined, 'no summary');
    assert.equal(programOfRun(join(root, 'elsewhere.jsonl'), root), undefined);
  });
});

describe('comparing runs', () => {
  test('programs align by step number; a changed tool output and answer are the differences', async () => {
    const a = runView(await artRun('18'));
    const b = runView(answered(await artRun('20'), '20'));
    assert.deepEqual(
      a.steps.map(s => s.key),
      ['Q1', 'Q2', 'Q3'],
    );
    const d = diffRuns(a, b);
    assert.deepEqual(
      d.slots.map(s => [s.key, s.same]),
      [
        ['Q1', true],
        ['Q2', false],
        ['Q3', true],
      ],
    );
    assert.equal(d.slots[1].a!.call!.output, '18');
    assert.equal(d.slots[1].b!.call!.output, '20');
    assert.ok(d.answersDiffer);
    const report = diffReport(a, b, ['A', 'B']);
    assert.match(report, /^Q2 \[code execute\]: differs\n {2}output:\n {2}- 18\n {2}\+ 20$/m);
    assert.match(report, /^Q1 \[generate python code\]: same$/m);
    assert.match(report, /1 of 3 step\(s\) differ; the answers differ\.$/);
    // The two rendered documents have the same lines wherever the runs agree.
    const left = renderRun(a, d.slots, 'a', 'A').split('\n');
    const right = renderRun(b, d.slots, 'b', 'B').split('\n');
    assert.equal(left.length, right.length);
    const differing = left.flatMap((l, i) => (l === right[i] ? [] : [[l, right[i]]]));
    assert.deepEqual(differing, [
      ['# A', '# B'],
      ['    18', '    20'],
      ['    18', '    20'],
      ['18', '20'],
    ]);
  });

  test('a run compared with itself: every step the same', async () => {
    const a = runView(await artRun('18'));
    assert.equal(diffRuns(a, a).differing, 0);
    assert.match(diffReport(a, a, ['A', 'A']), /0 of 3 step\(s\) differ; the answers are the same\.$/);
  });

  test('agents align by state: a loop one run has and the other not is a gap, not a shift', async () => {
    // One search loop less: the Lookup loop removed.
    const lines = MILHOUSE.trimEnd().split('\n');
    const short = [...lines.slice(0, 5), ...lines.slice(9)].join('\n');
    const a = runView(await agentRun(MILHOUSE, 'Milhouse Mussolini Van Houten is a recurring character.'));
    const b = runView(await agentRun(short, 'Milhouse was named after Richard Nixon.'));
    assert.equal(a.kind, 'agent');
    const slots = alignRuns(a, b);
    const keys = slots.map(s => `${s.key}${s.a ? '' : ' -a'}${s.b ? '' : ' -b'}`);
    assert.deepEqual(keys.slice(0, 5), ['Ques', 'Tht', 'Act', 'Act-Inp', 'Obs']);
    assert.equal(slots.filter(s => !s.b).length, 4, 'the second Thought/Action/Action Input/Observation are only in A');
    assert.equal(slots.filter(s => !s.a).length, 0);
    const obs = slots.find(s => s.key === 'Obs' && s.a && s.b)!;
    assert.equal(obs.same, false);
    assert.equal(obs.b!.call!.output, 'Milhouse was named after Richard Nixon.');
    assert.equal(a.answer, b.answer);
  });
});

describe('runLabel', () => {
  test('a run file as a person reads it: program and time, the inverse of newRunId', () => {
    const id = newRunId('/work/examples/library.art', new Date(Date.UTC(2026, 10, 23, 12, 30, 5, 123)));
    assert.equal(runLabel(`/w/.art/runs/${id}.jsonl`), 'library, 2026-11-23 12:30:05');
    assert.equal(runLabel('/tmp/other-trace.jsonl'), 'other-trace');
    // An evaluated example's run: the program, then the example's id, each slugged.
    const example = newRunId('/work/examples/library.art', new Date(Date.UTC(2026, 10, 23, 12, 30, 5, 123)), 'q 1.5/x');
    assert.equal(example, '2026-11-23T12-30-05-123Z-library-q-1-5-x');
    assert.equal(runLabel(`${example}.jsonl`), 'library-q-1-5-x, 2026-11-23 12:30:05');
  });
});
