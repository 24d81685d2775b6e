// An evaluation as the shells start it (core/evaluation/evaluate.ts) over examples/data/arithmetic.jsonl against the
// scripted server: results per example with their task and the trace each run left in the run history, a stop that
// leaves neither result nor trace of the examples it cut short, and a second evaluation that runs only those; plus
// the pieces the shells use (accuracy per task, a result's trace, the tasks of a library, the default results file).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArt } from '../../../core/art/parse';
import { summariseByTask, traceOfResult, type EvalResult } from '../../../core/evaluation/eval';
import { defaultResultsPath, evaluate, exampleWithoutTask, libraryTasks, LaunchError, type EvaluationStart } from '../../../core/evaluation/evaluate';
import { evalReport, progressLine } from '../../../core/evaluation/report';
import { historyTree, listRuns, readRecords } from '../../../core/trace/history';
import { ScriptedServer } from '../../support/scriptedServer';
import { proxiedChatModel } from '../../support/chatProxy';
import { NO_LOGPROBS_NOTE } from '../../../core/model/chatContinuation';
import { ARITHMETIC_DATA, ARITHMETIC_LIBRARY, ARITHMETIC_TASK, arithmeticScripts, runsAtServer } from '../../support/arithmeticModel';

const result = (id: string, task: string | undefined, exact: boolean): EvalResult => ({
  id,
  input: id,
  target: 'x',
  answer: exact ? 'x' : 'y',
  exact,
  substring: exact,
  toolCalls: exact ? 1 : 0,
  tokens: { prompt: 10, completion: 2 },
  requests: 1,
  durationMs: 5,
  end: 'finished',
  error: null,
  ...(task ? { task } : {}),
});

describe('evaluation pieces', () => {
  test('accuracy per task: each task its own summary, in order of first appearance; no task under a name of its own', () => {
    const byTask = summariseByTask([result('1', 'B', true), result('2', 'A', false), result('3', 'B', false), result('4', undefined, true)]);
    assert.deepEqual(
      byTask.map(t => [t.task, t.summary.n, t.summary.exact]),
      [
        ['B', 2, 1],
        ['A', 1, 0],
        ['(no task)', 1, 1],
      ],
    );
    assert.deepEqual(byTask[0].summary.failures, { 'wrong answer': 1 });
  });

  test('the results view: accuracy per task in percent with its interval, the summary, a row per example with its trace', () => {
    const results = [
      { ...result('1', 'Sum', true), trace: '.art/runs/one.jsonl' },
      result('2', 'Sum', false),
      { ...result('3', 'Capital', true), end: 'error' as const, error: 'error: boom', answer: null, exact: false, substring: false },
    ];
    const report = evalReport({
      results,
      resultsPath: '/w/data.results.jsonl',
      total: 5,
      stopped: true,
      names: { library: 'lib.art', data: 'data.jsonl', results: 'data.results.jsonl' },
    });
    assert.deepEqual(
      report.tasks.map(t => [t.task, t.n, t.exactPercent, t.substringPercent]),
      [
        ['Sum', 2, 50, 50],
        ['Capital', 1, 0, 0],
      ],
    );
    assert.deepEqual(report.tasks[0].exactInterval, [9.5, 90.5]);
    assert.equal(report.summaryLines[0], 'exact match:     1/3 = 33.3% (95% CI 6.1%–79.2%)');
    assert.match(report.summaryLines.at(-1)!, /^failures: +(wrong answer 1, error 1|error 1, wrong answer 1)$/);
    assert.deepEqual([report.total, report.stopped, report.rows.length], [5, true, 3]);
    assert.equal(report.rows[0].trace, '/w/.art/runs/one.jsonl');
    assert.equal(report.rows[1].trace, undefined);
    assert.deepEqual([report.rows[2].end, report.rows[2].error, report.rows[2].answer], ['error', 'error: boom', null]);
    assert.equal(progressLine(results, 5), '3/5 done · exact 1/3 = 33.3%');
    assert.equal(progressLine([], 5), '0/5 done');
  });

  test("a result's trace resolves against the results file's folder", () => {
    assert.equal(traceOfResult('/w/data/r.jsonl', { trace: '../.art/runs/a.jsonl' }), '/w/.art/runs/a.jsonl');
    assert.equal(traceOfResult('/w/data/r.jsonl', {}), undefined);
  });

  test("the library's tasks (the template left out), the example that names no task, the default results file", () => {
    const doc = parseArt(readFileSync(ARITHMETIC_LIBRARY, 'utf8'));
    const tasks = libraryTasks(doc).map(t => t.title);
    assert.ok(tasks.includes(ARITHMETIC_TASK) && !tasks.some(t => t.includes('%s')), tasks.join(', '));
    assert.equal(exampleWithoutTask([{ id: 'a', input: 'i', target: 't', line: 1, description: 'd' }]), undefined);
    assert.equal(exampleWithoutTask([{ id: 'a', input: 'i', target: 't', line: 3 }])?.line, 3);
    assert.equal(defaultResultsPath('/w/data/arithmetic.jsonl', '/w/library.art'), '/w/data/arithmetic.library.results.jsonl');
  });
});

