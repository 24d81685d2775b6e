// The no-progress budget (core/engine/progress.ts): requests in a row that add nothing end the run; any progress
// starts the count again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProgressBudget } from '../../../core/engine/progress';

const correction = { offset: 40, found: '[Answer]', expected: ['[Action]'], inserted: '\n[Action]', removed: '[Answer] 5' };

test('three empty replies in a row end the run; progress in between starts over', () => {
  const b = new ProgressBudget();
  assert.equal(b.record({ n: 1, added: '' }), null);
  assert.equal(b.record({ n: 2, added: ' [calculator] 3 + 7' }), null);
  assert.equal(b.record({ n: 3, added: '' }), null);
  assert.equal(b.record({ n: 4, added: '  ' }), null);
  assert.equal(b.record({ n: 5, added: '' }), 'no progress in 3 requests in a row (the last, request 5: its reply added nothing)');
});

test('the same text as the request before, and the same monitor correction, are no progress', () => {
  const b = new ProgressBudget(2);
  assert.equal(b.record({ n: 1, added: 'Q2: x' }), null);
  assert.equal(b.record({ n: 2, added: 'Q2: x' }), null);
  assert.match(b.record({ n: 3, added: 'Q2: x' }) ?? '', /request 3: it wrote the same text as the request before \("Q2: x"\)/);
  const c = new ProgressBudget(2);
  assert.equal(c.record({ n: 1, added: '[Thought] a', correction }), null, 'a first correction is progress');
  assert.equal(c.record({ n: 2, added: '', correction }), null);
  assert.match(
    c.record({ n: 3, added: '', correction }) ?? '',
    /the same monitor correction as the request before \(found "\[Answer\]", expected \[Action\]\)/,
  );
});

test('a restatement dropped by the chat client is named; a reset starts over; the limit is checked', () => {
  const b = new ProgressBudget(1);
  const repairs = [{ kind: 'echo' as const, removed: '#1: 10\n', summary: '' }];
  assert.match(b.record({ n: 1, added: '', repairs }) ?? '', /only restated the text so far \("#1: 10"\)/);
  b.reset();
  assert.equal(b.record({ n: 2, added: 'x' }), null);
  assert.throws(() => new ProgressBudget(0), /at least 1/);
});
