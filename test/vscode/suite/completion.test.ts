// Completion after `[` lists the tools first, with their descriptions, then the sub-steps the file uses.
import * as assert from 'node:assert/strict';
import { afterEach, before, describe, it } from 'mocha';
import * as vscode from 'vscode';
import { BUILTIN_TOOLS } from '../../../core/art/knownTools';
import { artStudio, open, revertAndCloseAll } from './helpers';

const label = (i: vscode.CompletionItem): string => (typeof i.label === 'string' ? i.label : i.label.label);
const docText = (i: vscode.CompletionItem): string =>
  [i.detail ?? '', typeof i.documentation === 'string' ? i.documentation : (i.documentation?.value ?? '')].join('\n');

describe('completion', () => {
  before(async () => {
    await artStudio();
  });
  afterEach(revertAndCloseAll);

  it('lists the tools after "[" in a new step, tools first', async () => {
    const editor = await open('clean.art');
    const doc = editor.document;
    const end = doc.lineAt(doc.lineCount - 1).range.end;
    const addition = '\n----\nDescription: (Letter count) Count the letters of a word.\nInput: banana\nQ1: [';
    assert.ok(await editor.edit(e => e.insert(end, addition)));
    const at = doc.lineAt(doc.lineCount - 1).range.end;
    const list = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', doc.uri, at, '[');
    const labels = list.items.map(label);
    for (const tool of ['search', 'generate python code', 'code execute'])
      assert.ok(labels.includes(tool), `"${tool}" missing from completion: ${labels.join(', ')}`);
    assert.ok(labels.includes('think step-by-step'), `the file's own sub-step "think step-by-step" is missing: ${labels.join(', ')}`);

    const sorted = [...list.items].sort((a, b) => (a.sortText ?? label(a)).localeCompare(b.sortText ?? label(b)));
    const toolNames = new Set(BUILTIN_TOOLS.map(t => t.name));
    const firstSubStep = sorted.findIndex(i => !toolNames.has(label(i)));
    const lastTool = sorted.map(i => toolNames.has(label(i))).lastIndexOf(true);
    assert.ok(firstSubStep === -1 || lastTool < firstSubStep, `tools must sort before sub-steps: ${sorted.map(label).join(', ')}`);

    const search = list.items.find(i => label(i) === 'search')!;
    const description = BUILTIN_TOOLS.find(t => t.name === 'search')!.description;
    assert.ok(docText(search).includes(description), `the search item should carry the tool's description; got: ${docText(search)}`);
  });
});
