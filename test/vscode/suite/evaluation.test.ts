// "ART: Evaluate Task" inside VS Code against the scripted OpenAI-compatible server (started here, in the extension
// host), with the workspace's settings pointing at it: examples/data/arithmetic.jsonl over examples/library.art's
// "Elementary Math" task. Cancelled half-way it keeps what finished; run again it resumes and runs no finished
// example twice (counted at the server); the results view draws the chart and the table; each example left its
// trace in the run history, and its link replays that run in the debugger, stopping at its tool call.
import * as assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { after, before, describe, it } from 'mocha';
import * as vscode from 'vscode';
import { ARITHMETIC_DATA, ARITHMETIC_LIBRARY, ARITHMETIC_TASK, arithmeticScripts, runsAtServer } from '../../support/arithmeticModel';
import { ScriptedServer } from '../../support/scriptedServer';
import { StateRequest } from '../../../client/debugAdapter/protocol';
import { artStudio, disposeAndStopDebugging, until, workspaceUri } from './helpers';

describe('Evaluate Task and its results view', function () {
  this.timeout(120_000);
  let server: ScriptedServer;
  const subscriptions: vscode.Disposable[] = [];
  const library = () => workspaceUri('evaluation/library.art');
  const data = () => workspaceUri('evaluation/arithmetic.jsonl');
  const results = () => workspaceUri('evaluation/arithmetic.library.results.jsonl');
  const config = () => vscode.workspace.getConfiguration('art');

  before(async () => {
    mkdirSync(workspaceUri('evaluation').fsPath, { recursive: true });
    copyFileSync(ARITHMETIC_LIBRARY, library().fsPath);
    copyFileSync(ARITHMETIC_DATA, data().fsPath);
    rmSync(results().fsPath, { force: true });
    server = await new ScriptedServer({ tokenDelayMs: 0 }).start();
    server.setScripts(...arithmeticScripts());
    await config().update('model.baseURL', server.baseURL, vscode.ConfigurationTarget.Workspace);
    await config().update('model.name', 'scripted', vscode.ConfigurationTarget.Workspace);
    await artStudio();
  });

  after(async () => {
    await disposeAndStopDebugging(subscriptions);
    await config().update('model.baseURL', undefined, vscode.ConfigurationTarget.Workspace);
    await config().update('model.name', undefined, vscode.ConfigurationTarget.Workspace);
    await ScriptedServer.closeAll();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  const resultLines = () =>
    existsSync(results().fsPath)
      ? readFileSync(results().fsPath, 'utf8')
          .split('\n')
          .filter(l => l.trim() && !l.includes('"kind":"art-evaluation"'))
      : [];

  it('cancelled half-way it keeps the finished examples; run again it resumes; the view draws the chart and the table', async () => {
    const api = await artStudio();
    const evaluations = api.runner.evaluations;
    server.reset();
    server.tokenDelayMs = 15;
    const cancel = new vscode.CancellationTokenSource();
    const watching = until(() => resultLines().length >= 2, 'two examples done', 60_000).then(() => cancel.cancel());
    const first = await evaluations.run(library(), data(), ARITHMETIC_TASK, cancel.token);
    await watching;
    assert.ok(first, 'the evaluation ran');
    assert.equal(first.end.stopped, true);
    const done = first.end.results.map(r => r.id);
    assert.ok(done.length >= 2 && done.length < 6, `done when cancelled: ${done}`);
    assert.equal(first.report.stopped, true);

    server.tokenDelayMs = 0;
    const drawn = new Promise(resolve => subscriptions.push(evaluations.onDidDraw(d => d.rows === 6 && resolve(d))));
    const second = await vscode.commands.executeCommand<Awaited<ReturnType<typeof evaluations.run>>>(
      'art.evaluateTask',
      library(),
      data(),
      ARITHMETIC_TASK,
      'resume',
    );
    assert.ok(second, 'the second evaluation ran');
    assert.equal(second.end.stopped, false);
    assert.equal(resultLines().length, 6, 'each example once in the results file');
    const atServer = runsAtServer(server);
    for (const id of done) assert.equal(atServer[id], 1, `${id} was done before the cancel and ran again: ${JSON.stringify(atServer)}`);

    const report = second.report;
    assert.deepEqual(
      report.tasks.map(t => [t.task, t.n, t.exact, t.exactPercent]),
      [[ARITHMETIC_TASK, 6, 5, 83.3]],
    );
    assert.match(report.summaryLines[0], /5\/6 = 83\.3% \(95% CI 43\.6%–97\.0%\)/);
    const pages = report.rows.find(r => r.id === 'pages')!;
    assert.deepEqual([pages.answer, pages.target, pages.exact, pages.substring], ['6', '8', false, false]);
    for (const r of report.rows) assert.ok(r.trace?.startsWith(workspaceUri('.art/runs').fsPath) && existsSync(r.trace), `${r.id}: ${r.trace}`);

    // The page loaded its bundle and drew the chart (a bar per task) and a row per example.
    assert.deepEqual(await drawn, { tasks: 1, rows: 6, chart: true });
    const panel = second.panel;
    assert.equal(panel.viewType, 'art.evalResults');
    assert.match(
      panel.webview.html,
      /Content-Security-Policy" content="default-src 'none'; img-src [^;]+; style-src 'nonce-[^']+'; script-src 'nonce-[^']+';"/,
    );
    assert.match(panel.webview.html, /<script nonce="[^"]+" src="[^"]+\/dist\/evalView\.js"><\/script>/);
    assert.doesNotMatch(panel.webview.html, /cdn\.jsdelivr|unpkg|cdnjs/, 'nothing from a CDN');
  });

  it("an example's link replays its run in the debugger from its trace, stopping before and after its tool call", async () => {
    const api = await artStudio();
    const trace = api.runner.evaluations.shown!.rows.find(r => r.id === 'pages')!.trace!;
    const started = new Promise<vscode.DebugSession>(resolve => subscriptions.push(vscode.debug.onDidStartDebugSession(resolve)));
    const stops: any[] = [];
    const waiting: ((m: any) => void)[] = [];
    subscriptions.push(
      vscode.debug.registerDebugAdapterTrackerFactory('art', {
        createDebugAdapterTracker: () => ({
          onDidSendMessage: (m: any) => {
            if (m.type !== 'event' || m.event !== 'stopped') return;
            const waiter = waiting.shift();
            if (waiter) waiter(m);
            else stops.push(m);
          },
        }),
      }),
    );
    const nextStop = () => (stops.length ? Promise.resolve(stops.shift()) : new Promise<any>(resolve => waiting.push(resolve)));
    const before = server.requests.length;
    assert.equal(await api.runner.evaluations.replay('pages'), true);
    const session = await started;
    assert.equal(session.configuration.program, trace);
    assert.equal(session.configuration.pauseBeforeTool, true, "an example is replayed to be debugged: its calls' inputs can be corrected");
    assert.match(session.name, /^Replay library-pages, /);
    assert.match((await nextStop()).body.description, /calculator/);
    let state = (await session.customRequest(StateRequest.command)) as StateRequest.Response;
    assert.deepEqual([state.phase, state.call?.input, state.call?.output], ['before', '240 / 30', undefined], JSON.stringify(state.call));
    await session.customRequest('continue', { threadId: 1 });
    await nextStop();
    state = (await session.customRequest(StateRequest.command)) as StateRequest.Response;
    assert.equal(state.phase, 'after');
    assert.equal(state.call?.output?.trim(), '8', JSON.stringify(state.call));
    assert.equal(server.requests.length, before, 'a replay asks the endpoint nothing');
    await vscode.debug.stopDebugging(session);
  });

  it('run again as a new evaluation: a new results file beside the old, the comparison offered and drawn', async () => {
    const api = await artStudio();
    const before = readFileSync(results().fsPath, 'utf8');
    server.reset();
    const third = await vscode.commands.executeCommand<Awaited<ReturnType<typeof api.runner.evaluations.run>>>(
      'art.evaluateTask',
      library(),
      data(),
      ARITHMETIC_TASK,
      'new',
    );
    assert.ok(third, 'the new evaluation ran');
    const fresh = workspaceUri('evaluation/arithmetic.library-2.results.jsonl').fsPath;
    assert.equal(third.end.resultsPath, fresh);
    assert.equal(readFileSync(results().fsPath, 'utf8'), before, 'the earlier results file is untouched');
    assert.deepEqual(
      [api.runner.evaluations.offered?.previous, api.runner.evaluations.offered?.latest],
      [results().fsPath, fresh],
      'the comparison with the previous evaluation is offered',
    );
    const drawn = new Promise(resolve => subscriptions.push(api.runner.comparisons.onDidDraw(resolve)));
    const report = await vscode.commands.executeCommand<any>('art.compareEvaluations', results().fsPath, fresh);
    assert.deepEqual([report.a.n, report.a.correct, report.b.correct, report.fixed.length, report.broken.length], [6, 5, 5, 0, 0]);
    assert.match(report.pWords, /no example changed/);
    assert.deepEqual(report.differences, []);
    assert.deepEqual(await drawn, { fixed: 0, broken: 0, p: '1.0000' });
  });
});
