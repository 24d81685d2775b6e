// "ART: Improve Library…" inside VS Code against the scripted model that learns only from the demonstrations in its
// prompt (test/support/kindsModel.ts), with the workspace's settings pointing at it: the proposal opens in a diff
// editor against the library, the test comparison in the comparison view; Discard leaves the library as it was,
// Accept writes it as proposed and measured (the header comment left out).
import * as assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'mocha';
import * as vscode from 'vscode';
import { KINDS_LIBRARY, jsonl, kindsData, useKindsModel } from '../../support/kindsModel';
import { ScriptedServer } from '../../support/scriptedServer';
import { artStudio, workspaceUri } from './helpers';

describe('Improve Library', function () {
  this.timeout(180_000);
  const library = () => workspaceUri('improve/kinds.art');
  const file = (name: string) => workspaceUri(`improve/${name}`);
  const config = () => vscode.workspace.getConfiguration('art');

  before(async () => {
    rmSync(workspaceUri('improve').fsPath, { recursive: true, force: true });
    mkdirSync(workspaceUri('improve').fsPath, { recursive: true });
    writeFileSync(library().fsPath, KINDS_LIBRARY);
    writeFileSync(file('train.jsonl').fsPath, jsonl(kindsData(3, 100)));
    writeFileSync(file('dev.jsonl').fsPath, jsonl(kindsData(2, 200)));
    writeFileSync(file('test.jsonl').fsPath, jsonl(kindsData(4, 300)));
    const server = useKindsModel(await new ScriptedServer({ tokenDelayMs: 0 }).start());
    await config().update('model.baseURL', server.baseURL, vscode.ConfigurationTarget.Workspace);
    await config().update('model.name', 'scripted', vscode.ConfigurationTarget.Workspace);
    await artStudio();
  });

  after(async () => {
    await config().update('model.baseURL', undefined, vscode.ConfigurationTarget.Workspace);
    await config().update('model.name', undefined, vscode.ConfigurationTarget.Workspace);
    await ScriptedServer.closeAll();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    rmSync(workspaceUri('improve').fsPath, { recursive: true, force: true });
  });

  const splits = () => ({ train: file('train.jsonl'), dev: file('dev.jsonl'), test: file('test.jsonl') });

  it("the library's CodeLens on its first line runs Improve Library…", async () => {
    await vscode.window.showTextDocument(library());
    const lenses = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', library())) ?? [];
    const improveLens = lenses.find(l => l.command?.command === 'art.improveLibrary');
    assert.ok(improveLens, `lenses: ${lenses.map(l => l.command?.title).join(', ')}`);
    assert.equal(improveLens.range.start.line, 0);
    assert.equal(improveLens.command!.arguments?.[0].toString(), library().toString());
  });

  it('shows the proposal as a diff with the comparison beside it; Discard leaves the library, Accept writes it', async () => {
    const api = await artStudio();
    const end = await vscode.commands.executeCommand<{ out: string; significant: boolean; added: { id: string }[]; text: string } | undefined>(
      'art.improveLibrary',
      library(),
      { splits: splits(), task: 'Arithmetic', budget: 400, seed: 3, choice: 'Discard' },
    );
    assert.ok(end && end.significant && end.added.length > 0, 'a significant gain was proposed');
    // The diff editor: the library against the proposal.
    const diff = vscode.window.tabGroups.all
      .flatMap(g => g.tabs)
      .map(t => t.input)
      .find((i): i is vscode.TabInputTextDiff => i instanceof vscode.TabInputTextDiff && i.modified.fsPath === end.out);
    assert.ok(diff, 'the proposal is open in a diff editor');
    assert.equal(diff.original.fsPath, library().fsPath);
    // The comparison view: the original (A) against the proposal (B) on the test split.
    const shown = api.runner.comparisons.shown;
    assert.ok(shown, 'the comparison is shown');
    assert.equal(readFileSync(library().fsPath, 'utf8'), KINDS_LIBRARY, 'Discard leaves the library');

    // The same command again reuses every run, and Accept writes the library as measured.
    const again = await vscode.commands.executeCommand<typeof end>('art.improveLibrary', library(), {
      splits: splits(),
      task: 'Arithmetic',
      budget: 400,
      seed: 3,
      choice: 'Accept',
    });
    assert.ok(again);
    const written = readFileSync(library().fsPath, 'utf8');
    assert.ok(!written.startsWith('# art improve:'), 'the header comment is not written into the library');
    for (const a of again.added) assert.ok(written.includes(`# art improve: from training example "${a.id}"`), a.id);
    assert.equal(written, readFileSync(again.out, 'utf8').split('\n').slice(3).join('\n'));
  });

  it('the language model tool art_improve splits one dataset by its seed and answers with the proposal and the verdict', async () => {
    writeFileSync(file('all.jsonl').fsPath, jsonl(kindsData(8, 400)));
    writeFileSync(library().fsPath, KINDS_LIBRARY);
    const result = await vscode.lm.invokeTool('art_improve', {
      input: { library: 'improve/kinds.art', train: 'improve/all.jsonl', seed: 2, budget: 600, task: 'Arithmetic' },
      toolInvocationToken: undefined,
    });
    const said = result.content.map(p => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
    assert.match(said, /^\d+ candidate demonstration\(s\) from the training runs/);
    assert.match(said, /\n(a significant gain|no significant gain) \(McNemar p = [\d.e-]+\)\n/);
    assert.match(said, /\nproposed: .*kinds\.improved\.art/);
    assert.match(said, /\nthe person decides: Accept writes the demonstrations into the library, Discard leaves it$/);
    assert.equal(readFileSync(library().fsPath, 'utf8'), KINDS_LIBRARY, 'nothing written before the person decides');
  });
});
