// codeActions() called in-process on in-memory documents: core's fixes as LSP quick fixes and source.fixAll.art.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CodeActionKind, type Diagnostic as LspDiagnostic, type Range } from 'vscode-languageserver';
import { checkAgentFile, parseAgentFile } from '../../../core/agent';
import { checkArt, parseArt } from '../../../core/art';
import { FIX_ALL_KIND, codeActions } from '../../../server/codeActions';
import { AGENT, LIBRARY, apply, at, workspace } from './helpers';

describe('code actions (in-process)', () => {
  const w = workspace();
  const actionsAt = (uri: string, range: Range, only?: string[]) =>
    codeActions(w.ctx, { textDocument: { uri }, range, context: { diagnostics: [] as LspDiagnostic[], only } })!;
  const point = (text: string, needle: string, delta = 0) => ({ start: at(text, needle, delta), end: at(text, needle, delta) });

  test('renumber is the preferred quick fix of step-out-of-order; applying it leaves the file clean', () => {
    const broken = LIBRARY.replace('Q4: [compare] compare #3', 'Q5: [compare] compare #3')
      .replace('#4: shorter', '#5: shorter')
      .replace('Q5: [EOQ]', 'Q6: [EOQ]');
    const u = w.open('renumber.art', broken);
    const actions = actionsAt(u, point(broken, 'Q5: [compare]', 1));
    const fix = actions.find(a => a.isPreferred)!;
    assert.ok(fix, JSON.stringify(actions.map(a => a.title)));
    assert.equal(fix.kind, CodeActionKind.QuickFix);
    assert.equal(fix.diagnostics![0].code, 'step-out-of-order');
    assert.deepEqual(fix.diagnostics![0].range, { start: at(broken, 'Q5: [compare]', 1), end: at(broken, 'Q5: [compare]', 2) });
    const fixed = apply(broken, fix.edit!.changes![u]);
    assert.equal(fixed, LIBRARY);
    assert.deepEqual(checkArt(parseArt(fixed)), []);
  });

  test("a tool-name typo offers the tool's name", () => {
    const broken = LIBRARY.replace('[code execute]', '[code exectue]');
    const u = w.open('typo.art', broken);
    const [action] = actionsAt(u, point(broken, 'exectue'));
    assert.equal(action.title, 'Use the tool `code execute`');
    assert.equal(apply(broken, action.edit!.changes![u]), LIBRARY);
  });

  test('nothing to fix on a clean line; only what the client asks for', () => {
    const u = w.open('clean.art', LIBRARY);
    assert.deepEqual(actionsAt(u, point(LIBRARY, 'Input: Peru')), []);
    const broken = LIBRARY.replace('Q5: [EOQ]\n', '');
    const b = w.open('eoq.art', broken);
    assert.equal(actionsAt(b, point(broken, 'Ans: Lima'), [CodeActionKind.Refactor]).length, 0);
    assert.equal(actionsAt(b, point(broken, 'Ans: Lima'), [CodeActionKind.QuickFix])[0].title, 'Add `Q5: [EOQ]`');
  });

  test('source.fixAll.art applies every preferred fix that does not overlap another', () => {
    const broken = LIBRARY.replace('[code execute]', '[code exectue]').replace('Q5: [EOQ]\n', '').replace('#1: Santiago\n', '');
    const u = w.open('all.art', broken);
    const [all] = actionsAt(u, point(broken, 'Input'), [CodeActionKind.SourceFixAll]);
    assert.equal(all.kind, FIX_ALL_KIND);
    const fixed = apply(broken, all.edit!.changes![u]);
    assert.deepEqual(
      checkArt(parseArt(fixed)).map(d => d.code),
      ['empty-answer'],
      fixed,
    ); // the added `#1: ` is for the author to fill
    assert.match(fixed, /\[code execute\]/);
    assert.match(fixed, /#4: shorter\nQ5: \[EOQ\]\nAns: Lima/);
  });

  test('.agent: an unknown state can be added to :states', () => {
    const broken = AGENT.replace('(until Tht Ans)', '(until Tht Answer)');
    const u = w.open('qa.agent', broken);
    const actions = actionsAt(u, point(broken, 'Answer)', 2));
    const add = actions.find(a => /Add the missing state 'Answer'/.test(a.title))!;
    assert.ok(add, JSON.stringify(actions.map(a => a.title)));
    const fixed = apply(broken, add.edit!.changes![u]);
    assert.match(fixed, /\n {4}\(Answer \(:text "\[Answer\]"\)\)\)/);
    assert.deepEqual(
      checkAgentFile(parseAgentFile(fixed)).map(d => d.code),
      ['unused-state', 'duplicate-text'],
      'Ans is now unused, and the new state repeats its text',
    );
  });

  test('an unknown document gives null', () => {
    assert.equal(codeActions(w.ctx, { textDocument: { uri: 'file:///nowhere.art' }, range: point('x', 'x'), context: { diagnostics: [] } }), null);
  });
});
