// The run history and the agent diagram inside VS Code: two replayed runs land in the workspace's runs folder with
// their summaries, the Runs view lists them under their program, "ART: Compare Runs" opens the diff editor on the two
// aligned runs, and "ART: Show Agent Diagram" opens a webview with the spec's states, redrawn when the spec changes.
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'mocha';
import * as vscode from 'vscode';
import type { FinishedRun } from '../../../client/views/streamEditor';
import type { RunsNode } from '../../../client/views/runsView';
import { artStudio, open, until, workspaceUri, writeWorkspaceFile } from './helpers';
import { ContinuationScript } from '../../../core/replay/script';
import { ScriptedServer } from '../../support/scriptedServer';

const LIBRARY = `Description: (Sports Understanding) Determine whether a sentence relating to sports is plausible.
Input: Is the following sentence plausible? "Lionel Messi threw a touchdown pass."
Q1: [think step-by-step]
#1: Lionel Messi is a soccer player. A touchdown pass is part of American football. So the answer is no.
Q2: [EOQ]
Ans: no
`;

const SPEC = `(define tiny-agent
  (:states
    (Ques (:text "[Question]"))
    (Tht (:text "[Thought]"))
    (Obs (:text "[Observation]") (:flags :env-input))
    (Ans (:text "[Answer]")))
  (:behavior (next Ques (until (next Tht Obs) Ans))))
`;

/** A spec with no environment state: think, act, answer. */
const FIX_SPEC = `(define fix-agent
  (:states
    (Ques (:text "[Question]"))
    (Tht (:text "[Thought]"))
    (Act (:text "[Action]"))
    (Ans (:text "[Answer]")))
  (:behavior (next Ques Tht Act Ans)))
`;
const FIX_HEADER = '[Question] What is two plus two?\n';
/** The model skips [Action] (off-spec: the monitor corrects it) ... */
const OFF_SPEC = ContinuationScript.parse('[Thought] add them\n[Answer] 4\n', FIX_HEADER);
/** ... and, given the corrected text, goes on on-spec. */
const ON_SPEC = ContinuationScript.parse('[Thought] add them\n[Action] add two and two\n[Answer] 4\n', FIX_HEADER);

