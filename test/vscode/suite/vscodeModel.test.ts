// Runs on a model of VS Code's Language Model API (art.model.source "vscode"): the test-only provider extension
// (test/vscode/lm-provider/) offers the zoo's endpoints (test/support/modelZoo.ts, started here) as `art-test` models,
// and a run started in the editor goes through vscode.lm to them. A wrapping chat model's reply is made a bare
// continuation, a model that calls tools runs the program over function calling, the run's first lines say what the
// model cannot do (no log-probabilities), and a model VS Code does not offer is one line naming those it does.
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'mocha';
import * as vscode from 'vscode';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { ZOO_LIBRARY, ZOO_PROGRAM, ZooServer } from '../../support/modelZoo';
import { ARITHMETIC_DATA, ARITHMETIC_LIBRARY, ARITHMETIC_TASK, arithmeticScripts } from '../../support/arithmeticModel';
import { ScriptedServer } from '../../support/scriptedServer';
import { NO_LOGPROBS_NOTE } from '../../../core/model/chatContinuation';
import { provideChatModel } from '../../../client/lm/vscodeModel';
import { artStudio, disposeAndStopDebugging, until, workspaceUri, writeWorkspaceFile } from './helpers';

interface DapMessage {
  type: string;
  event?: string;
  command?: string;
  success?: boolean;
  message?: string;
  body?: any;
}

