// Hover and go to definition on step names, `#k` references and agent states.
import * as assert from 'node:assert/strict';
import { afterEach, before, describe, it } from 'mocha';
import * as vscode from 'vscode';
import { artStudio, hoverText, lineStartingWith, open, positionOf, revertAndCloseAll } from './helpers';

async function hoverAt(uri: vscode.Uri, at: vscode.Position): Promise<string> {
  return hoverText(await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', uri, at));
}

async function definitionLines(uri: vscode.Uri, at: vscode.Position): Promise<{ uri: string; line: number }[]> {
  const result = await vscode.commands.executeCommand<(vscode.Location | vscode.LocationLink)[]>('vscode.executeDefinitionProvider', uri, at);
  return (result ?? []).map(r =>
    'targetUri' in r
      ? { uri: r.targetUri.toString(), line: (r.targetSelectionRange ?? r.targetRange).start.line }
      : { uri: r.uri.toString(), line: r.range.start.line },
  );
}

describe('hover', () => {
  before(async () => {
    await artStudio();
  });
  afterEach(revertAndCloseAll);

  it('says a tool step is a tool and what it does', async () => {
    const { document: doc } = await open('clean.art');
    const text = await hoverAt(doc.uri, positionOf(doc, '[search]', 2));
    assert.match(text, /tool/i);
    assert.match(text, /search/i);
  });

  it('says a sub-step is answered by the model', async () => {
    const { document: doc } = await open('clean.art');
    const text = await hoverAt(doc.uri, positionOf(doc, '[think step-by-step]', 3));
    assert.match(text, /model/i);
  });

  it('shows the answer a #k reference points to', async () => {
    const { document: doc } = await open('clean.art');
    const text = await hoverAt(doc.uri, positionOf(doc, 'from #1', 'from #'.length));
    assert.ok(text.includes('Fx = F*cos(θ)'), `hover on #1 should show answer 1; got: ${text}`);
  });
});

describe('go to definition', () => {
  before(async () => {
    await artStudio();
  });
  afterEach(revertAndCloseAll);

  it('jumps from #1 to the answer #1:', async () => {
    const { document: doc } = await open('clean.art');
    const targets = await definitionLines(doc.uri, positionOf(doc, 'from #1', 'from #'.length));
    assert.deepEqual(targets, [{ uri: doc.uri.toString(), line: lineStartingWith(doc, '#1:') }]);
  });

  it('jumps from a state in the behavior to its definition in :states', async () => {
    const { document: doc } = await open('clean.agent');
    const use = positionOf(doc, 'Act-Inp)', 2); // in `(next Plan Act-Lbl Act Act-Inp)`
    const definitionLine = doc.positionAt(doc.getText().indexOf('(Act-Inp (:text')).line;
    const targets = await definitionLines(doc.uri, use);
    assert.deepEqual(targets, [{ uri: doc.uri.toString(), line: definitionLine }]);
  });
});
