// Diagnostics arrive for broken `.art` and `.agent` files, on the smallest range, and follow edits.
import * as assert from 'node:assert/strict';
import { afterEach, before, describe, it } from 'mocha';
import * as vscode from 'vscode';
import { artStudio, codeOf, hasCode, lacksCode, lineStartingWith, open, positionOf, revertAndCloseAll, until, waitForDiagnostics } from './helpers';

describe('diagnostics', () => {
  before(async () => {
    await artStudio();
  });
  afterEach(revertAndCloseAll);

  it('reports step-out-of-order and tool-name-typo in a broken .art file', async () => {
    const { document: doc } = await open('broken.art');
    const ds = await waitForDiagnostics(
      doc.uri,
      ds => hasCode('step-out-of-order')(ds) && hasCode('tool-name-typo')(ds),
      'step-out-of-order and tool-name-typo',
    );
    const order = ds.find(d => codeOf(d) === 'step-out-of-order')!;
    assert.equal(order.severity, vscode.DiagnosticSeverity.Error);
    assert.equal(order.range.start.line, lineStartingWith(doc, 'Q3:'), 'step-out-of-order should sit on the first misnumbered query');
    const typo = ds.find(d => codeOf(d) === 'tool-name-typo')!;
    assert.equal(typo.severity, vscode.DiagnosticSeverity.Warning);
    assert.match(doc.getText(typo.range), /serach/);
    assert.match(typo.message, /search/);
  });

  it('reports unknown-state on the undefined state of a broken .agent file', async () => {
    const { document: doc } = await open('broken.agent');
    const ds = await waitForDiagnostics(doc.uri, hasCode('unknown-state'), 'unknown-state');
    const unknown = ds.find(d => codeOf(d) === 'unknown-state')!;
    assert.equal(unknown.severity, vscode.DiagnosticSeverity.Error);
    assert.equal(doc.getText(unknown.range), 'Final-Tht');
  });

  it('updates diagnostics as the file is edited', async () => {
    const editor = await open('broken.art');
    const doc = editor.document;
    await waitForDiagnostics(doc.uri, hasCode('tool-name-typo'), 'tool-name-typo');
    const at = positionOf(doc, '[serach]', 1);
    assert.ok(await editor.edit(e => e.replace(new vscode.Range(at, at.translate(0, 'serach'.length)), 'search')));
    const ds = await waitForDiagnostics(doc.uri, lacksCode('tool-name-typo'), 'tool-name-typo to disappear');
    assert.ok(hasCode('step-out-of-order')(ds), "the other program's error must stay");
  });

  it('shows the error count of a broken file in the status bar', async () => {
    const api = await artStudio();
    const { document: doc } = await open('broken.art');
    const ds = await waitForDiagnostics(doc.uri, hasCode('step-out-of-order'), 'step-out-of-order');
    const errors = ds.filter(d => d.severity === vscode.DiagnosticSeverity.Error).length;
    await until(
      () => api.statusBar.text.endsWith(`$(error) ${errors}`) && api.statusBar.text.includes('2 programs'),
      `"2 programs ... ${errors}" errors in the status bar (now "${api.statusBar.text}")`,
    );
  });
});
