// The run history and the agent diagram inside VS Code: two replayed runs land in the workspace's runs folder with
// their summaries, the Runs view lists them under their program, "ART: Compare Runs" opens the diff editor on the two
// aligned runs, and "ART: Show Agent Diagram" opens a webview with the spec's states, redrawn when the spec changes.
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'mocha';
import * as vscode from 'vscode';
import type { FinishedRun } from '../../../client/runner/streamEditor';
import type { RunsNode } from '../../../client/runner/runsView';
import { artStudio, open, until, workspaceUri } from './helpers';

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

describe('run history, Compare Runs and the agent diagram', function () {
  this.timeout(60_000);
  const subscriptions: vscode.Disposable[] = [];

  before(async () => {
    await vscode.workspace.fs.writeFile(workspaceUri('history-sports.art'), new TextEncoder().encode(LIBRARY));
    await vscode.workspace.fs.writeFile(workspaceUri('history-tiny.agent'), new TextEncoder().encode(SPEC));
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
      assert.match(runs.getTreeItem(node).description as string, /^→ no · finished · \d+ tokens/);
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
});
