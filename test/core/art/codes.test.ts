// Every `.art` diagnostic code: a case that produces it on the right line, and a close case that does not.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BUILTIN_TOOLS, ToolCatalog, checkArt, parseArt } from '../../../core/art';
import { checkDuplicates, duplicateKey } from '../../../core/art/check';
import { codesAt, diagnose, lines } from '../../support/art';

const ok = (...body: string[]) => lines('Description: (Task) Do it.', 'Input: some input', ...body);

const cases: { code: string; bad: string; line: number; good: string }[] = [
  {
    code: 'missing-input',
    bad: lines('Description: (Task) Do it.', 'Q1: [search] x', '#1: y', 'Q2: [EOQ]', 'Ans: y'),
    line: 1,
    good: ok('Q1: [search] x', '#1: y', 'Q2: [EOQ]', 'Ans: y'),
  },
  {
    code: 'step-out-of-order',
    bad: ok('Q1: [search] x', '#1: y', 'Q3: [compare] z', '#3: w', 'Q4: [EOQ]', 'Ans: w'),
    line: 5,
    good: ok('Q1: [search] x', '#1: y', 'Q2: [compare] z', '#2: w', 'Q3: [EOQ]', 'Ans: w'),
  },
  {
    code: 'answer-mismatch',
    bad: ok('Q1: [search] x', '#2: y', 'Q2: [EOQ]', 'Ans: y'),
    line: 4,
    good: ok('Q1: [search] x', '#1: y', 'Q2: [EOQ]', 'Ans: y'),
  },
  {
    code: 'answer-without-query',
    bad: ok('Q1: [search] x', '#1: y', '#2: z', 'Q3: [EOQ]', 'Ans: z'),
    line: 5,
    good: ok('Q1: [search] x', '#1: y', 'Q2: [lookup] z', '#2: z', 'Q3: [EOQ]', 'Ans: z'),
  },
  {
    code: 'missing-answer',
    bad: ok('Q1: [search] x', 'Q2: [EOQ]', 'Ans: y'),
    line: 3,
    good: ok('Q1: [search] x', '#1:', 'multi-line answer', 'Q2: [EOQ]', 'Ans: y'),
  },
  {
    code: 'malformed-query',
    bad: ok('Q1: search without brackets', '#1: y', 'Q2: [EOQ]', 'Ans: y'),
    line: 3,
    good: ok('Q1: [search] with brackets', '#1: y', 'Q2: [EOQ]', 'Ans: y'),
  },
  {
    code: 'missing-eoq',
    bad: ok('Q1: [search] x', '#1: y', 'Ans: y'),
    line: 5,
    good: ok('Q1: [search] x', '#1: y', 'Q2: [EOQ]', 'Ans: y'),
  },
  {
    code: 'missing-ans',
    bad: ok('Q1: [search] x', '#1: y', 'Q2: [EOQ]'),
    line: 5,
    good: ok('Q1: [search] x', '#1: y', 'Q2: [EOQ]', 'Ans:y'),
  },
  {
    code: 'eoq-not-last',
    bad: ok('Q1: [search] x', '#1: y', 'Q2: [EOQ]', 'Q3: [compare] z', '#3: z', 'Ans: z'),
    line: 6,
    good: ok('Q1: [search] x', '#1: y', 'Q2: [compare] z', '#2: z', 'Q3: [EOQ]', 'Ans: z'),
  },
  {
    code: 'unknown-reference',
    bad: ok('Q1: [search] x', '#1: y', 'Q2: [compare] compare #1 and #2', '#2: z', 'Q3: [EOQ]', 'Ans: z'),
    line: 5,
    good: ok('Q1: [search] x', '#1: y', 'Q2: [compare] compare #1 with the input', '#2: z', 'Q3: [EOQ]', 'Ans: z'),
  },
  {
    code: 'tool-name-typo',
    bad: ok('Q1: [serach] x', '#1: y', 'Q2: [EOQ]', 'Ans: y'),
    line: 3,
    good: ok('Q1: [subquestion] x', '#1: y', 'Q2: [EOQ]', 'Ans: y'),
  },
  {
    code: 'duplicate-program',
    bad: lines(ok('Q1: [search] x', '#1: y', 'Q2: [EOQ]', 'Ans: y'), '----', ok('Q1: [lookup] x', '#1: y', 'Q2: [EOQ]', 'Ans: y')),
    line: 8,
    good: lines(
      ok('Q1: [search] x', '#1: y', 'Q2: [EOQ]', 'Ans: y'),
      '----',
      'Description: (Task) Do it.',
      'Input: another input',
      'Q1: [lookup] x',
      '#1: y',
      'Q2: [EOQ]',
      'Ans: y',
    ),
  },
  {
    code: 'empty-answer',
    bad: ok('Q1: [search] x', '#1:', 'Q2: [EOQ]', 'Ans: y'),
    line: 4,
    good: ok('Q1: [search] x', '#1: 0', 'Q2: [EOQ]', 'Ans: y'),
  },
];

