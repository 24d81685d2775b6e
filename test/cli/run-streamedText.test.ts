// Printing a growing program on an append-only output (the terminal of `art run`, the Debug Console).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StreamedText } from '../../core/common/streamedText';

test('whole lines while streaming, the rest on demand', () => {
  const out: string[] = [];
  const s = new StreamedText(t => out.push(t));
  s.update('Q1: [search] x');
  assert.deepEqual(out, []);
  s.update('Q1: [search] x\n#');
  assert.deepEqual(out, ['Q1: [search] x'], 'the line break before the unfinished line is held with it');
  s.update('Q1: [search] x\n#', true);
  assert.deepEqual(out, ['Q1: [search] x', '\n#']);
  s.update('Q1: [search] x\n#1: found\n');
  assert.equal(out.join(''), 'Q1: [search] x\n#1: found');
  s.update('Q1: [search] x\n#1: found\nQ2: [EOQ]\n');
  assert.equal(out.join(''), 'Q1: [search] x\n#1: found\nQ2: [EOQ]');
  assert.equal(s.text, 'Q1: [search] x\n#1: found\nQ2: [EOQ]');
});

test('text cut before it was printed is never shown; text taken back after printing is marked', () => {
  const out: string[] = [];
  const s = new StreamedText(t => out.push(t));
  s.update('a\n#1: dropped past the call');
  s.update('a\n#'); // the runner cut the stream at the call
  s.update('a\n#1: 5\nnext', true);
  assert.equal(out.join(''), 'a\n#1: 5\nnext');
  s.update('a\n#1: 5\nother\n', true); // a monitor correction rewrote the printed tail
  assert.match(out.join(''), /\[… 4 characters taken back; the program goes on from here:\]\nother\n$/);
  assert.equal(s.text, 'a\n#1: 5\nother\n');
  s.reset();
  assert.equal(s.text, '');
});

test('a line break the runner takes back (the end of the program, read on the next line) was never printed', () => {
  const out: string[] = [];
  const s = new StreamedText(t => out.push(t));
  s.update('Q2: [EOQ]\nAns: 10\n');
  s.update('Q2: [EOQ]\nAns: 10'); // `――` arrived; the runner cut at the line break before it and showed the rest
  s.update('Q2: [EOQ]\nAns: 10', true);
  assert.equal(out.join(''), 'Q2: [EOQ]\nAns: 10');
  assert.doesNotMatch(out.join(''), /taken back/);
});
