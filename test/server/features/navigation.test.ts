// definition() and references() called in-process on in-memory documents.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Location, LocationLink } from 'vscode-languageserver';
import { definition, references } from '../../../server/navigation';
import { AGENT, LIBRARY, at, lineOf, workspace } from './helpers';

const first = (d: unknown) => (Array.isArray(d) ? d[0] : d) as Location;

describe('navigation (in-process)', () => {
  const w = workspace();
  const lib = w.open('library.art', LIBRARY);
  const spec = w.open('qa.agent', AGENT);

  test('definition of `#2` is the marker of its answer, in the same program', () => {
    const loc = first(definition(w.ctx, { textDocument: { uri: lib }, position: at(LIBRARY, 'in #2', 4) }));
    assert.equal(loc.uri, lib);
    assert.deepEqual(loc.range, { start: { line: lineOf(LIBRARY, '#2:'), character: 0 }, end: { line: lineOf(LIBRARY, '#2:'), character: 3 } });
  });

  test("`#1` in the second program is not the first program's answer", () => {
    const text = `${LIBRARY.split('----')[0]}----\nInput: Chile\nQ1: [search] capital of Chile\n#1: Santiago\nQ2: [string edit] upper-case #1\n#2: SANTIAGO\nQ3: [EOQ]\nAns: SANTIAGO\n`;
    const u = w.open('two.art', text);
    const loc = first(definition(w.ctx, { textDocument: { uri: u }, position: at(text, 'upper-case #1', 12) }));
    assert.equal(loc.range.start.line, lineOf(text, '#1: Santiago'));
  });

  test('references of an answer: its mentions, with the declaration when asked', () => {
    const refs = references(w.ctx, { textDocument: { uri: lib }, position: at(LIBRARY, '#2:', 1), context: { includeDeclaration: true } })!;
    assert.deepEqual(
      refs.map(r => [r.range.start.line, r.range.start.character]),
      [
        [lineOf(LIBRARY, '#2:'), 0],
        [lineOf(LIBRARY, 'in #2'), at(LIBRARY, 'in #2', 3).character],
      ],
    );
    const without = references(w.ctx, { textDocument: { uri: lib }, position: at(LIBRARY, '#2:', 1), context: { includeDeclaration: false } })!;
    assert.equal(without.length, 1);
  });

  test('links for a client that supports them', () => {
    const lw = workspace({ definitionLinks: true });
    const u = lw.open('library.art', LIBRARY);
    const links = definition(lw.ctx, { textDocument: { uri: u }, position: at(LIBRARY, 'in #2', 4) }) as LocationLink[];
    assert.equal(links[0].targetUri, u);
    assert.equal(links[0].targetSelectionRange.start.line, lineOf(LIBRARY, '#2:'));
    assert.deepEqual(links[0].originSelectionRange, { start: at(LIBRARY, 'in #2', 3), end: at(LIBRARY, 'in #2', 5) });
  });

  test('.agent: a state used in the behavior goes to its definition; references are the definition and the use', () => {
    const loc = first(definition(w.ctx, { textDocument: { uri: spec }, position: at(AGENT, 'Tht Ans', 1) }));
    assert.deepEqual(loc.range, { start: at(AGENT, '(Tht', 1), end: at(AGENT, '(Tht', 4) });
    const refs = references(w.ctx, { textDocument: { uri: spec }, position: at(AGENT, '(Tht', 2), context: { includeDeclaration: true } })!;
    assert.deepEqual(
      refs.map(r => r.range.start),
      [at(AGENT, '(Tht', 1), at(AGENT, 'Tht Ans')],
    );
  });

  test('nothing on plain text or an unknown document', () => {
    assert.equal(definition(w.ctx, { textDocument: { uri: lib }, position: at(LIBRARY, 'Input: Peru', 8) }), null);
    assert.equal(
      references(w.ctx, { textDocument: { uri: 'file:///nowhere.art' }, position: { line: 0, character: 0 }, context: { includeDeclaration: true } }),
      null,
    );
  });
});
