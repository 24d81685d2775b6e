// Quick fixes computed in core: applying one removes its diagnostic and adds no error.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { applyEdits, codesAt, diagnose, lines } from '../../support/art';

const ok = (...body: string[]) => lines('Description: (Task) Do it.', 'Input: some input', ...body);

function fixOnce(text: string, code: string): string {
  const d = diagnose(text).find(x => x.code === code);
  assert.ok(d, `expected a ${code} diagnostic`);
  assert.ok(d.fixes?.length, `${code} has a fix`);
  return applyEdits(text, d.fixes![0].edits);
}

describe('.art quick fixes', () => {
  test('renumber the program, answers and #k references', () => {
    const text = ok(
      'Q1: [search] x',
      '#1: y',
      'Q3: [code generate] use #1',
      '#3: code',
      'Q4: [code execute] run #3',
      '#4: 2',
      'Q5: [EOQ]',
      'Ans: #4',
    );
    const fixed = fixOnce(text, 'step-out-of-order');
    assert.equal(
      fixed,
      ok('Q1: [search] x', '#1: y', 'Q2: [code generate] use #1', '#2: code', 'Q3: [code execute] run #2', '#3: 2', 'Q4: [EOQ]', 'Ans: #3'),
    );
    assert.deepEqual(codesAt(fixed), []);
  });

  test('renumber resolves a duplicated number to the latest step before the reference', () => {
    const text = ok('Q1: [search] a', '#1: y', 'Q2: [search] b', '#2: z', 'Q2: [compare] use #2', '#2: w', 'Q3: [EOQ]', 'Ans: #2');
    const fixed = fixOnce(text, 'step-out-of-order');
    assert.equal(fixed, ok('Q1: [search] a', '#1: y', 'Q2: [search] b', '#2: z', 'Q3: [compare] use #2', '#3: w', 'Q4: [EOQ]', 'Ans: #3'));
    assert.deepEqual(codesAt(fixed), []);
  });

  test('use the tool name', () => {
    const fixed = fixOnce(ok('Q1: [code exeucte] x', '#1: y', 'Q2: [EOQ]', 'Ans: y'), 'tool-name-typo');
    assert.match(fixed, /\[code execute\]/);
    assert.deepEqual(codesAt(fixed), []);
  });

  for (const [code, text] of [
    ['missing-answer', ok('Q1: [search] x', 'Q2: [EOQ]', 'Ans: y')],
    ['missing-eoq', ok('Q1: [search] x', '#1: y', 'Ans: y')],
    ['missing-ans', ok('Q1: [search] x', '#1: y', 'Q2: [EOQ]')],
    ['answer-mismatch', ok('Q1: [search] x', '#3: y', 'Q2: [EOQ]', 'Ans: y')],
  ] as const) {
    test(`${code}: the fix leaves no error`, () => {
      const fixed = fixOnce(text, code);
      const errors = diagnose(fixed).filter(d => d.severity === 'error');
      assert.deepEqual(
        errors.map(d => d.code),
        [],
      );
    });
  }

  test('a program that stops gets [EOQ] and Ans:', () => {
    const fixed = fixOnce(ok('Q1: [think step-by-step] ', '#1: because'), 'missing-eoq');
    assert.equal(fixed, ok('Q1: [think step-by-step] ', '#1: because', 'Q2: [EOQ]', 'Ans: '));
  });
});
