// ART's human-feedback loop in core, against a scripted model that follows the demonstrations in its prompt
// (test/support/feedbackModel.ts): an evaluation where "pages" fails (the model multiplies), its trace replayed and
// corrected (the calculator's input edited before it runs: the run departs from its recording, the tool runs for
// real, the endpoint writes the rest live), the corrected run saved as a demonstration of the library, a new
// evaluation: "pages" fixed, nothing broken. Without the demonstration the same new evaluation changes nothing. Also
// a trace replay's departure on its own: an output set by hand, the trace's `live` record, no endpoint (departed),
// and a step back before the change that follows the recording again.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareResults } from '../../../core/evaluation/compare';
import { evaluate, newResultsPath, type EvaluationEnd } from '../../../core/evaluation/evaluate';
import { prepareRun } from '../../../core/launch/launch';
import type { PauseInfo, RunResult } from '../../../core/engine/types';
import { appendDemonstrationEdit, demonstrationText } from '../../../core/prompt/demonstration';
import { readTraceFile } from '../../../core/trace/trace';
import { ARITHMETIC_DATA, ARITHMETIC_LIBRARY, ARITHMETIC_TASK } from '../../support/arithmeticModel';
import { useFeedbackModel } from '../../support/feedbackModel';
import { ScriptedServer } from '../../support/scriptedServer';

describe('the human-feedback loop: evaluate, correct a failed example, save it as a demonstration, evaluate again', () => {
  const server = new ScriptedServer({ tokenDelayMs: 0 });
  const dir = mkdtempSync(join(tmpdir(), 'art-feedback-'));
  const library = join(dir, 'library.art');
  const data = join(dir, 'arithmetic.jsonl');
  const runs = join(dir, 'runs');
  const logs: string[] = [];

  before(async () => {
    await server.start();
    useFeedbackModel(server);
    copyFileSync(ARITHMETIC_LIBRARY, library);
    copyFileSync(ARITHMETIC_DATA, data);
  });
  after(() => ScriptedServer.closeAll());

  const run = (out?: string): Promise<EvaluationEnd> =>
    evaluate({
      library,
      data,
      out,
      options: { baseURL: server.baseURL, model: 'scripted', task: ARITHMETIC_TASK, cwd: dir },
      trusted: true,
      concurrency: 2,
      runs: { folder: runs, gitignore: false },
      log: line => logs.push(line),
    });

  /** Replays a trace with the pauses handled by `onPause`; resolves with how the run ended. */
  async function replay(trace: string, options: Record<string, unknown>, onPause: (p: PauseInfo, r: PreparedRunner) => void): Promise<RunResult> {
    const prepared = await prepareRun({ program: trace, trusted: true, cwd: dir, log: line => logs.push(line), ...options });
    try {
      prepared.runner.on('paused', p => onPause(p, prepared.runner));
      return await prepared.runner.run();
    } finally {
      await prepared.dispose();
    }
  }
  type PreparedRunner = Awaited<ReturnType<typeof prepareRun>>['runner'];

  let first: EvaluationEnd;
  let corrected: RunResult;

  test('the first evaluation: 5 of 6, "pages" answered 7200 (240 * 30)', async () => {
    first = await run();
    assert.deepEqual(
      first.results.map(r => [r.id, r.answer, r.exact]),
      [
        ['eggs', '9', true],
        ['pens', '21', true],
        ['train', '150', true],
        ['apples', '8', true],
        ['pages', '7200', false],
        ['shelves', '79', true],
      ],
    );
  });

  test('its trace replayed, the input corrected before the calculator runs: the run departs and the endpoint writes 8 live', async () => {
    const pages = first.results.find(r => r.id === 'pages')!;
    const trace = join(dir, pages.trace!);
    const before = server.requests.length;
    const seen: string[] = [];
    corrected = await replay(trace, { baseURL: server.baseURL, model: 'scripted', pauseBeforeTool: true }, (p, r) => {
      seen.push(`${p.phase} ${p.call?.input} ${p.call?.output ?? ''}`.trim());
      if (p.phase === 'before' && p.call?.input === '240 * 30') r.setToolInput('240 / 30');
      r.continue();
    });
    assert.equal(corrected.reason, 'finished', corrected.error);
    assert.equal(corrected.answer, '8');
    assert.deepEqual(seen, ['before 240 * 30', 'after 240 / 30 8']);
    // The recorded request before the call cost nothing; the one after the change went to the endpoint.
    assert.equal(server.requests.length - before, 1);
    assert.ok(server.requests.at(-1)!.prompt.endsWith('Q1: [calculator] 240 / 30\n#1: 8\n'), server.requests.at(-1)!.prompt.slice(-80));
    assert.ok(
      logs.some(l =>
        /departs from its recording here \(the input of \[calculator\] was edited\): from the next request on, \S*scripted\S* writes the rest live/.test(
          l,
        ),
      ),
      logs.join('\n'),
    );
  });

  test('without the demonstration a new evaluation changes nothing', async () => {
    const again = await run(newResultsPath(first.resultsPath));
    const c = compareResults(first.results, again.results);
    assert.deepEqual([c.a.correct, c.b.correct, c.fixed.length, c.broken.length], [5, 5, 0, 0]);
  });

  test('saved as a demonstration, the next evaluation fixes "pages" and breaks nothing', async () => {
    const program = demonstrationText(corrected.snapshot);
    assert.match(
      program,
      /^Description: \(Elementary Math\) .*\nInput: A book has 240 pages\. .*\nQ1: \[calculator\] 240 \/ 30\n#1: 8\nQ2: \[EOQ\]\nAns: 8$/,
    );
    const text = readFileSync(library, 'utf8');
    const edit = appendDemonstrationEdit(text, program);
    writeFileSync(library, text.slice(0, edit.span.start) + edit.newText + text.slice(edit.span.end));
    const latest = newResultsPath(first.resultsPath);
    const second = await run(latest);
    const pages = second.results.find(r => r.id === 'pages')!;
    assert.deepEqual([pages.answer, pages.exact], ['8', true]);
    // The model followed the demonstration: the same step as the corrected run.
    const { records } = readTraceFile(join(dir, pages.trace!));
    assert.deepEqual(
      records.flatMap(r => (r.t === 'tool' ? [r.call.input] : [])),
      ['240 / 30'],
    );
    const c = compareResults(first.results, second.results);
    assert.deepEqual([c.a.correct, c.b.correct, c.fixed.map(e => e.id), c.broken.length], [5, 6, ['pages'], 0]);
  });
});

