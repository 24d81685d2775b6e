// Quick fixes from the server apply and remove the diagnostic they fix.
import * as assert from 'node:assert/strict';
import { afterEach, before, describe, it } from 'mocha';
import * as vscode from 'vscode';
import { artStudio, codeOf, hasCode, lacksCode, open, revertAndCloseAll, waitForDiagnostics } from './helpers';

async function quickFixesFor(uri: vscode.Uri, diagnostic: vscode.Diagnostic): Promise<vscode.CodeAction[]> {
  const actions = await vscode.commands.executeCommand<(vscode.CodeAction | vscode.Command)[]>(
    'vscode.executeCodeActionProvider',
    uri,
    diagnostic.range,
    vscode.CodeActionKind.QuickFix.value,
    20,
  );
  return (actions ?? []).filter((a): a is vscode.CodeAction => !(typeof (a as vscode.Command).command === 'string'));
}

async function applyFix(action: vscode.CodeAction): Promise<void> {
  if (action.edit) assert.ok(await vscode.workspace.applyEdit(action.edit), `the edit of "${action.title}" was not applied`);
  if (action.command) await vscode.commands.executeCommand(action.command.command, ...(action.command.arguments ?? []));
  assert.ok(action.edit || action.command, `"${action.title}" has neither an edit nor a command`);
}

async function fixFor(uri: vscode.Uri, code: string, title: RegExp): Promise<vscode.CodeAction> {
  const ds = await waitForDiagnostics(uri, hasCode(code), code);
  const diagnostic = ds.find(d => codeOf(d) === code)!;
  const fixes = await quickFixesFor(uri, diagnostic);
  const fix = fixes.find(a => title.test(a.title));
  assert.ok(fix, `no quick fix matching ${title} for ${code}; offered: ${fixes.map(a => JSON.stringify(a.title)).join(', ') || 'none'}`);
  return fix;
}

describe('quick fixes', () => {
  before(async () => {
    await artStudio();
  });
  afterEach(revertAndCloseAll);

  it('renumbers a program whose steps are out of order', async () => {
    const { document: doc } = await open('broken.art');
    await applyFix(await fixFor(doc.uri, 'step-out-of-order', /renumber/i));
    await waitForDiagnostics(doc.uri, lacksCode('step-out-of-order'), 'step-out-of-order to disappear');
    const firstProgram = doc.getText().split(/^-{3,}$/m)[0];
    const queries = [...firstProgram.matchAll(/^Q(\d+):/gm)].map(m => Number(m[1]));
    assert.deepEqual(
      queries,
      queries.map((_, i) => i + 1),
      'queries are numbered 1, 2, 3, ...',
    );
    const answers = [...firstProgram.matchAll(/^#(\d+):/gm)].map(m => Number(m[1]));
    assert.deepEqual(
      answers,
      answers.map((_, i) => i + 1),
      'answers follow their queries',
    );
  });

  it('replaces a misspelt tool name with the tool', async () => {
    const { document: doc } = await open('broken.art');
    await applyFix(await fixFor(doc.uri, 'tool-name-typo', /search/));
    await waitForDiagnostics(doc.uri, lacksCode('tool-name-typo'), 'tool-name-typo to disappear');
    assert.ok(doc.getText().includes('Q1: [search] What is the formula'), 'the step now names [search]');
    assert.ok(!doc.getText().includes('serach'));
  });

  it('adds an undefined state to :states in an agent spec', async () => {
    const { document: doc } = await open('broken.agent');
    await applyFix(await fixFor(doc.uri, 'unknown-state', /Final-Tht/));
    await waitForDiagnostics(doc.uri, lacksCode('unknown-state'), 'unknown-state to disappear');
    assert.match(doc.getText(), /\(Final-Tht\s+\(:text\s+"/);
  });
});
