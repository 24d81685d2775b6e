// The portable subset of regex and GBNF syntax (core/common/portableSyntax.ts): on random sets of characters, the
// class or alternation written matches exactly the set, as JavaScript's RegExp (`u`) and the strict GBNF reader read
// it, and passes the portability checks (ASCII-only classes, no `\x`, no control character escape before a hex digit,
// no positive class opening with `^`); literals escape what each form needs and nothing the engines read apart.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { anyCharExcept, charSetText, literal, type CharSet } from '../../../core/common/portableSyntax';
import { Gbnf } from '../../support/gbnf';
import { portableRegExp } from '../../support/portableRegex';
import { prng } from '../../support/random';

const NON_ASCII = ['é', '—', '你', '😀', '\u00a0', '\u2028', '\u3000', '\ufeff', '\u0080', '\u{10ffff}'];
const ALL_ASCII = Array.from({ length: 0x80 }, (_, c) => String.fromCharCode(c));

function contains(set: CharSet, c: string): boolean {
  const code = c.codePointAt(0)!;
  return code < 0x80 ? set.ascii.includes(code) : !!set.nonAscii || (set.literals ?? []).includes(c);
}

describe('portable syntax', () => {
  test('random sets of characters: the regex atom and the GBNF item match exactly the set', () => {
    const random = prng(1111);
    // Runs near the special characters and the control characters, where the escapes and the ordering matter.
    const dense = [0, 1, 9, 10, 11, 12, 13, 31, 32, 34, 45, 48, 65, 91, 92, 93, 94, 95, 97, 102, 126, 127];
    for (let n = 0; n < 400; n++) {
      const ascii = new Set<number>();
      const size = Math.floor(random() * (random() < 0.2 ? 128 : 8));
      for (let k = 0; k < size; k++) ascii.add(random() < 0.5 ? dense[Math.floor(random() * dense.length)] : Math.floor(random() * 0x80));
      if (random() < 0.05) ALL_ASCII.forEach((_, c) => ascii.add(c));
      const nonAscii = random() < 0.4;
      const literals = NON_ASCII.filter(() => random() < 0.2);
      const set: CharSet = { ascii: [...ascii], literals, nonAscii };
      if (!ascii.size && !literals.length && !nonAscii) continue;
      const re = portableRegExp(charSetText(set, 'regex'));
      const grammar = new Gbnf(`root ::= ${charSetText(set, 'gbnf')}\n`);
      for (const c of [...ALL_ASCII, ...NON_ASCII, 'ü', '中']) {
        const want = contains(set, c);
        assert.equal(re.test(c), want, `regex ${charSetText(set, 'regex')} on ${JSON.stringify(c)}`);
        assert.equal(grammar.accepts(c), want, `GBNF ${charSetText(set, 'gbnf')} on ${JSON.stringify(c)}`);
      }
      assert.equal(re.test('ab'), false);
    }
  });

  test('literals: every string as itself, escaped for the form, no \\x, no \\f, astral characters in GBNF as \\U or themselves', () => {
    const strings = [
      'a.b*c',
      'Q3:',
      '[EOQ]\nAns:',
      'x\u001fbad',
      'form\ffeed',
      'tab\there',
      'quote " and \\',
      'résumé — 你好 😀',
      '\u00a0\u2028',
      '/(?:x)|^$',
    ];
    for (const s of strings) {
      assert.ok(portableRegExp(literal(s, 'regex')).test(s), `regex ${literal(s, 'regex')}`);
      assert.ok(new Gbnf(`root ::= ${literal(s, 'gbnf')}\n`).accepts(s), `GBNF ${literal(s, 'gbnf')}`);
    }
    assert.equal(literal('form\ffeed', 'gbnf'), '"form\\u000cfeed"');
    assert.equal(literal('x\u001fbad', 'gbnf'), '"x\\u001fbad"');
    assert.equal(literal('x\u001fbad', 'regex'), 'x\\u001fbad');
    assert.equal(literal('😀 \u{e0001}', 'gbnf'), '"😀 \\U000e0001"');
    assert.equal(literal('a-b]', 'regex'), 'a-b\\]');
  });

  test('any character but ASCII ones; a non-ASCII one cannot be left out portably', () => {
    assert.equal(anyCharExcept(']\n', 'regex'), '[^\\]\\n]');
    assert.equal(anyCharExcept(']\n', 'gbnf'), '[^\\]\\n]');
    assert.equal(anyCharExcept('^', 'regex'), '[^\\^]');
    assert.throws(() => anyCharExcept('【', 'gbnf'), /only ASCII characters can be left out portably/);
    assert.throws(() => charSetText({ ascii: [] }, 'regex'), /empty/);
  });
});