describe('a trace replay departs from its recording on the first change', () => {
  const server = new ScriptedServer({ tokenDelayMs: 0 });
  const dir = mkdtempSync(join(tmpdir(), 'art-trace-depart-'));
  let trace: string;

  before(async () => {
    await server.start();
    useFeedbackModel(server);
    copyFileSync(ARITHMETIC_LIBRARY, join(dir, 'library.art'));
    // One example: "pages", recorded with its habit (240 * 30 = 7200).
    const line = readFileSync(ARITHMETIC_DATA, 'utf8')
      .split('\n')
      .find(l => l.includes('"pages"'))!;
    writeFileSync(join(dir, 'pages.jsonl'), `${line}\n`);
    const end = await evaluate({
      library: join(dir, 'library.art'),
      data: join(dir, 'pages.jsonl'),
      options: { baseURL: server.baseURL, model: 'scripted', task: ARITHMETIC_TASK, cwd: dir },
      trusted: true,
      concurrency: 1,
      runs: { folder: join(dir, 'runs'), gitignore: false },
      log: () => {},
    });
    trace = join(dir, end.results[0].trace!);
  });
  after(() => ScriptedServer.closeAll());

  async function replay(options: Record<string, unknown>, onPause: (p: PauseInfo, r: Awaited<ReturnType<typeof prepareRun>>['runner']) => void) {
    const out = join(dir, `replay-${Math.random().toString(36).slice(2)}.jsonl`);
    const logs: string[] = [];
    const prepared = await prepareRun({ program: trace, trusted: true, cwd: dir, trace: out, log: line => logs.push(line), ...options });
    prepared.runner.on('paused', p => onPause(p, prepared.runner));
    try {
      return { result: await prepared.runner.run(), logs, records: () => readTraceFile(out).records };
    } finally {
      await prepared.dispose();
    }
  }

  test('untouched, it follows the recording: no request, the recorded answer', async () => {
    const before = server.requests.length;
    const { result } = await replay({ baseURL: server.baseURL, model: 'scripted' }, (_, r) => r.continue());
    assert.deepEqual([result.reason, result.answer], ['finished', '7200']);
    assert.equal(server.requests.length, before);
  });

  test('an output set by hand: the endpoint writes the rest from it, and the trace says where the run went live', async () => {
    const before = server.requests.length;
    const { result, records } = await replay({ baseURL: server.baseURL, model: 'scripted' }, (p, r) => {
      if (p.call?.output === '7200') r.setToolOutput('8');
      r.continue();
    });
    assert.deepEqual([result.reason, result.answer], ['finished', '8']);
    assert.equal(server.requests.length - before, 1);
    const live = records().find(r => r.t === 'live');
    assert.ok(live && live.t === 'live' && /#1's output was set by hand/.test(live.why), JSON.stringify(live));
  });

  test('no endpoint: the run ends departed, saying how to go on live', async () => {
    const { result } = await replay({}, (p, r) => {
      if (p.call?.output === '7200') r.setToolOutput('8');
      r.continue();
    });
    assert.equal(result.reason, 'departed');
    assert.match(result.error ?? '', /a trace cannot say what the model writes after that: set a model \(in VS Code the status bar's run mode item/);
  });

  test('a step back before the change follows the recording again, with the outputs recorded then', async () => {
    const before = server.requests.length;
    let edited = false;
    let steppedBack = 0;
    const { result, logs } = await replay({ baseURL: server.baseURL, model: 'scripted', pauseBeforeTool: true }, (p, r) => {
      if (p.phase === 'before' && !edited) {
        edited = true;
        r.setToolInput('240 / 30');
        r.continue();
      } else if (p.phase === 'after' && !steppedBack) {
        steppedBack++;
        assert.equal(p.call?.output, '8', 'the calculator ran for real on the edited input');
        r.stepBack();
      } else if (steppedBack === 1) {
        // Back at the pause of the edit: it is kept there; once more, before it.
        steppedBack++;
        assert.equal(p.call?.input, '240 / 30');
        r.stepBack();
      } else r.continue();
    });
    assert.ok(
      logs.some(l => /Back before the change .*: the run follows its recording again/.test(l)),
      logs.join('\n'),
    );
    assert.deepEqual([result.reason, result.answer], ['finished', '7200']);
    assert.equal(server.requests.length, before, 'back on the recording, the endpoint is asked nothing');
  });
});
