// The corpus suite (`npm run test:corpus`): the papers' programs check clean and are formatted, the ART reference
// library gives exactly its known defects, and `art check` reports them as a user sees them.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { formatArt, parseArt } from '../../core/art';
import { codesAt } from '../support/art';
import { runCli } from '../support/cli';
import { CORPUS, requireCorpus } from '../support/corpus';

requireCorpus();

const read = (rel: string) => readFileSync(join(CORPUS, rel), 'utf8');

// Each entry is `line:code`. The comment says which sentence of art-library/README.md ("Known defects" and the
// tasks-dict quirks) it is, or why it is a real defect that README does not list.
const EXPECTED: Record<string, string[]> = {
  'arithmetic.art': [], // `Ans:18` (no space) parses
  'code.art': [
    '104:missing-answer', // program 4 writes `#2` with no colon
    '118:malformed-query', // ... and has a step `Q5: Which of ...` with no [name]
  ],
  'cot.art': [], // `[think step-by-step]` is accepted
  'cot-additional.art': [
    '55:duplicate-program', // "including duplicates"
    '62:duplicate-program',
  ],
  'search.art': [
    '27:answer-without-query', // program 2: `#4: [subquestion] ...` has no Q4
    '42:unknown-reference', // not in README: program 3 asks about "the answer in #3" with only #1 before it
    '57:missing-answer', // program 4: `Q4: [subquestion] ...` has no #4
  ],
  'string.art': [],
  'tasks-dict.art': [
    '102:answer-without-query', // the search.art program 2 instance (no Q4) appears here too
    '118:malformed-query', // "Another instance has a step `Q4:` with no [name]"
    '133:unknown-reference', // the search.art program 3 instance ("the answer in #3")
    '254:missing-answer', // "one writes `#2` with no colon"
    '268:malformed-query', // the code.art program 4 instance (`Q5:` with no name)
    '432:missing-input', // "The second SVAMP instance starts with a stray `"`": `"Input:` is no Input line
  ],
  'human-feedback/disambiguation-qa.art': [
    '7:missing-eoq', // "Some programs ... have no [EOQ] and no Ans: at all"
    '25:missing-eoq',
  ],
  'human-feedback/strategy-qa.art': [
    '8:missing-answer', // "a [generate output] step is answered without a #k: line"
    '19:step-out-of-order', // "Step numbers are also duplicated (Q2 twice)"
    '30:missing-answer',
    '41:missing-answer',
    '52:missing-answer',
    '65:missing-answer',
  ],
  // Not in README: the same duplicated step number as strategy-qa (`Q3:` twice).
  'human-feedback/sports-understanding.art': ['11:step-out-of-order', '26:step-out-of-order'],
  'human-feedback/tracking-shuffled-objects.art': ['22:step-out-of-order', '45:step-out-of-order', '68:step-out-of-order', '91:step-out-of-order'],
};

const libraryFiles = [
  ...readdirSync(join(CORPUS, 'art-library')).filter(f => f.endsWith('.art')),
  ...readdirSync(join(CORPUS, 'art-library/human-feedback')).map(f => `human-feedback/${f}`),
];

describe('corpus', () => {
  for (const f of readdirSync(join(CORPUS, 'programs'))) {
    test(`programs/${f} checks clean`, () => assert.deepEqual(codesAt(read(`programs/${f}`)), []));
  }

  for (const f of libraryFiles) {
    test(`art-library/${f} gives exactly its known defects`, () => {
      assert.deepEqual(codesAt(read(`art-library/${f}`)), EXPECTED[f] ?? []);
    });
  }

  test('the whole library is read: about 139 programs, every cluster file ends in its template', () => {
    let programs = 0;
    for (const f of libraryFiles) {
      const doc = parseArt(read(`art-library/${f}`));
      programs += doc.programs.filter(p => !p.template).length;
      if (['search.art', 'string.art', 'code.art', 'arithmetic.art', 'cot.art', 'tasks-dict.art'].includes(f)) {
        assert.ok(doc.programs.at(-1)!.template, `${f} ends in its template`);
        assert.ok(doc.preamble, `${f} has a preamble`);
      }
    }
    assert.ok(programs >= 135 && programs <= 145, `read ${programs} programs`);
  });

  test('the reference grammar rejects what this parser reads: [think step-by-step], Ans:18, Input:A', () => {
    const cot = parseArt(read('art-library/cot.art'));
    assert.equal(cot.programs[0].steps[0].name, 'think step-by-step');
    const arith = parseArt(read('art-library/arithmetic.art'));
    assert.ok(arith.programs.some(p => p.ans?.text === '18'));
    const dict = parseArt(read('art-library/tasks-dict.art'));
    assert.ok(dict.programs.some(p => p.input?.text.startsWith('A salesman')));
  });
});

describe('corpus: format and the command line', () => {
  test('the corpus programs are already formatted (only marker spacing they lack changes)', () => {
    for (const f of readdirSync(join(CORPUS, 'programs'))) {
      const text = read(`programs/${f}`);
      for (const e of formatArt(parseArt(text))) {
        const before = text.slice(e.span.start, e.span.end);
        assert.match(before + e.newText, /^[ \t]*$/, `${f}: ${JSON.stringify(before)} -> ${JSON.stringify(e.newText)}`);
      }
    }
  });

  const art = async (...args: string[]) => {
    const r = await runCli(args);
    return { code: r.code, out: r.stdout + r.stderr };
  };

  test('art check on the library: code.art has two errors, exit 1; cot-additional.art only warnings, exit 0', async () => {
    const f = join(CORPUS, 'art-library/code.art');
    const r = await art('check', f);
    assert.equal(r.code, 1);
    const lines = r.out.trim().split('\n');
    assert.equal(lines.length, 3, r.out);
    assert.equal(lines[2], 'checked 1 file: 2 errors');
    assert.equal(lines[0].slice(0, f.length), f);
    assert.match(lines[0], /:104:1: error: .+ \[missing-answer\]$/);
    assert.match(lines[1], /:118:1: error: .+ \[malformed-query\]$/);
    const w = await art('check', join(CORPUS, 'art-library/cot-additional.art'));
    assert.equal(w.code, 0);
    assert.match(w.out, /warning: .+ \[duplicate-program\]/);
  });

  test("art check on the papers' programs and agents: only the summary line, exit 0", async () => {
    const files = [
      ...readdirSync(join(CORPUS, 'programs')).map(f => join(CORPUS, 'programs', f)),
      ...readdirSync(join(CORPUS, 'agents')).map(f => join(CORPUS, 'agents', f)),
    ];
    const r = await art('check', ...files);
    assert.equal(r.out, `checked ${files.length} files: no problems\n`);
    assert.equal(r.code, 0);
    assert.equal((await art('check', '--quiet', ...files)).out, '', '--quiet: nothing on success');
  });
});
