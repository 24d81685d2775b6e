// The outline lists programs by task name with their steps, and agents with their states.
import * as assert from 'node:assert/strict';
import { afterEach, before, describe, it } from 'mocha';
import * as vscode from 'vscode';
import { artStudio, open, revertAndCloseAll } from './helpers';

async function outline(uri: vscode.Uri): Promise<vscode.DocumentSymbol[]> {
  const symbols = await vscode.commands.executeCommand<vscode.DocumentSymbol[]>('vscode.executeDocumentSymbolProvider', uri);
  assert.ok(symbols?.length, 'the outline is empty');
  assert.ok('children' in symbols[0], 'expected hierarchical document symbols');
  return symbols;
}

describe('outline', () => {
  before(async () => {
    await artStudio();
  });
  afterEach(revertAndCloseAll);

  it('lists the programs of a task library by task name, with their steps', async () => {
    const { document: doc } = await open('clean.art');
    const symbols = await outline(doc.uri);
    const tasks = [...doc.getText().matchAll(/^Description: \(([^)]+)\)/gm)].map(m => m[1]);
    assert.equal(tasks.length, 2);
    for (const task of tasks) {
      const program = symbols.find(s => s.name.includes(task));
      assert.ok(program, `no outline entry for "${task}": ${symbols.map(s => s.name).join(' | ')}`);
      assert.ok(program.children.length > 0, `"${task}" has no steps in the outline`);
    }
    const physics = symbols.find(s => s.name.includes('Physics Questions'))!;
    const physicsText = doc.getText(physics.range);
    const steps = (physicsText.match(/^Q\d+:/gm) ?? []).length;
    assert.equal(physics.children.length, steps, `one child per step: ${physics.children.map(c => c.name).join(' | ')}`);
  });

  it('lists an agent with its states', async () => {
    const { document: doc } = await open('clean.agent');
    const symbols = await outline(doc.uri);
    const agent = symbols.find(s => s.name.includes('rewoo-agent'));
    assert.ok(agent, `no outline entry for rewoo-agent: ${symbols.map(s => s.name).join(' | ')}`);
    const states = [...doc.getText().matchAll(/^\s+\(([\w-]+) \(:text/gm)].map(m => m[1]);
    const names = JSON.stringify(agent.children.map(c => [c.name, c.children.map(g => g.name)]));
    for (const state of states) assert.ok(names.includes(state), `state ${state} missing from the outline: ${names}`);
  });
});
