// The program formatter: marker spacing only, answers untouched, idempotent, and corpus files stay as they are.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArt } from '../../../core/art';
import { formatArt, formatArtText } from '../../../core/art/format';
import { lines } from '../../support/art';
import { FIXTURES } from '../../support/fixtures';

describe('formatArt', () => {
  test('normalises query, answer and final-answer markers', () => {
    const messy = lines(
      'Description:(Task) do it',
      'Input:A',
      'Q1:[ generate   python code ]   write it  ',
      '#1:x = 1',
      'Q2 : [code execute]',
      '#2:   1',
      'Q3:   [EOQ]',
      'Ans:18',
      '',
    );
    assert.equal(
      formatArtText(messy),
      lines(
        'Description: (Task) do it',
        'Input: A',
        'Q1: [generate python code] write it  ',
        '#1: x = 1',
        'Q2: [code execute]',
        '#2: 1',
        'Q3: [EOQ]',
        'Ans: 18',
        '',
      ),
    );
  });

  test('leaves multi-line answers (code) alone and drops blanks after a marker that ends its line', () => {
    const text = lines('Input: x', 'Q1: [generate python code] go', '#1:   ', 'def f(x):', '    return  x', 'Q2: [EOQ]', 'Ans: 1');
    assert.equal(formatArtText(text), lines('Input: x', 'Q1: [generate python code] go', '#1:', 'def f(x):', '    return  x', 'Q2: [EOQ]', 'Ans: 1'));
  });

  test('keeps fullwidth colons and does not touch an unclosed bracket', () => {
    const text = lines('Input： x', 'Q1：[search]  y', '#1： z', 'Q2: [unclosed  name', '#2: w');
    const out = formatArtText(text);
    assert.ok(out.includes('Q1： [search] y'), out);
    assert.ok(out.includes('Q2: [unclosed  name'), out);
  });

  test('is idempotent and gives minimal, ordered edits', () => {
    const messy = lines('Input:x', 'Q1:[search]y', '#1:z', 'Q2:[EOQ]', 'Ans:z');
    const once = formatArtText(messy);
    assert.equal(formatArtText(once), once);
    assert.deepEqual(formatArt(parseArt(once)), []);
    const edits = formatArt(parseArt(messy));
    for (let i = 1; i < edits.length; i++) assert.ok(edits[i - 1].span.end <= edits[i].span.start);
  });

  test('the fixture programs are already formatted (only marker spacing they lack changes)', () => {
    for (const f of readdirSync(join(FIXTURES, 'programs'))) {
      const text = readFileSync(join(FIXTURES, 'programs', f), 'utf8');
      const edits = formatArt(parseArt(text));
      for (const e of edits) {
        const before = text.slice(e.span.start, e.span.end);
        // Every change is white space only.
        assert.match(before + e.newText, /^[ \t]*$/, `${f}: ${JSON.stringify(before)} -> ${JSON.stringify(e.newText)}`);
      }
    }
  });
});
