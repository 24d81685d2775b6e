// foldingRanges() called in-process on in-memory documents.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { foldingRanges } from '../../../server/folding';
import { AGENT, LIBRARY, lineOf, workspace } from './helpers';

describe('folding ranges (in-process)', () => {
  const w = workspace();

  test('.art: each program is a region; a multi-line answer folds from its `#k:` line', async () => {
    const u = w.open('library.art', LIBRARY);
    assert.deepEqual(await foldingRanges(w.ctx, { textDocument: { uri: u } }), [
      { startLine: 0, endLine: lineOf(LIBRARY, 'Ans: Lima'), kind: 'region' },
      { startLine: lineOf(LIBRARY, '#2:'), endLine: lineOf(LIBRARY, 'ans = len(city)') },
      { startLine: lineOf(LIBRARY, 'Description', 1), endLine: lineOf(LIBRARY, 'Ans: Santiago'), kind: 'region' },
      { startLine: lineOf(LIBRARY, 'Description: %s'), endLine: lineOf(LIBRARY, 'Q1:\n'), kind: 'region' },
    ]);
  });

  test('.agent: the define, its :states and its :behavior', async () => {
    const u = w.open('qa.agent', AGENT);
    assert.deepEqual(await foldingRanges(w.ctx, { textDocument: { uri: u } }), [
      { startLine: lineOf(AGENT, '(define'), endLine: lineOf(AGENT, '(next'), kind: 'region' },
      { startLine: lineOf(AGENT, '(:states'), endLine: lineOf(AGENT, '(Ans') },
      { startLine: lineOf(AGENT, '(:behavior'), endLine: lineOf(AGENT, '(next') },
    ]);
  });

  test('a one-line program does not fold; an unknown document gives null', async () => {
    const u = w.open('one.art', 'Input: x');
    assert.deepEqual(await foldingRanges(w.ctx, { textDocument: { uri: u } }), []);
    assert.equal(await foldingRanges(w.ctx, { textDocument: { uri: 'file:///nowhere.art' } }), null);
  });
});