describe('run history, Compare Runs and the agent diagram', function () {
  this.timeout(60_000);
  const subscriptions: vscode.Disposable[] = [];

  before(async () => {
    await writeWorkspaceFile('history-sports.art', LIBRARY);
    await writeWorkspaceFile('history-tiny.agent', SPEC);
    await artStudio();
  });

  after(async () => {
    for (const s of subscriptions) s.dispose();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('keeps every run in .art/runs with a summary; the Runs view lists them; Compare Runs opens the diff editor', async () => {
    const api = await artStudio();
    const runs = api.runner.runs;
    const ended: FinishedRun[] = [];
    subscriptions.push(api.runner.streams.onDidEndRun(r => ended.push(r)));
    const uri = workspaceUri('history-sports.art');
    for (let i = 0; i < 2; i++) {
      assert.ok(await vscode.commands.executeCommand('art.runProgram', uri, 0), 'the run started');
      await until(() => ended.length > i, `the end of run ${i + 1}`, 30_000);
    }
    const traces = ended.map(r => r.tracePath!);
    for (const t of traces) {
      assert.ok(t && t.startsWith(workspaceUri('.art/runs').fsPath), `the trace is in the runs folder: ${t}`);
      assert.ok(existsSync(t.replace(/\.jsonl$/, '.json')), 'the summary is beside it');
    }
    assert.ok(existsSync(workspaceUri('.art/runs/.gitignore').fsPath), 'the runs are kept out of git by default');

    const groups = runs.getChildren().filter(g => g.kind === 'group' && g.title === 'Sports Understanding');
    assert.equal(groups.length, 1, 'one group for the program');
    const listed = runs.getChildren(groups[0]).filter((n): n is Extract<RunsNode, { kind: 'run' }> => n.kind === 'run');
    for (const t of traces) {
      const node = listed.find(n => n.node.entry.trace === t);
      assert.ok(node, `run ${t} is listed`);
      assert.equal(node.node.entry.summary.answer, 'no');
      assert.equal(node.node.entry.summary.status, 'finished');
      // A replay sends no request: it reports no tokens rather than a count (issue 30 item 8).
      assert.match(runs.getTreeItem(node).description as string, /^→ no · finished · no tokens reported/);
    }

    const [a, b] = (await vscode.commands.executeCommand<[vscode.Uri, vscode.Uri]>('art.compareRuns', traces[0], traces[1]))!;
    const left = (await vscode.workspace.openTextDocument(a)).getText();
    const right = (await vscode.workspace.openTextDocument(b)).getText();
    assert.match(left, /^## Q1 \[think step-by-step\]$/m);
    assert.match(left, /^# Answer\nno$/m);
    assert.equal(left.split('\n').length, right.split('\n').length, 'the two runs are aligned line for line');
    await until(
      () =>
        vscode.window.tabGroups.all
          .flatMap(g => g.tabs)
          .find(t => t.input instanceof vscode.TabInputTextDiff && t.input.modified.toString() === b.toString()),
      'the diff editor on the two runs',
    );
  });

  it('Show Agent Diagram opens a webview with the states beside the spec and redraws it when the spec is edited', async () => {
    const api = await artStudio();
    const editor = await open('history-tiny.agent');
    editor.selection = new vscode.Selection(3, 6, 3, 6);
    const panel = await vscode.commands.executeCommand<vscode.WebviewPanel>('art.showAgentDiagram');
    assert.ok(panel, 'a webview panel');
    assert.equal(panel.viewType, 'art.agentDiagram');
    const shown = () => api.runner.diagrams.diagramOf(editor.document.uri);
    assert.match(shown()!.svg, /<g class="state env-input" data-state="Obs"/);
    assert.equal((shown()!.svg.match(/<g class="state/g) ?? []).length, 4);
    assert.doesNotMatch(panel.webview.html, /https?:\/\//, 'nothing loaded from the network');
    assert.match(panel.webview.html, /Content-Security-Policy" content="default-src 'none'/);

    await editor.edit(e => e.insert(new vscode.Position(4, 0), '    (Act (:text "[Action]"))\n'));
    await editor.edit(e => {
      const line = editor.document.lineAt(editor.document.lineCount - 2);
      e.replace(line.range, '  (:behavior (next Ques (until (next Tht Act Obs) Ans))))');
    });
    await until(() => shown()!.svg.includes('data-state="Act"'), 'the diagram redrawn with the new state');
    await vscode.commands.executeCommand('workbench.action.files.revert');
  });

  it('during a debug session, a monitor correction is drawn on the transition it made the run take', async () => {
    const api = await artStudio();
    const server = await new ScriptedServer().start();
    server.setScripts(OFF_SPEC, ON_SPEC);
    const uri = workspaceUri('history-fix.agent');
    await writeWorkspaceFile('history-fix.agent', FIX_SPEC);
    const editor = await open('history-fix.agent');
    editor.selection = new vscode.Selection(1, 2, 1, 2);
    await vscode.commands.executeCommand('art.showAgentDiagram');
    const shown = () => api.runner.diagrams.diagramOf(editor.document.uri);
    assert.doesNotMatch(shown()!.svg, /corrected/);
    // Stop when the run reaches Ans (after the correction inserted [Action] and the model went on from there).
    const ansLine = FIX_SPEC.split('\n').findIndex(l => l.includes('(Ans '));
    const bp = new vscode.SourceBreakpoint(new vscode.Location(uri, new vscode.Position(ansLine, 5)));
    vscode.debug.addBreakpoints([bp]);
    const started = new Promise<vscode.DebugSession>(resolve => subscriptions.push(vscode.debug.onDidStartDebugSession(resolve)));
    try {
      assert.ok(
        await vscode.debug.startDebugging(vscode.workspace.workspaceFolders![0], {
          type: 'art',
          request: 'launch',
          name: 'monitor correction',
          program: uri.fsPath,
          mode: 'generate',
          baseURL: server.baseURL,
          model: 'scripted',
          input: 'What is two plus two?',
        }),
      );
      const session = await started;
      await until(() => shown()!.svg.includes('class="transition corrected"'), 'the corrected transition drawn', 30_000);
      const svg = shown()!.svg;
      assert.equal((svg.match(/class="transition corrected"/g) ?? []).length, 1, 'one transition marked');
      assert.match(svg, /class="transition corrected" data-from="Tht" data-to="Act"/);
      assert.match(
        svg,
        /<title>Monitor correction: after Tht the model wrote the state Ans; the spec allows Act, so &quot;\[Action\]&quot; was inserted<\/title>/,
      );
      assert.match(svg, /<text class="correction-label" data-from="Tht" data-to="Act"/);
      assert.match(svg, /<g class="state final current" data-state="Ans"/, 'the run is at Ans');
      const ended = new Promise<void>(resolve => subscriptions.push(vscode.debug.onDidTerminateDebugSession(() => resolve())));
      await session.customRequest('continue', { threadId: 1 });
      await ended;
    } finally {
      vscode.debug.removeBreakpoints([bp]);
      if (vscode.debug.activeDebugSession) await vscode.debug.stopDebugging();
      await server.close();
    }
  });
});
