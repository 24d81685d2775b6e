// The art.telemetry.* settings inside VS Code: "ART: Evaluate Task" against the scripted OpenAI-compatible server
// (started here, in the extension host) sends nothing while art.telemetry.endpoint is empty (the default), and with it
// set to a local OTLP receiver (test/support/otlpReceiver.ts) sends the evaluation's span, one span per example with
// its score and each example's run under it, without content unless art.telemetry.content is on.
import * as assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { after, before, describe, it } from 'mocha';
import * as vscode from 'vscode';
import { ARITHMETIC_DATA, ARITHMETIC_LIBRARY, ARITHMETIC_TASK, arithmeticExamples, arithmeticScripts } from '../../support/arithmeticModel';
import { OtlpReceiver } from '../../support/otlpReceiver';
import { ScriptedServer } from '../../support/scriptedServer';
import { artStudio, workspaceUri } from './helpers';

describe('art.telemetry settings: an evaluation as OpenTelemetry spans', function () {
  this.timeout(120_000);
  let server: ScriptedServer;
  let receiver: OtlpReceiver;
  const library = () => workspaceUri('telemetry/library.art');
  const data = () => workspaceUri('telemetry/arithmetic.jsonl');
  const results = () => workspaceUri('telemetry/arithmetic.library.results.jsonl');
  const config = () => vscode.workspace.getConfiguration('art');
  const settings = ['model.baseURL', 'model.name', 'telemetry.endpoint', 'telemetry.content'];

  before(async () => {
    mkdirSync(workspaceUri('telemetry').fsPath, { recursive: true });
    copyFileSync(ARITHMETIC_LIBRARY, library().fsPath);
    copyFileSync(ARITHMETIC_DATA, data().fsPath);
    server = await new ScriptedServer({ tokenDelayMs: 0 }).start();
    server.setScripts(...arithmeticScripts());
    receiver = await new OtlpReceiver().start();
    await config().update('model.baseURL', server.baseURL, vscode.ConfigurationTarget.Workspace);
    await config().update('model.name', 'scripted', vscode.ConfigurationTarget.Workspace);
    await artStudio();
  });

  after(async () => {
    for (const key of settings) await config().update(key, undefined, vscode.ConfigurationTarget.Workspace);
    await ScriptedServer.closeAll();
    await receiver.close();
  });

  const evaluate = async () => {
    rmSync(results().fsPath, { force: true });
    const run = await (await artStudio()).runner.evaluations.run(library(), data(), ARITHMETIC_TASK, new vscode.CancellationTokenSource().token);
    assert.ok(run, 'the evaluation ran');
    assert.equal(run.end.results.length, arithmeticExamples().length);
  };

  it('sends nothing while art.telemetry.endpoint is empty, the default', async () => {
    assert.equal(config().get('telemetry.endpoint'), '');
    await evaluate();
    assert.equal(receiver.requests.length, 0);
  });

  it('with art.telemetry.endpoint set: the evaluation, its examples with their scores, each example the parent of its run', async () => {
    await config().update('telemetry.endpoint', receiver.baseURL, vscode.ConfigurationTarget.Workspace);
    await evaluate();
    const n = arithmeticExamples().length;
    // The spans go out when each run and the evaluation end, in the background: wait for them to arrive.
    await receiver.waitFor(s => s.some(x => x.name.startsWith('evaluate ')) && s.filter(x => x.name.startsWith('invoke_agent ')).length === n);
    const spans = receiver.spans;
    const evaluation = spans.find(s => s.name.startsWith('evaluate '))!;
    assert.equal(evaluation.attributes['art.eval.exact'], n - 1);
    const examples = spans.filter(s => s.parentSpanId === evaluation.spanId);
    assert.equal(examples.length, n);
    for (const ex of examples) {
      assert.equal(ex.attributes['gen_ai.evaluation.score.value'], ex.attributes['art.eval.example'] === 'pages' ? 0 : 1);
      assert.equal(spans.filter(s => s.parentSpanId === ex.spanId && s.name.startsWith('invoke_agent ')).length, 1);
    }
    assert.ok(
      spans.every(s => s.attributes['input.value'] === undefined),
      'no content without art.telemetry.content',
    );
  });
});
