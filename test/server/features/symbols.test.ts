// documentSymbols() called in-process on in-memory documents.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SymbolKind, type DocumentSymbol, type SymbolInformation } from 'vscode-languageserver';
import { documentSymbols } from '../../../server/symbols';
import { AGENT, LIBRARY, at, lineOf, workspace } from './helpers';

describe('document symbols (in-process)', () => {
  const w = workspace();
  const lib = w.open('library.art', LIBRARY);
  const spec = w.open('qa.agent', AGENT);

  test('.art: programs by task name, their steps as tool / model / end of queries', async () => {
    const symbols = (await documentSymbols(w.ctx, { textDocument: { uri: lib } })) as DocumentSymbol[];
    assert.deepEqual(
      symbols.map(s => [s.name, s.detail]),
      [
        ['Capital', '5 steps'],
        ['Capital', '2 steps'],
        ['Prompt template', 'prompt template'],
      ],
    );
    const [first] = symbols;
    assert.deepEqual(
      first.children!.map(c => [c.name, c.detail, c.kind]),
      [
        ['Q1: [search]', 'tool · capital of Peru', SymbolKind.Function],
        ['Q2: [generate python code]', 'tool · count the letters of the city in #1', SymbolKind.Function],
        ['Q3: [code execute]', 'tool · Execute the python code in #2', SymbolKind.Function],
        ['Q4: [compare]', 'model · compare #3 with 5', SymbolKind.Event],
        ['Q5: [EOQ]', 'end of queries', SymbolKind.Constant],
      ],
    );
    // A program spans from its description to its `Ans:` line; the selection is the task name.
    assert.deepEqual(first.range, { start: { line: 0, character: 0 }, end: at(LIBRARY, 'Ans: Lima (4 letters)', 'Ans: Lima (4 letters)'.length) });
    assert.deepEqual(first.selectionRange, { start: at(LIBRARY, 'Capital', 0), end: at(LIBRARY, 'Capital', 7) });
    // A step spans its query and its (multi-line) answer.
    assert.equal(first.children![1].range.end.line, lineOf(LIBRARY, 'ans = len(city)'));
  });

  test('a flat list for a client without hierarchical symbols', async () => {
    const fw = workspace({ hierarchicalSymbols: false });
    const u = fw.open('library.art', LIBRARY);
    const flat = (await documentSymbols(fw.ctx, { textDocument: { uri: u } })) as SymbolInformation[];
    assert.equal(flat.length, 3 + 5 + 2 + 1);
    assert.ok(flat.every(s => s.location.uri === u));
    assert.equal(flat.find(s => s.name === 'Q4: [compare]')!.containerName, 'Capital');
  });

  test('.agent: the agent with its states and its behavior', async () => {
    const [agent] = (await documentSymbols(w.ctx, { textDocument: { uri: spec } })) as DocumentSymbol[];
    assert.equal(agent.name, 'qa');
    assert.equal(agent.detail, '3 states');
    assert.deepEqual(
      agent.children!.map(c => [c.name, c.detail]),
      [
        ['Ques', '"[Question]" :env-input'],
        ['Tht', '"[Thought]"'],
        ['Ans', '"[Answer]"'],
        ['behavior', '(next Ques (until Tht Ans))'],
      ],
    );
  });

  test('an unknown document gives null', async () => {
    assert.equal(await documentSymbols(w.ctx, { textDocument: { uri: 'file:///nowhere.agent' } }), null);
  });
});
