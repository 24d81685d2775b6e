// Debugging a program inside VS Code: F5 on a task library with no launch.json runs the program at the cursor
// with the replay model (no endpoint), stops after each tool call (Python really runs [code execute]), the output
// is overridden through the Variables view's setVariable and the "ART: Override Tool Output" command, the run
// continues to the answer, the program streamed into an untitled editor, and "ART: Save as Demonstration"
// appends it to a library with one undoable edit.
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'mocha';
import * as vscode from 'vscode';
import { artStudio, disposeAndStopDebugging, open, until, workspaceUri, writeWorkspaceFile } from './helpers';

const LIBRARY = `In these examples, you are given a task description and an input. Break the input down into subtasks in order to solve the task.

Description: (Sports Understanding) Determine whether a sentence relating to sports is plausible. The final answer should be "yes" or "no".
Input: Is the following sentence plausible? "Lionel Messi threw a touchdown pass."
Q1: [think step-by-step]
#1: Lionel Messi is a soccer player. A touchdown pass is part of American football. So the answer is no.
Q2: [EOQ]
Ans: no
----
Description: (Elementary Math) Solve the following middle-school arithmetic problems, writing out intermediate arithmetic calculations as python code. Store your result as a variable named 'ans'.
Input: Janet's ducks lay 16 eggs per day. She eats three for breakfast and bakes muffins with four. She sells the remainder for $2 per egg. How much in dollars does she make every day?
Q1: [generate python code] Write down the arithmetic or algebra equations as python code, storing the answer as 'ans'
#1:
total_eggs = 16
eaten_eggs = 3
baked_eggs = 4
sold_eggs = total_eggs - eaten_eggs - baked_eggs
dollars_per_egg = 2
ans = sold_eggs * dollars_per_egg
print(ans)
Q2: [code execute] Execute the python code in #1 and get the value of "ans"
#2: 18
Q3: [EOQ]
Ans: 18
----
Description: %s
Input: %s
Q1:
`;

interface DapMessage {
  type: string;
  event?: string;
  body?: any;
}