describe('.art diagnostic codes', () => {
  for (const c of cases) {
    test(`${c.code}: produced on line ${c.line}`, () => {
      assert.deepEqual(codesAt(c.bad), [`${c.line}:${c.code}`]);
    });
    test(`${c.code}: not produced by the close correct case`, () => {
      assert.deepEqual(codesAt(c.good), []);
    });
  }

  test('severities follow DESIGN.md', () => {
    const warnings = new Set(['unknown-reference', 'tool-name-typo', 'duplicate-program', 'empty-answer']);
    for (const c of cases) {
      const [d] = diagnose(c.bad);
      assert.equal(d.severity, warnings.has(c.code) ? 'warning' : 'error', c.code);
    }
  });

  test('the prompt template is valid and not checked as a demonstration', () => {
    assert.deepEqual(codesAt(lines('Description: %s', 'Input: %s', 'Q1:')), []);
    assert.deepEqual(codesAt(lines('Input: %s', 'Q1:')), []);
  });

  test('a bare `Qk:` in an ordinary program is malformed', () => {
    assert.deepEqual(codesAt(ok('Q1:', '#1: y', 'Q2: [EOQ]', 'Ans: y')), ['3:malformed-query']);
  });

  test('an unclosed bracket and an empty name are malformed', () => {
    assert.deepEqual(codesAt(ok('Q1: [search x', '#1: y', 'Q2: [EOQ]', 'Ans: y')), ['3:malformed-query']);
    assert.deepEqual(codesAt(ok('Q1: [] x', '#1: y', 'Q2: [EOQ]', 'Ans: y')), ['3:malformed-query']);
  });

  test('one missing query gives one diagnostic, not one per later step', () => {
    assert.deepEqual(codesAt(ok('Q1: [search] x', '#1: y', '#2: z', 'Q3: [compare] w', '#3: w', 'Q4: [EOQ]', 'Ans: w')), ['5:answer-without-query']);
  });

  test('`#k` without its colon is reported on its line', () => {
    assert.deepEqual(codesAt(ok('Q1: [code generate] x', '#1', 'print(1)', 'Q2: [EOQ]', 'Ans: y')), ['4:missing-answer']);
  });

  test('a program that just stops has missing-eoq at its last step', () => {
    assert.deepEqual(codesAt(ok('Q1: [think step-by-step] ', '#1: because')), ['4:missing-eoq']);
  });

  test('tool-name-typo respects user tools and leaves sub-steps alone', () => {
    const text = ok('Q1: [wikisearh] x', '#1: y', 'Q2: [EOQ]', 'Ans: y');
    assert.deepEqual(
      checkArt(parseArt(text)).map(d => d.code),
      [],
    );
    const tools = new ToolCatalog([...BUILTIN_TOOLS, { name: 'wikisearch', description: 'w', input: 'q', origin: 'user' }]);
    assert.deepEqual(
      checkArt(parseArt(text), { tools }).map(d => d.code),
      ['tool-name-typo'],
    );
  });
});

test('duplicate programs are found by their keys, and programs whose keys collide are told apart by their text', () => {
  const program = (task: string, input: string) => lines(`Description: (${task}) Do it.`, `Input: ${input}`, 'Q1: [EOQ]', 'Ans: x');
  const doc = parseArt([program('T', 'a'), program('T', 'b'), program('T', 'b'), program('U', 'a'), program('T', 'a')].join('\n----\n'));
  const line = (d: { span: { start: number } }) => doc.text.slice(0, d.span.start).split('\n').length;
  const found = (keys?: number[]) => checkDuplicates(doc, keys).map(d => [line(d), line(d.related![0])]);
  // Each on the later program's task name, pointing at the earlier one's input.
  assert.deepEqual(found(), [
    [11, 7],
    [21, 2],
  ]);
  // Every key the same (as if they all collided): the same findings.
  assert.deepEqual(found([7, 7, 7, 7, 7]), found());
  assert.equal(duplicateKey(doc.text, doc.programs[0]), duplicateKey(doc.text, doc.programs[4]));
  assert.notEqual(duplicateKey(doc.text, doc.programs[0]), duplicateKey(doc.text, doc.programs[3]));
});