describe('evaluate against the scripted server', () => {
  let server: ScriptedServer;
  const work = mkdtempSync(join(tmpdir(), 'art-evaluate-'));
  before(async () => {
    server = await new ScriptedServer({ tokenDelayMs: 0 }).start();
    server.setScripts(...arithmeticScripts());
  });
  after(() => ScriptedServer.closeAll());

  const config = (name: string, extra: { signal?: AbortSignal; onResult?: (r: EvalResult) => void; concurrency?: number } = {}) => ({
    library: ARITHMETIC_LIBRARY,
    data: ARITHMETIC_DATA,
    out: join(work, `${name}.results.jsonl`),
    options: { task: ARITHMETIC_TASK, baseURL: server.baseURL, model: 'scripted', cwd: work },
    trusted: true,
    concurrency: extra.concurrency ?? 3,
    runs: { folder: join(work, `${name}-runs`), gitignore: true },
    log: () => {},
    ...extra,
  });

  test("on the caller's chat model (VS Code's Language Model API): the same scores, the header names the model, the notes said once", async () => {
    const lines: string[] = [];
    const c = config('vscode-lm', { concurrency: 2 });
    const end = await evaluate({
      ...c,
      options: { task: ARITHMETIC_TASK, modelSource: 'vscode', cwd: work },
      chatModel: proxiedChatModel(server.baseURL, { id: 'vscode-lm:test/arith' }),
      log: line => lines.push(line),
    });
    assert.deepEqual(
      summariseByTask(end.results).map(t => [t.task, t.summary.n, t.summary.exact]),
      [[ARITHMETIC_TASK, 6, 5]],
    );
    const header = JSON.parse(readFileSync(end.resultsPath, 'utf8').split('\n')[0]);
    assert.deepEqual([header.model, header.endpoint], ['vscode-lm:test/arith', "VS Code's Language Model API"]);
    assert.equal(lines.filter(l => l.includes(NO_LOGPROBS_NOTE)).length, 1, lines.join('\n'));
  });

  test("every example scored with its task and its run's trace in the history", async () => {
    const starts: EvaluationStart[] = [];
    const end = await evaluate({ ...config('all'), onStart: s => starts.push(s) });
    assert.deepEqual([starts[0].total, starts[0].done.length, starts[0].todo.length], [6, 0, 6]);
    assert.equal(end.stopped, false);
    assert.deepEqual(
      end.results.map(r => r.id),
      ['eggs', 'pens', 'train', 'apples', 'pages', 'shelves'],
      "in the dataset's order",
    );
    assert.deepEqual(
      summariseByTask(end.results).map(t => [t.task, t.summary.n, t.summary.exact]),
      [[ARITHMETIC_TASK, 6, 5]],
    );
    const runs = join(work, 'all-runs');
    assert.equal(readFileSync(join(runs, '.gitignore'), 'utf8').includes('*'), true);
    for (const r of end.results) {
      const trace = traceOfResult(end.resultsPath, r)!;
      assert.ok(trace.startsWith(runs), trace);
      const { records } = readRecords(readFileSync(trace, 'utf8'));
      const last = records.at(-1)!;
      assert.deepEqual([last.t, last.answer], ['end', r.answer]);
      const summary = JSON.parse(readFileSync(trace.replace(/\.jsonl$/, '.json'), 'utf8'));
      assert.match(summary.program, /examples\/library\.art$/);
      assert.deepEqual([summary.title, summary.status], [ARITHMETIC_TASK, 'finished']);
      assert.deepEqual(summary.evaluation, { results: 'all.results.jsonl', example: r.id }, 'the run names its evaluation and example');
    }
    // In the Runs view: one group, the evaluation, its runs labelled by the examples' ids.
    const groups = historyTree(listRuns(runs));
    assert.deepEqual(
      groups.map(g => [g.title, g.evaluation, g.runs.length]),
      [['Evaluation all.results.jsonl', 'all.results.jsonl', 6]],
    );
    assert.deepEqual(groups[0].runs.map(n => n.entry.summary.evaluation?.example).sort(), end.results.map(r => r.id).sort());
    // The results file begins with its header; evaluated again with nothing left to run, it keeps it.
    assert.equal(starts[0].header?.kind, 'art-evaluation');
    assert.equal(readFileSync(end.resultsPath, 'utf8').split('\n')[0], JSON.stringify(starts[0].header));
  });

  test('stopped, the evaluation keeps no result or trace of an example cut short; the next runs only those left', async () => {
    server.reset();
    server.tokenDelayMs = 10;
    const controller = new AbortController();
    const first = await evaluate({
      ...config('stop', {
        concurrency: 2,
        signal: controller.signal,
        onResult: () => controller.abort(),
      }),
    });
    assert.equal(first.stopped, true);
    const done = first.results.map(r => r.id);
    assert.ok(done.length >= 1 && done.length < 6, done.join(', '));
    const runs = join(work, 'stop-runs');
    const traces = () => readdirSync(runs).filter(f => f.endsWith('.jsonl'));
    assert.deepEqual(traces().sort(), first.results.map(r => r.trace!.split('/').pop()).sort());
    server.tokenDelayMs = 0;
    const starts: EvaluationStart[] = [];
    const second = await evaluate({ ...config('stop'), onStart: s => starts.push(s) });
    assert.equal(starts[0].todo.length, 6 - done.length);
    assert.equal(second.results.length, 6);
    assert.equal(traces().length, 6);
    const atServer = runsAtServer(server);
    for (const id of done) assert.equal(atServer[id], 1, `${id} ran again: ${JSON.stringify(atServer)}`);
    assert.ok(second.results.every(r => existsSync(traceOfResult(second.resultsPath, r)!)));
  });

  test('a dataset without descriptions and no task: the error names the data line and the option', async () => {
    await assert.rejects(
      evaluate({ ...config('none'), options: { baseURL: server.baseURL, model: 'scripted' }, optionLabel: n => `--${n}` }),
      (e: Error) =>
        e instanceof LaunchError &&
        /arithmetic\.jsonl:1: the example has no "description": give one per example, or --task to use a task of the library/.test(e.message),
    );
  });
});
