// The extension activates only for `.art` / `.agent` files, starts its language server, and reports its timings.
import * as assert from 'node:assert/strict';
import { describe, it } from 'mocha';
import * as vscode from 'vscode';
import type { ArtStudioApi } from '../../../client/extension';
import { EXTENSION_ID, open, revertAndCloseAll, until } from './helpers';

describe('activation', () => {
  it('stays inactive while only a Markdown file is open', async () => {
    const ext = vscode.extensions.getExtension<ArtStudioApi>(EXTENSION_ID);
    assert.ok(ext, `extension ${EXTENSION_ID} is not installed`);
    await open('notes.md');
    assert.equal(ext.isActive, false, 'ART Studio activated for a Markdown file');
    await revertAndCloseAll();
  });

  it('activates on opening a .art file and its language server answers', async () => {
    const ext = vscode.extensions.getExtension<ArtStudioApi>(EXTENSION_ID)!;
    const editor = await open('clean.art');
    assert.equal(editor.document.languageId, 'art');
    await until(() => ext.isActive, 'activation after opening clean.art');
    const api = ext.exports;
    await api.serverReady;
    assert.ok(api.client.isRunning(), 'the language client is not running');
    console.log(`      activate ${api.timings.activateMs.toFixed(1)} ms, server ready ${api.timings.serverReadyMs?.toFixed(0)} ms`);
  });

  it('shows the program count and error count of the active file in the status bar', async () => {
    const ext = vscode.extensions.getExtension<ArtStudioApi>(EXTENSION_ID)!;
    const editor = await open('clean.art');
    // Demonstrations only: the `%s` prompt template is not counted.
    const programs = editor.document
      .getText()
      .split('\n')
      .filter(l => l.startsWith('Input:') && !l.includes('%s')).length;
    const text = await until(() => {
      const t = ext.exports.statusBar.text;
      return t.includes(`${programs} programs`) && ext.exports.statusBar.visible ? t : undefined;
    }, `"${programs} programs" in the status bar`);
    assert.match(text, /\$\(error\) 0$/);
    await revertAndCloseAll();
  });

  it('uses the art-agent language for .agent files', async () => {
    const editor = await open('clean.agent');
    assert.equal(editor.document.languageId, 'art-agent');
    await revertAndCloseAll();
  });
});
