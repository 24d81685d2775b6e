// Agent constraints that every engine reads the same (core/common/portableSyntax.ts): for a spec whose prompt texts
// have non-ASCII characters (é, an em dash, CJK brackets and characters, an emoji outside the BMP), no class in the
// regex or the grammar holds a non-ASCII character, the grammar has no `\xNN` before a hex digit and no `\f`, and both
// accept exactly what a portable constraint can: what the monitor accepts, less the texts it would refuse with an
// unknown non-ASCII character read as one of the spec's (constrainHelpers.ts portableAccepts). xgrammar 0.1.27 read the
// classes of the earlier constraints wrongly: `[^...【...]` let `【观察】` through where the spec forbids it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { agentConstraint, pauseAtState } from '../../../core/agent/constrain';
import { Gbnf } from '../../support/gbnf';
import { portableRegExp, portableRegexProblems } from '../../support/portableRegex';
import { prng } from '../../support/random';
import { checkAgent, INTL_SPEC, monitorAccepts, pausePoints, portableAccepts, randomSpec } from './constrainHelpers';
import { compiled } from './helpers';

const SPEC = INTL_SPEC;

const intl = compiled(SPEC);

/** Filler for the random texts: ASCII, non-ASCII in and out of the prompt texts, non-ASCII white space, astral. */
const INTL_FILLER = [' ', '\n', 'x', 'é', 'ü', '你', '中', '观', '😀', '😁', '\u00a0', '\u3000', '—', '–', ']', '[', '【', '】'];

/** Every escape of a GBNF grammar, in order (`\\` counts as one, so `\\f` is not `\f`). */
const escapes = (gbnf: string): string[] => gbnf.match(/\\./gsu) ?? [];

describe('agent constraints every engine reads the same', () => {
  test('no class holds a non-ASCII character; no \\x escape, no \\f in the grammar', () => {
    for (const { label, at } of pausePoints(intl)) {
      const c = agentConstraint(intl, at) ?? assert.fail(`no constraint from ${label}`);
      assert.deepEqual(portableRegexProblems(c.regex), [], `regex from ${label}`);
      assert.doesNotThrow(() => new Gbnf(c.gbnf), `GBNF from ${label}`);
      const gbnfEscapes = escapes(c.gbnf);
      assert.ok(!gbnfEscapes.includes('\\f') && !gbnfEscapes.includes('\\x'), `GBNF from ${label}: ${[...new Set(gbnfEscapes)].join(' ')}`);
      // The non-ASCII characters of the prompt texts are there, as literals.
      for (const ch of ['é', '—', '【', '😀']) assert.ok(c.gbnf.includes(`"${ch}"`) || c.gbnf.includes(`${ch}`), `${ch} in the GBNF from ${label}`);
    }
  });

  test('hand-picked texts with non-ASCII characters: regex and grammar agree with the monitor where a portable constraint can', () => {
    const start = pauseAtState(intl, null);
    const c = agentConstraint(intl, start)!;
    const re = portableRegExp(c.regex);
    const grammar = new Gbnf(c.gbnf);
    const cases: [string, boolean, string][] = [
      [
        '[Question] Quelle heure est-il ? 日本語 ü ß\n[Pensée] Je réfléchis — vite.\n[Action—outil] horloge\n【观察】',
        true,
        'on spec to the env-input state',
      ],
      ['[Question] q\n[Fin 😀]\n[Réponse] 答え 😁', true, 'on spec to the end, astral characters in free text'],
      ['[Question] q\n【观察】', false, 'the env-input state straight after the question: the exclusion xgrammar 0.1.27 dropped'],
      ['[Question] q [Pensée] t —outil 【观察】', false, '【观察】 without the action'],
      ['[Question] q [Action—outil] x 【观察】', false, 'the action without the thought'],
      ['[Question] q [Fin 😁]\n[Réponse] a', false, 'another emoji is no state: [Réponse] too early'],
      ['[Question] q [Fin 😀', false, 'cut in the middle of a prompt text'],
      ['[Question] q [Pensée] t\n【观察', false, 'cut in the middle of the env-input prompt text'],
      ['[Question] q [Pensée] t [Action—outil] a 【观察】 more', false, 'text after the env-input state'],
    ];
    for (const [text, want, why] of cases) {
      assert.equal(monitorAccepts(intl, start, text), want, `monitor, ${why}`);
      assert.equal(portableAccepts(intl, start, text), want, `portable oracle, ${why}`);
      assert.equal(re.test(text), want, `regex, ${why}: ${JSON.stringify(text)}`);
      assert.equal(grammar.accepts(text), want, `GBNF, ${why}: ${JSON.stringify(text)}`);
    }
  });

  test('what portability costs: an unknown non-ASCII character where one of the prompt texts could start', () => {
    const start = pauseAtState(intl, null);
    const c = agentConstraint(intl, start)!;
    const re = portableRegExp(c.regex);
    const grammar = new Gbnf(c.gbnf);
    // The monitor accepts these; no class xgrammar 0.1.27 reads can tell 中 from 【 or U+3000 from 【.
    for (const text of ['[Question] q 中观察】 [Fin 😀] [Réponse] a', '\u3000[Question] q [Fin 😀] [Réponse] a']) {
      assert.equal(monitorAccepts(intl, start, text), true, JSON.stringify(text));
      assert.equal(portableAccepts(intl, start, text), false, JSON.stringify(text));
      assert.equal(re.test(text), false, `regex on ${JSON.stringify(text)}`);
      assert.equal(grammar.accepts(text), false, `GBNF on ${JSON.stringify(text)}`);
    }
  });

  test('the spec at every pause point, on texts near its language', () => {
    const { accepted, total, lost } = checkAgent(intl, 2024, 300, { filler: INTL_FILLER, gbnfEvery: 4 });
    assert.ok(accepted > total / 10 && accepted < total - total / 10, `${accepted} of ${total} accepted`);
    console.log(
      `agent-intl: ${accepted} of ${total} texts accepted, ${lost} more the monitor accepts (an unknown non-ASCII character where it matters)`,
    );
    assert.ok(lost < accepted / 10, `${lost} lost, ${accepted} accepted`);
  });

  test('random specs with non-ASCII prompt texts', () => {
    const random = prng(20_11);
    const pieces = ['é', '你', '—', '😀', '【', '】', 'A', ':', ' ', '\u00a0', 'Aé'];
    let total = 0;
    let accepted = 0;
    for (let n = 0; n < 15; n++) {
      const r = checkAgent(randomSpec(random, pieces, `r${n}`, 4), 9100 + n, 50, { filler: INTL_FILLER });
      total += r.total;
      accepted += r.accepted;
    }
    assert.ok(total > 2_000 && accepted > total / 20, `${accepted} of ${total} texts accepted`);
  });
});

