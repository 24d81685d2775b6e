// The key host rule inside VS Code (client/runner/keyHosts.ts over core/launch/apiKey.ts): a launch configuration or
// the workspace's settings point a run at an endpoint that is not the user's own `art.model.baseURL`, and the key
// stored with "ART: Set API Key" goes there only once the user said so. The modal cannot be clicked from the
// extension host, so the question is answered through `keyHosts.answerWith` (extension mode Test only; the modal
// itself: test/vscode/e2e); everything else is the product's: the stored key, the debug session, the evaluation,
// globalState, and the scripted server that records the Authorization header each request carried.
import * as assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'mocha';
import * as vscode from 'vscode';
import type { KeyHostAnswer, KeyHostQuestion } from '../../../core/launch/apiKey';
import { ARITHMETIC_DATA, ARITHMETIC_LIBRARY, ARITHMETIC_TASK, arithmeticExamples, arithmeticScripts } from '../../support/arithmeticModel';
import { ScriptedServer } from '../../support/scriptedServer';
import { artStudio, disposeAndStopDebugging, workspaceUri } from './helpers';

const KEY = 'sk-keyhost-0123456789';

describe('the stored key and the hosts a workspace names', function () {
  this.timeout(90_000);
  let server: ScriptedServer;
  const subscriptions: vscode.Disposable[] = [];
  const output: string[] = [];
  const questions: KeyHostQuestion[] = [];
  let answers: KeyHostAnswer[] = [];
  const library = () => workspaceUri('keyhost/library.art');
  const data = () => workspaceUri('keyhost/arithmetic.jsonl');
  const config = () => vscode.workspace.getConfiguration('art');
  const origin = () => new URL(server.baseURL).origin;

  before(async () => {
    mkdirSync(workspaceUri('keyhost').fsPath, { recursive: true });
    copyFileSync(ARITHMETIC_LIBRARY, library().fsPath);
    copyFileSync(ARITHMETIC_DATA, data().fsPath);
    server = await new ScriptedServer({ tokenDelayMs: 0 }).start();
    server.setScripts(...arithmeticScripts());
    const api = await artStudio();
    await api.runner.keyHosts.forget();
    api.runner.keyHosts.answerWith(async q => {
      questions.push(q);
      const a = answers.shift();
      assert.ok(a, `asked once more than expected: ${q.message}`);
      return a;
    });
    await vscode.commands.executeCommand('art.setApiKey', KEY);
    subscriptions.push(
      vscode.debug.registerDebugAdapterTrackerFactory('art', {
        createDebugAdapterTracker: () => ({
          onDidSendMessage: (m: { type: string; event?: string; body?: { output?: string } }) => {
            if (m.type === 'event' && m.event === 'output' && m.body?.output) output.push(m.body.output);
          },
        }),
      }),
    );
  });

  after(async () => {
    await disposeAndStopDebugging(subscriptions);
    const api = await artStudio();
    // Later suites run with no stored key and the modal back (none of them has a key to send).
    await vscode.commands.executeCommand('art.setApiKey', '');
    await api.runner.keyHosts.forget();
    api.runner.keyHosts.answerWith(undefined);
    await config().update('model.baseURL', undefined, vscode.ConfigurationTarget.Workspace);
    await config().update('model.name', undefined, vscode.ConfigurationTarget.Workspace);
    await ScriptedServer.closeAll();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  /** Runs the eggs example from a launch configuration that names the scripted server; resolves when the session ends. */
  async function runFromLaunchJson(name: string): Promise<void> {
    output.length = 0;
    server.reset();
    const ended = new Promise<void>(resolve => {
      const sub = vscode.debug.onDidTerminateDebugSession(() => {
        sub.dispose();
        resolve();
      });
    });
    const eggs = arithmeticExamples().find(e => e.id === 'eggs')!;
    const started = await vscode.debug.startDebugging(
      vscode.workspace.workspaceFolders![0],
      {
        type: 'art',
        request: 'launch',
        name,
        program: library().fsPath,
        task: ARITHMETIC_TASK,
        input: eggs.input,
        mode: 'generate',
        baseURL: server.baseURL,
        model: 'scripted',
        trace: workspaceUri(`keyhost/${name}.jsonl`).fsPath,
      },
      { noDebug: true },
    );
    assert.ok(started, 'the session started');
    await ended;
  }
  const sent = () => server.requests.map(r => r.authorization ?? '(none)');

  it('a launch configuration that names another host: asked; Run Without Key runs with no key and says so', async () => {
    questions.length = 0;
    answers = ['withhold'];
    await runFromLaunchJson('keyhost without');
    assert.equal(questions.length, 1);
    const folder = vscode.workspace.workspaceFolders![0].name;
    assert.equal(
      questions[0].message,
      `The launch configuration "keyhost without" of ${folder} sends your stored API key to ${origin()}. Send the key there?`,
    );
    assert.match(questions[0].detail, /Your setting "art\.model\.baseURL" is http:\/\/127\.0\.0\.1:8000\./);
    assert.ok(sent().length > 0, 'the run asked the model');
    for (const a of sent()) assert.doesNotMatch(a, new RegExp(KEY), 'the key was not sent');
    const lines = output.join('').split('\n');
    assert.match(lines[0], /^Live: scripted at /);
    assert.match(
      lines[1],
      new RegExp(
        `^key: not sent: the endpoint ${origin()} \\(set by the launch configuration "keyhost without" of .*\\) is not your setting http://127\\.0\\.0\\.1:8000, and you chose Run Without Key`,
      ),
    );
    assert.deepEqual((await artStudio()).runner.keyHosts.approved(), [], 'a refusal is not an approval');
  });

  it('Cancel: the run does not start and nothing reaches the host', async () => {
    await (await artStudio()).runner.keyHosts.forget();
    questions.length = 0;
    answers = ['cancel'];
    await runFromLaunchJson('keyhost cancel');
    assert.equal(questions.length, 1);
    assert.deepEqual(sent(), [], 'no request');
    assert.match(output.join(''), new RegExp(`^The run did not start: you cancelled sending your stored API key to ${origin()}`));
  });

  it('the workspace settings naming another host: "ART: Evaluate Task" asks too, and Cancel starts nothing', async () => {
    await config().update('model.baseURL', server.baseURL, vscode.ConfigurationTarget.Workspace);
    await config().update('model.name', 'scripted', vscode.ConfigurationTarget.Workspace);
    questions.length = 0;
    answers = ['cancel'];
    server.reset();
    const outcome = await (await artStudio()).runner.evaluations.run(library(), data(), ARITHMETIC_TASK, undefined, 'new');
    assert.equal(outcome, undefined, 'no evaluation');
    assert.equal(questions.length, 1);
    assert.equal(questions[0].message, `The workspace settings send your stored API key to ${origin()}. Send the key there?`);
    assert.deepEqual(sent(), []);
    await config().update('model.baseURL', undefined, vscode.ConfigurationTarget.Workspace);
    await config().update('model.name', undefined, vscode.ConfigurationTarget.Workspace);
  });

  it('Send Key: the key goes, the host is remembered in globalState and the next run is not asked', async () => {
    const keyHosts = (await artStudio()).runner.keyHosts;
    questions.length = 0;
    answers = ['send'];
    await runFromLaunchJson('keyhost send');
    assert.equal(questions.length, 1);
    assert.ok(sent().length > 0);
    for (const a of sent()) assert.equal(a, `Bearer ${KEY}`);
    assert.deepEqual(keyHosts.approved(), [{ origin: `${origin()}`, key: 'stored' }]);
    assert.match(output.join(''), new RegExp(`\nkey: your stored API key goes to ${origin()} .*you approved that host\\.\n`));

    await runFromLaunchJson('keyhost again');
    assert.equal(questions.length, 1, 'not asked again');
    for (const a of sent()) assert.equal(a, `Bearer ${KEY}`);

    const forgotten = await vscode.commands.executeCommand<unknown[]>('art.forgetKeyHosts');
    assert.equal(forgotten.length, 1);
    assert.deepEqual(keyHosts.approved(), []);
    answers = ['cancel'];
    await runFromLaunchJson('keyhost forgotten');
    assert.equal(questions.length, 2, 'asked again once forgotten');
  });
});
