// completion() called in-process on in-memory documents (the stdio tests check the same module over the wire).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CompletionItemKind, InsertTextFormat, type MarkupContent, type TextEdit } from 'vscode-languageserver';
import { BUILTIN_TOOLS, ToolCatalog } from '../../../core/art';
import { completion } from '../../../server/completion';
import { AGENT, LIBRARY, apply, at, workspace } from './helpers';

describe('completion (in-process)', () => {
  const w = workspace();
  const lib = w.open('library.art', LIBRARY);
  const spec = w.open('qa.agent', AGENT);
  const complete = (uri: string, text: string, needle: string, delta = 0, nth = 0) =>
    completion(w.ctx, { textDocument: { uri }, position: at(text, needle, delta, nth) });

  test("after `[`: every built-in tool with its description, then the file's sub-step names, then EOQ", () => {
    const typing = `${LIBRARY}\n----\nInput: banana\nQ1: [`;
    const u = w.open('typing.art', typing);
    const list = complete(u, typing, 'banana\nQ1: [', 'banana\nQ1: ['.length);
    assert.ok(list);
    const sorted = [...list.items].sort((a, b) => (a.sortText ?? a.label).localeCompare(b.sortText ?? b.label));
    const labels = sorted.map(i => i.label);
    const tools = new ToolCatalog().all().map(t => t.name);
    assert.deepEqual(labels.slice(0, tools.length).sort(), [...tools].sort());
    assert.deepEqual(labels.slice(tools.length), ['compare', 'EOQ']);
    const search = sorted.find(i => i.label === 'search')!;
    assert.equal(search.kind, CompletionItemKind.Function);
    assert.match((search.documentation as MarkupContent).value, /Full-text search/);
    assert.equal(sorted.find(i => i.label === 'compare')!.kind, CompletionItemKind.Text);
    // The name closed, no space after it: the space the person types next is the only one.
    assert.equal((search.textEdit as TextEdit).newText, 'search]');
  });

  test('inside a name, the item replaces the whole name through its `]`', () => {
    const list = complete(lib, LIBRARY, '[code execute]', 5);
    const item = list!.items.find(i => i.label === 'code execute')!;
    const edit = item.textEdit as TextEdit;
    assert.equal(apply(LIBRARY, [edit]), LIBRARY);
    assert.deepEqual(edit.range, { start: at(LIBRARY, '[code execute]', 1), end: at(LIBRARY, '[code execute]', '[code execute]'.length) });
  });

  test('the name being typed is not offered as a sub-step of the file', () => {
    const typing = `${LIBRARY}\n----\nInput: banana\nQ1: [comparr]`;
    const u = w.open('misspelt.art', typing);
    const labels = complete(u, typing, '[comparr]', '[comparr'.length)!.items.map(i => i.label);
    assert.ok(!labels.includes('comparr'), labels.join(','));
    assert.ok(labels.includes('compare'), 'the names the file uses elsewhere still are');
  });

  test('a user tool of the catalog is offered after `[`', () => {
    const tools = new ToolCatalog([...BUILTIN_TOOLS, { name: 'wikisearch', description: 'Wikipedia', input: 'q', origin: 'user' }]);
    const mine = workspace({}, tools);
    const u = mine.open('library.art', LIBRARY);
    const labels = completion(mine.ctx, { textDocument: { uri: u }, position: at(LIBRARY, '[compare]', 1) })!.items.map(i => i.label);
    assert.ok(labels.includes('wikisearch'), labels.join(','));
  });

  test('`#` in an instruction: the answers before it in the same program, with their text', () => {
    const list = complete(lib, LIBRARY, 'in #2', 4);
    assert.deepEqual(
      list!.items.map(i => i.label),
      ['#1', '#2'],
    );
    assert.match((list!.items[1].documentation as MarkupContent).value, /city = "Lima"/);
    // The second program has only #1 before its `Ans:`.
    const second = w.open('second.art', 'Input: Chile\nQ1: [search] capital of Chile\n#1: Santiago\nQ2: [string edit] upper-case #');
    assert.deepEqual(
      completion(w.ctx, { textDocument: { uri: second }, position: { line: 3, character: 30 } })!.items.map(i => i.label),
      ['#1'],
    );
  });

  test('at a line start after an answer: the next query, or [EOQ] with `Ans:`', () => {
    const list = complete(lib, LIBRARY, 'Q3: [code');
    const byLabel = new Map(list!.items.map(i => [i.label, i]));
    assert.deepEqual([...byLabel.keys()], ['Q3:', 'Q3: [EOQ]']);
    assert.equal((byLabel.get('Q3: [EOQ]')!.textEdit as TextEdit).newText, 'Q3: [EOQ]\nAns: ');
    assert.equal(byLabel.get('Q3:')!.insertTextFormat, InsertTextFormat.PlainText, 'no snippets for a client without them');
  });

  test('snippets when the client supports them', () => {
    const sw = workspace({ snippets: true });
    const u = sw.open('library.art', LIBRARY);
    const item = completion(sw.ctx, { textDocument: { uri: u }, position: at(LIBRARY, 'Q3: [code') })!.items.find(i => i.label === 'Q3:')!;
    assert.equal(item.insertTextFormat, InsertTextFormat.Snippet);
    assert.match((item.textEdit as TextEdit).newText, /\$/);
  });

  test('.agent: the states of the agent where the behavior names one', () => {
    const list = complete(spec, AGENT, 'Tht Ans', 3);
    assert.deepEqual(
      list!.items.map(i => i.label),
      ['Ques', 'Tht', 'Ans'],
    );
    assert.match((list!.items[0].documentation as MarkupContent).value, /\[Question\]/);
  });

  test('an unknown document gives null', () => {
    assert.equal(completion(w.ctx, { textDocument: { uri: 'file:///nowhere.art' }, position: { line: 0, character: 0 } }), null);
  });
});
