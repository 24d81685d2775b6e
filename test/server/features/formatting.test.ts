// formatting() called in-process on in-memory documents.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatting, minimalEdit } from '../../../server/formatting';
import { AGENT, LIBRARY, apply, workspace } from './helpers';

const options = { tabSize: 2, insertSpaces: true };

describe('formatting (in-process)', () => {
  const w = workspace();

  test('.art: `Qk: [name]` spacing is normalised, answers are left alone; a formatted file gets no edit', () => {
    const messy = 'Input: x\nQ1:[ code   execute ]run it\n#1:   a  b\nQ2:  [EOQ]\nAns:18\n';
    const u = w.open('messy.art', messy);
    assert.equal(
      apply(messy, formatting(w.ctx, { textDocument: { uri: u }, options })!),
      'Input: x\nQ1: [code execute] run it\n#1: a  b\nQ2: [EOQ]\nAns: 18\n',
    );
    const lib = w.open('library.art', LIBRARY);
    assert.deepEqual(formatting(w.ctx, { textDocument: { uri: lib }, options }), []);
  });

  test('.agent: a squashed spec is laid out again, as one minimal edit', () => {
    const squashed = AGENT.replace(/\n\s+/g, ' ');
    const u = w.open('squashed.agent', squashed);
    const edits = formatting(w.ctx, { textDocument: { uri: u }, options })!;
    assert.equal(edits.length, 1);
    // A state per line; a formula's arguments below its first one when it holds a nested formula.
    const laidOut = AGENT.replace('(next Ques (until Tht Ans))))', '(next Ques\n          (until Tht Ans))))');
    assert.equal(apply(squashed, edits), laidOut);
    const same = w.open('laid-out.agent', laidOut);
    assert.deepEqual(formatting(w.ctx, { textDocument: { uri: same }, options }), []);
  });

  test('.agent with a syntax error is not reflowed', () => {
    const u = w.open('broken.agent', AGENT.replace('"[Thought]"', '"[Thought]'));
    assert.equal(formatting(w.ctx, { textDocument: { uri: u }, options }), null);
  });

  test('minimalEdit keeps the common prefix and suffix', () => {
    assert.deepEqual(minimalEdit('abcXdef', 'abcYYdef'), { span: { start: 3, end: 4 }, newText: 'YY' });
    assert.deepEqual(minimalEdit('same', 'same'), { span: { start: 4, end: 4 }, newText: '' });
  });
});