describe('the test readers refuse what the engines read differently', () => {
  test('GBNF: \\xNN before a hex digit, \\f and other escapes llama.cpp rejects, non-ASCII in a class', () => {
    assert.throws(() => new Gbnf('root ::= "\\x411"'), /\\x41 followed by the hex digit 1: xgrammar reads all the hex digits/);
    assert.doesNotThrow(() => new Gbnf('root ::= "\\x41" "1"'));
    for (const e of ['f', 'v', 'b', '0', '-']) assert.throws(() => new Gbnf(`root ::= "\\${e}"`), /unknown escape .* \(llama\.cpp rejects it\)/, e);
    // What the constraints were before: the white space of the monitor in one class, a negated class leaving out 【.
    assert.throws(() => new Gbnf('root ::= [\\u0020\\t\\u00a0\\u2028] root | "["'), /non-ASCII character \(U\+00A0\) in a class/);
    assert.throws(() => new Gbnf('root ::= [^【] root | "【"'), /non-ASCII character \(U\+3010\) in a class/);
    assert.throws(() => new Gbnf('root ::= [a-é]'), /non-ASCII/);
    assert.doesNotThrow(() => new Gbnf('root ::= ([a-z] | "é" | "😀") [^\\u0000-\\u007f]'));
  });

  test('regex: non-ASCII in a class, \\x, a control character before a hex digit, a positive class opening with \\^', () => {
    assert.deepEqual(portableRegexProblems('([a-z]|é|😀)[^\\u0000-\\u007f][^\\]\\n]'), []);
    for (const [re, problem] of [
      ['[^é]', /non-ASCII character \(U\+E9\)/],
      ['[\\u0020\\u00a0]', /non-ASCII character \(U\+A0\)/],
      ['\\x41', /a \\x escape/],
      ['[\\u0001a]', /control character before a hex digit/],
      ['[\\^a]', /starting with \\\^/],
      ['a.b', /any character/],
      ['[\\s\\S]', /\\s, read differently/],
    ] as const)
      assert.match(portableRegexProblems(re).join('; '), problem, re);
  });
});