describe("runs on a model of VS Code's Language Model API (art.model.source vscode)", function () {
  this.timeout(90_000);
  const file = 'zoo-lm.art';
  const servers: ZooServer[] = [];
  const subscriptions: vscode.Disposable[] = [];
  let messages: DapMessage[] = [];
  let arith: ScriptedServer;
  const config = () => vscode.workspace.getConfiguration();

  before(async () => {
    await writeWorkspaceFile(file, ZOO_LIBRARY);
    const wrapper = await new ZooServer('wrapper').start();
    const caller = await new ZooServer('tool-call').start();
    servers.push(wrapper, caller);
    arith = await new ScriptedServer({ tokenDelayMs: 0 }).start();
    arith.setScripts(...arithmeticScripts());
    await config().update(
      'artTestModels.endpoints',
      [
        { id: 'zoo-wrapper', name: 'Zoo Wrapper', baseURL: wrapper.baseURL },
        { id: 'zoo-tools', name: 'Zoo Tools', baseURL: caller.baseURL, toolCalling: true },
        { id: 'arith', name: 'Arithmetic', baseURL: arith.baseURL },
      ],
      vscode.ConfigurationTarget.Workspace,
    );
    subscriptions.push(
      vscode.debug.registerDebugAdapterTrackerFactory('art', {
        createDebugAdapterTracker: () => ({ onDidSendMessage: (m: DapMessage) => void messages.push(m) }),
      }),
    );
    await artStudio();
    // The provider's models appear once VS Code has asked it (on the change event of its setting).
    let models: vscode.LanguageModelChat[] = [];
    const refresh = async () => void (models = await vscode.lm.selectChatModels({ vendor: 'art-test' }));
    subscriptions.push(vscode.lm.onDidChangeChatModels(() => void refresh()));
    await refresh();
    await until(() => models.length === 3, "the test provider's three models in vscode.lm.selectChatModels", 30_000);
  });

  after(async () => {
    await disposeAndStopDebugging(subscriptions);
    for (const key of ['artTestModels.endpoints', 'art.model.source', 'art.model.vscodeModel'])
      await config().update(key, undefined, vscode.ConfigurationTarget.Workspace);
    await Promise.all(servers.map(s => s.close()));
    await ScriptedServer.closeAll();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  /** Runs the zoo's program without stopping on the settings' model; resolves with the end event and the console. */
  async function run(vscodeModel: string, input?: string) {
    messages = [];
    await config().update('art.model.source', 'vscode', vscode.ConfigurationTarget.Workspace);
    await config().update('art.model.vscodeModel', vscodeModel, vscode.ConfigurationTarget.Workspace);
    const ended = new Promise<void>(resolve => {
      const sub = vscode.debug.onDidTerminateDebugSession(() => {
        sub.dispose();
        resolve();
      });
    });
    const started = await vscode.debug.startDebugging(
      vscode.workspace.workspaceFolders![0],
      {
        type: 'art',
        request: 'launch',
        name: `Zoo on ${vscodeModel}`,
        program: workspaceUri(file).fsPath,
        task: ZOO_PROGRAM,
        mode: 'generate',
        input,
      },
      { noDebug: true },
    );
    if (started) await ended;
    const console = messages
      .filter(m => m.type === 'event' && m.event === 'output')
      .map(m => String(m.body.output))
      .join('');
    const launch = messages.find(m => m.type === 'response' && m.command === 'launch');
    const end = messages.find(m => m.type === 'event' && m.event === 'art/end')?.body;
    return { started, console, launch, end };
  }

  it("a chat model that wraps its replies: the run finishes with the calculator's answer; the first lines say what the model cannot do", async () => {
    const r = await run('zoo-wrapper');
    assert.equal(r.launch?.success, true, r.launch?.message);
    assert.match(r.console, /model: vscode-lm:art-test\/zoo-wrapper \(VS Code's Language Model API\), programs continued over chat/);
    assert.ok(r.console.includes(NO_LOGPROBS_NOTE), r.console);
    assert.equal(r.end?.answer, '10', r.console);
    // The Language Model API reports no usage: the end line does not claim a count of 0.
    assert.match(r.console, /\(2 requests, no tokens reported\)/);
    // The wrapper is said once (a repair line), and nothing of it is in the program.
    assert.match(r.console, /the chat reply was repaired: unwrapped the continuation from a chat preamble/);
    assert.doesNotMatch(r.end?.text ?? '', /Sure!|```/);
    // The zoo was asked with no stop sequence and no logprobs: the Language Model API has neither.
    assert.ok(servers[0].requests.length >= 2 && servers[0].requests.every(q => q.stop.length === 0 && q.body.logprobs === undefined));
  });

  it('a model that calls tools: the call becomes Q1: [calculator] 21 + 3, its output goes back as the result, the run finishes', async () => {
    const r = await run('zoo-tools', 'Tom has 21 pens and buys 3 more. How many pens does he have?');
    assert.equal(r.launch?.success, true, r.launch?.message);
    assert.match(r.console, /zoo-tools .*over its function calling/);
    assert.equal(r.end?.answer, '24', r.console);
    const [first, second] = servers[1].requests.map(q => q.body);
    assert.ok(first.tools.some((t: { function: { name: string } }) => t.function.name === 'calculator'));
    assert.deepEqual(second.messages.at(-1), { role: 'tool', tool_call_id: 'art000001', content: '24' });
  });

  it('a model VS Code does not offer: one line naming the models it does (the launch shows it as its error)', async () => {
    // Through the adapter the launch fails with this line (core's callerChatModel, unit-tested); here the workbench
    // of the test host would refuse the error dialog, so the provider is asked directly.
    await assert.rejects(provideChatModel('no-such-model', 'a test'), (e: Error) =>
      /^no language model of VS Code is "no-such-model" \(art\.model\.vscodeModel\): VS Code offers .*"zoo-wrapper", "zoo-tools"/.test(e.message),
    );
    const backend = await provideChatModel('Zoo Tools', 'a test');
    assert.equal(backend.id, 'vscode-lm:art-test/zoo-tools', 'found by name as by id');
    assert.equal(backend.callsFunctions, true, "the model's tool calling, as its provider declares it");
  });

  it('Evaluate Task on the model: the examples scored, the results file names the model', async () => {
    mkdirSync(workspaceUri('evaluation-lm').fsPath, { recursive: true });
    const library = workspaceUri('evaluation-lm/library.art');
    const data = workspaceUri('evaluation-lm/arithmetic.jsonl');
    copyFileSync(ARITHMETIC_LIBRARY, library.fsPath);
    copyFileSync(ARITHMETIC_DATA, data.fsPath);
    await config().update('art.model.source', 'vscode', vscode.ConfigurationTarget.Workspace);
    await config().update('art.model.vscodeModel', 'arith', vscode.ConfigurationTarget.Workspace);
    const api = await artStudio();
    const outcome = await api.runner.evaluations.run(library, data, ARITHMETIC_TASK, undefined, 'new');
    assert.ok(outcome, 'the evaluation ran');
    assert.deepEqual(
      outcome.report.tasks.map(t => [t.task, t.n, t.exact]),
      [[ARITHMETIC_TASK, 6, 5]],
    );
    const header = JSON.parse(readFileSync(outcome.end.resultsPath, 'utf8').split('\n')[0]);
    assert.deepEqual([header.model, header.endpoint], ['vscode-lm:art-test/arith', "VS Code's Language Model API"]);
  });
});