describe('debugging a program (art debug adapter, replay mode)', function () {
  this.timeout(60_000);
  const file = 'debug-ducks.art';
  const demos = 'demos.art';
  const messages: DapMessage[] = [];
  const subscriptions: vscode.Disposable[] = [];

  before(async () => {
    await writeWorkspaceFile(file, LIBRARY);
    await writeWorkspaceFile(demos, 'Description: (Greeting) Say hello.\nInput: hi\nQ1: [EOQ]\nAns: hello\n');
    subscriptions.push(
      vscode.debug.registerDebugAdapterTrackerFactory('art', {
        createDebugAdapterTracker: () => ({ onDidSendMessage: (m: DapMessage) => void messages.push(m) }),
      }),
    );
    await artStudio();
  });

  after(async () => {
    await disposeAndStopDebugging(subscriptions);
    // Close the streamed (untitled) and edited documents without saving them.
    for (const doc of vscode.workspace.textDocuments.filter(d => d.isDirty)) {
      await vscode.window.showTextDocument(doc);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  const stops = () => messages.filter(m => m.type === 'event' && m.event === 'stopped');
  const nextStop = async (n: number) => until(() => stops()[n], `stop number ${n + 1}`, 30_000);

  it('shows Run and Debug CodeLenses above each program', async () => {
    const editor = await open(file);
    let lenses: vscode.CodeLens[] = [];
    for (let i = 0; i < 100 && lenses.filter(x => x.command?.command === 'art.debugProgram').length < 2; i++) {
      lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', editor.document.uri);
      if (lenses.length < 4) await new Promise(r => setTimeout(r, 50));
    }
    const runLens = lenses.filter(l => l.command?.command === 'art.runProgram');
    assert.deepEqual(
      runLens.map(l => l.command!.arguments![1]),
      [0, 1],
      'one per program, not the template',
    );
  });

  it('F5 with no launch.json debugs the program at the cursor; stop, inspect, override, continue to the answer', async () => {
    const editor = await open(file);
    const line = editor.document
      .getText()
      .split('\n')
      .findIndex(l => l.startsWith('Input: Janet'));
    editor.selection = new vscode.Selection(line, 3, line, 3);
    const started = new Promise<vscode.DebugSession>(resolve => subscriptions.push(vscode.debug.onDidStartDebugSession(resolve)));
    const ended = new Promise<void>(resolve => subscriptions.push(vscode.debug.onDidTerminateDebugSession(() => resolve())));
    const endEvent = new Promise<any>(resolve =>
      subscriptions.push(vscode.debug.onDidReceiveDebugSessionCustomEvent(e => e.event === 'art/end' && resolve(e.body))),
    );

    await vscode.commands.executeCommand('workbench.action.debug.start');
    const session = await started;
    assert.equal(session.type, 'art');
    assert.equal(session.configuration.task, 1, 'the program at the cursor');
    assert.equal(session.configuration.mode, 'replay', 'no model configured: replay');

    // Stop 1: after [generate python code].
    const first = await nextStop(0);
    assert.equal(first.body.reason, 'tool call');
    assert.match(first.body.description, /generate python code/);
    await session.customRequest('continue', { threadId: 1 });

    // Stop 2: after [code execute]; the code really ran.
    const second = await nextStop(1);
    assert.match(second.body.description, /\[code execute\]/);
    const frames = await session.customRequest('stackTrace', { threadId: 1 });
    // A remote workbench (code-server) hands paths back as vscode-remote:// URIs.
    const path: string = frames.stackFrames[0].source.path;
    assert.equal(path.startsWith('/') ? path : vscode.Uri.parse(path).fsPath, editor.document.uri.fsPath);
    assert.equal(
      frames.stackFrames[0].line - 1,
      editor.document
        .getText()
        .split('\n')
        .findIndex(l => l.startsWith('Q2: [code execute]')),
    );
    const scopes = await session.customRequest('scopes', { frameId: frames.stackFrames[0].id });
    const toolScope = scopes.scopes.find((s: { name: string }) => s.name === 'Tool call');
    const read = async () =>
      Object.fromEntries(
        (await session.customRequest('variables', { variablesReference: toolScope.variablesReference })).variables.map(
          (v: { name: string; value: string }) => [v.name, v.value],
        ),
      );
    assert.equal((await read()).output, '18');
    await session.customRequest('setVariable', { variablesReference: toolScope.variablesReference, name: 'output', value: '41' });
    assert.equal((await read()).output, '41');
    // The command does the same from the palette (here with its text given).
    assert.equal(await vscode.commands.executeCommand('art.overrideToolOutput', '42'), true);
    assert.equal((await read()).output, '42');
    await session.customRequest('continue', { threadId: 1 });

    // The override ends the replay: with no model configured the run stops there and says why, rather than replay
    // the recorded `Ans: 18` as if it still followed from 42.
    const end = await endEvent;
    await ended;
    assert.equal(end.reason, 'departed');
    assert.match(end.error, /departed from its recording \(#2's output was set by hand\)/);
    assert.match(end.text, /\n#2: 42\n$/);
    const output = messages
      .filter(m => m.event === 'output')
      .map(m => m.body.output)
      .join('');
    assert.match(output, /departs from its recording here/);

    // The program streamed into a read-only document of its own: highlighted as ART, never dirty, never checked.
    const streamed = await until(
      () => vscode.workspace.textDocuments.find(d => d.uri.scheme === 'art-run' && d.getText().endsWith('#2: 42\n')),
      'the streamed program',
    );
    assert.match(streamed.getText(), /^Description: \(Elementary Math\)[\s\S]*\n#2: 42\n/);
    assert.equal(streamed.languageId, 'art-run');
    assert.equal(streamed.isDirty, false);
    assert.deepEqual(vscode.languages.getDiagnostics(streamed.uri), [], 'no Problems entries from the run');
    assert.ok(!vscode.workspace.textDocuments.some(d => d.isUntitled), 'no untitled editor left behind');
  });

  it('Save as Demonstration appends a finished program to a library with one undoable edit', async () => {
    // Run the program to its end (Run: no stops), then save it.
    const endEvent = new Promise<any>(resolve =>
      subscriptions.push(vscode.debug.onDidReceiveDebugSessionCustomEvent(e => e.event === 'art/end' && resolve(e.body))),
    );
    const ended = new Promise<void>(resolve => subscriptions.push(vscode.debug.onDidTerminateDebugSession(() => resolve())));
    await vscode.commands.executeCommand('art.runProgram', workspaceUri(file), 1);
    const end = await endEvent;
    await ended;
    assert.equal(end.reason, 'finished', end.error);
    assert.equal(end.answer, '18');
    const target = workspaceUri(demos);
    const range = await vscode.commands.executeCommand<vscode.Range | undefined>('art.saveDemonstration', target);
    assert.ok(range, 'the program was inserted');
    const doc = await vscode.workspace.openTextDocument(target);
    assert.equal(doc.isDirty, true, 'inserted, not saved');
    assert.match(
      doc.getText(),
      /^Description: \(Greeting\)[\s\S]*Ans: hello\n\nDescription: \(Elementary Math\)[\s\S]*\nQ2: \[code execute\][^\n]*\n#2: 18\nQ3: \[EOQ\]\nAns: 18\n$/,
    );
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand('undo');
    await until(() => !doc.getText().includes('Elementary Math'), 'the edit undone');
  });

  it("Open Trace reads the run's JSONL trace", async () => {
    const end = messages.filter(m => m.event === 'art/end' && m.body.reason === 'departed').at(-1)!.body;
    assert.ok(end.tracePath, 'the run wrote a trace');
    await vscode.commands.executeCommand('art.openTrace', vscode.Uri.file(end.tracePath));
    const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.file(end.tracePath)));
    assert.match(text, /"t":"tool"[\s\S]*"override":"42"/);
    assert.match(text, /"t":"live"[^\n]*"why":"#2's output was set by hand"/);
  });
});
