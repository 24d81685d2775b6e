// "ART: Show Prompt" in VS Code: for the program under the cursor without running it, during a debug session (the
// current run's prompt and what the model wrote so far), and from a trace file; each in a read-only `art-run:`
// document whose header lists the demonstrations and why each was chosen, the prompt after the marker exactly.
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'mocha';
import * as vscode from 'vscode';
import { artStudio, disposeAndStopDebugging, open, until, workspaceUri, writeWorkspaceFile } from './helpers';

const LIBRARY = `Preamble of the prompt test.

Description: (Greeting) Say hello.
Input: hi
Q1: [EOQ]
Ans: hello
----
Description: (Elementary Math) Add two numbers with python code. Store your result as a variable named 'ans'.
Input: What is 2 + 3?
Q1: [generate python code] Write the addition as python code, storing the answer as 'ans'
#1:
ans = 2 + 3
print(ans)
Q2: [code execute] Execute the python code in #1 and get the value of "ans"
#2: 5
Q3: [EOQ]
Ans: 5
`;

const MARKER = '======== the prompt, exactly as sent ========';

describe('ART: Show Prompt', function () {
  this.timeout(60_000);
  const file = 'show-prompt.art';
  const subscriptions: vscode.Disposable[] = [];

  before(async () => {
    await writeWorkspaceFile(file, LIBRARY);
    await artStudio();
  });

  after(async () => {
    await disposeAndStopDebugging(subscriptions);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  const shown = () => vscode.window.visibleTextEditors.find(e => e.document.uri.scheme === 'art-run' && e.document.uri.path.startsWith('/Prompt of'));

  it('for the program under the cursor, without running it: the demonstrations, why, and the prompt exactly', async () => {
    const editor = await open(file);
    const line = editor.document
      .getText()
      .split('\n')
      .findIndex(l => l.startsWith('Input: What is 2 + 3?'));
    editor.selection = new vscode.Selection(line, 2, line, 2);
    const started: vscode.DebugSession[] = [];
    subscriptions.push(vscode.debug.onDidStartDebugSession(s => started.push(s)));
    await vscode.commands.executeCommand('art.showPrompt');
    const report = await until(shown, 'the prompt document');
    const text = report.document.getText();
    assert.match(text, /^Prompt of Elementary Math · show-prompt\.art\n/);
    assert.match(
      text,
      /\nDemonstrations \(1\), in prompt order:\n1\. Greeting \(show-prompt\.art:3, program 0\)\n {3}why: same-file: a program of the library being run\n/,
    );
    const prompt = text.slice(text.indexOf(MARKER) + MARKER.length + 1);
    assert.equal(
      prompt,
      "Preamble of the prompt test.\n\nDescription: (Greeting) Say hello.\nInput: hi\nQ1: [EOQ]\nAns: hello\n----\nDescription: (Elementary Math) Add two numbers with python code. Store your result as a variable named 'ans'.\nInput: What is 2 + 3?\nQ1:\n",
    );
    assert.equal(report.document.isDirty, false, 'read-only, never dirty');
    assert.equal(started.length, 0, 'nothing ran');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it("during a debug session: the run's prompt and what the model wrote so far; then from the run's trace", async () => {
    const stops: unknown[] = [];
    subscriptions.push(
      vscode.debug.registerDebugAdapterTrackerFactory('art', {
        createDebugAdapterTracker: () => ({
          onDidSendMessage: (m: { type: string; event?: string }) => void (m.type === 'event' && m.event === 'stopped' && stops.push(m)),
        }),
      }),
    );
    const ended = new Promise<{ tracePath?: string }>(resolve =>
      subscriptions.push(vscode.debug.onDidReceiveDebugSessionCustomEvent(e => e.event === 'art/end' && resolve(e.body))),
    );
    const ok = await vscode.debug.startDebugging(vscode.workspace.workspaceFolders![0], {
      type: 'art',
      request: 'launch',
      name: 'Show Prompt test',
      program: workspaceUri(file).fsPath,
      task: 1,
      mode: 'replay',
    });
    assert.ok(ok, 'the session started');
    await until(() => stops.length > 0, 'a stop at the first tool call', 30_000);
    await vscode.commands.executeCommand('art.showPrompt');
    const during = await until(() => shown()?.document.getText().includes('generated so far') && shown(), 'the prompt of the debugged run');
    const text = during.document.getText();
    assert.match(text, /^Prompt of Elementary Math · show-prompt\.art\nModel: replay:/);
    assert.match(text, /why: same-file/);
    assert.match(text, /\n======== generated so far[^\n]*\n \[generate python code\] Write the addition/);

    await vscode.debug.stopDebugging();
    const end = await ended;
    assert.ok(end.tracePath, 'the run wrote a trace');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('art.showPrompt', vscode.Uri.file(end.tracePath!));
    const fromTrace = await until(shown, 'the prompt of the trace');
    const recorded = fromTrace.document.getText();
    assert.match(recorded, /why: same-file: a program of the library being run/);
    // The trace recorded the same prompt the session showed.
    assert.equal(
      recorded.slice(recorded.indexOf(MARKER)).split('\n======== generated')[0],
      text.slice(text.indexOf(MARKER)).split('\n======== generated')[0],
    );
  });
});
