// hover() called in-process on in-memory documents.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MarkupKind, type Hover, type MarkupContent } from 'vscode-languageserver';
import { hover } from '../../../server/hover';
import { AGENT, LIBRARY, at, workspace } from './helpers';

const value = (h: Hover | null) => (h ? (h.contents as MarkupContent).value : '');

describe('hover (in-process)', () => {
  const w = workspace();
  const lib = w.open('library.art', LIBRARY);
  const spec = w.open('qa.agent', AGENT);
  const hoverAt = (uri: string, text: string, needle: string, delta = 0) =>
    hover(w.ctx, { textDocument: { uri }, position: at(text, needle, delta) });

  test("a tool name: what the tool does, on the name's range", () => {
    const h = hoverAt(lib, LIBRARY, '[search]', 2);
    assert.match(value(h), /^\*\*search\*\*: ART built-in tool\. The runner pauses here and runs the tool; its output becomes `#1:`\./);
    assert.deepEqual(h!.range, { start: at(LIBRARY, '[search]', 1), end: at(LIBRARY, '[search]', 7) });
  });

  test('a model sub-step: no tool runs', () => {
    assert.equal(
      value(hoverAt(lib, LIBRARY, '[compare]', 2)),
      '**compare**: a sub-step answered by the model. No tool runs: the model writes `#4:` itself.',
    );
  });

  test('a `#k` reference: the query it answers and the answer', () => {
    const h = hoverAt(lib, LIBRARY, 'in #2', 4);
    assert.match(value(h), /the answer to `Q2: \[generate python code\] count the letters of the city in #1`/);
    assert.match(value(h), /city = "Lima"\nans = len\(city\)/);
    assert.deepEqual(h!.range, { start: at(LIBRARY, 'in #2', 3), end: at(LIBRARY, 'in #2', 5) });
  });

  test('plain text for a client without markdown', () => {
    const pw = workspace({ markdownHover: false });
    const u = pw.open('library.art', LIBRARY);
    const h = hover(pw.ctx, { textDocument: { uri: u }, position: at(LIBRARY, '[compare]', 2) });
    assert.equal((h!.contents as MarkupContent).kind, MarkupKind.PlainText);
    assert.doesNotMatch(value(h), /\*\*/);
  });

  test('.agent: a state shows its prompt text and flags', () => {
    assert.equal(value(hoverAt(spec, AGENT, 'Tht Ans', 1)), '**Tht**: prompt text `[Thought]`\n\nflags: none');
    assert.match(value(hoverAt(spec, AGENT, '(Ques (:text', 2)), /:env-input/);
  });

  test('nothing to say on plain text, past the end, or for an unknown document', () => {
    assert.equal(hoverAt(lib, LIBRARY, 'Input: Peru', 8), null);
    assert.equal(hover(w.ctx, { textDocument: { uri: lib }, position: { line: 999, character: 99 } }), null);
    assert.equal(hover(w.ctx, { textDocument: { uri: 'file:///nowhere.art' }, position: { line: 0, character: 0 } }), null);
  });
});
