import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AGENT_DIAGNOSTIC_CODES, parseAgentFile } from '../../../core/agent';
import { applyEdits, check, codesAt, fixtureAgent, fixtureAgentFiles, lineOf, replaceOnce } from './helpers';

const react = fixtureAgent('react');

/** The diagnostics of one code, as `code@line`. */
function only(text: string, code: string): string[] {
  return codesAt(text).filter(c => c.startsWith(`${code}@`));
}

function fixOf(text: string, code: string, title: RegExp): string {
  const d = check(text).find(x => x.code === code);
  assert.ok(d, `no ${code}`);
  const fix = d.fixes?.find(f => title.test(f.title));
  assert.ok(fix, `no fix matching ${title} among ${JSON.stringify(d.fixes?.map(f => f.title))}`);
  return applyEdits(text, fix.edits);
}

describe('checkAgentFile', () => {
  test('every fixture agent checks clean', () => {
    for (const { name, text } of fixtureAgentFiles()) assert.deepEqual(check(text), [], name);
  });

  test('severities follow DESIGN.md', () => {
    const warnings = Object.entries(AGENT_DIAGNOSTIC_CODES)
      .filter(([, s]) => s === 'warning')
      .map(([c]) => c)
      .sort();
    assert.deepEqual(warnings, ['unknown-flag', 'unused-state']);
    assert.equal(Object.keys(AGENT_DIAGNOSTIC_CODES).length, 12);
  });

  describe('syntax', () => {
    test('a missing ) is reported once, at the open paren the indentation points to', () => {
      const text = replaceOnce(react, '(Tht (:text "[Thought]"))', '(Tht (:text "[Thought]")');
      // Without the indentation, Tht would swallow the following states and the define would stay open.
      assert.deepEqual(codesAt(text), [`syntax@${lineOf(text, '(Tht')}`]);
      const d = check(text)[0];
      assert.equal(d.severity, 'error');
      assert.equal(text.slice(d.span.start, d.span.end), '(');
      assert.equal(fixOf(text, 'syntax', /Insert/), react);
    });

    test('a ) missing inside the behavior: at the list whose part is aligned left of it', () => {
      const text = replaceOnce(react, '(until (next Tht Act Act-Inp Obs)', '(until (next Tht Act Act-Inp Obs');
      assert.deepEqual(codesAt(text), [`syntax@${lineOf(text, '(until')}`]);
      const d = check(text)[0];
      assert.equal(d.span.start, text.indexOf('(next Tht'));
      assert.equal(fixOf(text, 'syntax', /Insert/), react);
    });

    test('close case: a spec written flush left with balanced parentheses is clean', () => {
      assert.deepEqual(check(react.replace(/^\s+/gm, '')), []);
    });

    test('an extra ) is reported once, where it closes a list too early', () => {
      const text = replaceOnce(react, '(Ques (:text "[Question]"))', '(Ques (:text "[Question]")))');
      assert.deepEqual(codesAt(text), [`syntax@${lineOf(text, '(Ques')}`]);
      assert.equal(fixOf(text, 'syntax', /Remove/), react);
    });

    test('a ) missing at the very end: at the innermost open paren, and the next agent is still read', () => {
      const text = `${react.trimEnd().slice(0, -1)}
${fixtureAgent('cot').replace('Tht Ans', 'Tht Answer')}`;
      const ansLine = lineOf(text, '(Ans (:text "[Answer]")))\n  (:behavior\n    (next Ques Tht Answer');
      assert.deepEqual(codesAt(text), [
        `syntax@${lineOf(text, '(define react')}`,
        `unused-state@${ansLine}`,
        `unknown-state@${lineOf(text, 'Tht Answer')}`,
      ]);
    });

    test('an unterminated string is one diagnostic on its line; the rest still checks', () => {
      const text = replaceOnce(react, '(Tht (:text "[Thought]"))', '(Tht (:text "[Thought]))');
      assert.deepEqual(codesAt(text), [`syntax@${lineOf(text, '[Thought]')}`]);
      const fixed = fixOf(text, 'syntax', /Close the string/);
      assert.deepEqual(check(fixed), []);
    });

    test('a bad token is reported on its line, and several problems are all reported', () => {
      let text = replaceOnce(react, '(Act (:text "[Action]"))', '(Act (:text "[Action]") [x])');
      text = replaceOnce(text, '(Ans (:text "[Answer]"))', '(Ans (:text "[Answer]\\q"))');
      text = replaceOnce(text, '          Ans)))', '          Ans))))');
      assert.deepEqual(only(text, 'syntax'), [`syntax@${lineOf(text, '[x]')}`, `syntax@${lineOf(text, '\\q')}`, `syntax@${lineOf(text, 'Ans))))')}`]);
    });

    test('close case: escapes and keywords that are fine give nothing', () => {
      const text = replaceOnce(react, '"[Answer]"', '"[Answer \\"final\\"]"');
      assert.deepEqual(check(text), []);
    });
  });

  describe('missing-states / missing-behavior', () => {
    const statesStart = react.indexOf('  (:states');
    const behaviorStart = react.indexOf('  (:behavior');

    test('a define without :states; the fix adds the states the behavior names', () => {
      const text = react.slice(0, statesStart) + react.slice(behaviorStart);
      assert.deepEqual(codesAt(text), [`missing-states@${lineOf(text, '(define')}`]);
      const fixed = fixOf(text, 'missing-states', /Add \(:states/);
      assert.deepEqual(check(fixed), []);
      assert.match(fixed, /\(Act-Inp \(:text "\[Act-Inp\]"\)\)/);
    });

    test('close case: an empty (:states) is not missing (its names are unknown instead)', () => {
      const text = react.slice(0, statesStart) + '  (:states)\n' + react.slice(behaviorStart);
      const codes = check(text).map(d => d.code);
      assert.ok(!codes.includes('missing-states'));
      assert.ok(codes.includes('unknown-state'));
    });

    test('a define without :behavior, at the name; an empty (:behavior) at its keyword', () => {
      const text = react.slice(0, behaviorStart).trimEnd() + ')\n';
      assert.deepEqual(codesAt(text), [`missing-behavior@${lineOf(text, '(define')}`]);
      const fixed = fixOf(text, 'missing-behavior', /in order/);
      assert.deepEqual(check(fixed), []);
      const empty = react.slice(0, behaviorStart) + '  (:behavior))\n';
      assert.deepEqual(codesAt(empty), [`missing-behavior@${lineOf(empty, '(:behavior')}`]);
    });

    test('close case: a behavior that is present but malformed is a syntax error, not missing', () => {
      const text = replaceOnce(react, '(next Ques', '(nxt Ques');
      const codes = check(text).map(d => d.code);
      assert.ok(!codes.includes('missing-behavior'));
      assert.ok(codes.includes('syntax'));
    });
  });

  describe('missing-text', () => {
    test('a state without (:text ...) and a state with an empty text', () => {
      const text = replaceOnce(replaceOnce(react, '(Tht (:text "[Thought]"))', '(Tht)'), '"[Answer]"', '""');
      assert.deepEqual(codesAt(text), [`missing-text@${lineOf(text, '(Tht)')}`, `missing-text@${lineOf(text, '""')}`]);
      const d = check(text)[0];
      assert.equal(text.slice(d.span.start, d.span.end), 'Tht');
      const fixed = fixOf(text, 'missing-text', /prompt text/);
      assert.match(fixed, /\(Tht \(:text "\[Tht\]"\)\)/);
    });

    test('a state written as a bare name has no text', () => {
      const text = replaceOnce(react, '(Tht (:text "[Thought]"))', 'Tht');
      assert.deepEqual(codesAt(text), [`missing-text@${lineOf(text, '    Tht\n')}`]);
    });

    test('close case: a one-character text is fine', () => {
      assert.deepEqual(check(replaceOnce(react, '"[Answer]"', '"A"')), []);
    });
  });

  describe('duplicate-state / duplicate-text', () => {
    test('a state name defined twice is reported at the second definition', () => {
      const text = replaceOnce(react, '    (Ans (:text "[Answer]")))', '    (Ans (:text "[Answer]"))\n    (Tht (:text "[Thinking]")))');
      assert.deepEqual(codesAt(text), [`duplicate-state@${lineOf(text, '[Thinking]')}`]);
      const d = check(text)[0];
      assert.equal(d.related?.[0].span.start, text.indexOf('(Tht') + 1);
    });

    test('two states with the same prompt text', () => {
      const text = replaceOnce(react, '"[Final Thought]"', '"[Thought]"');
      assert.deepEqual(codesAt(text), [`duplicate-text@${lineOf(text, '(Final-Tht')}`]);
    });

    test('close case: a text that is a prefix of another is not a duplicate', () => {
      // [Action] / [Action Input] and [Thought] / [Final Thought] in the corpus.
      assert.deepEqual(check(react), []);
      const text = replaceOnce(react, '"[Final Thought]"', '"[Thought] "');
      assert.deepEqual(only(text, 'duplicate-text'), []);
    });
  });

  describe('unknown-state', () => {
    test('a misspelt state: at the reference, with "use" and "add" fixes', () => {
      const text = replaceOnce(react, 'Final-Tht)', 'Final-Th)');
      assert.deepEqual(codesAt(text), [`unused-state@${lineOf(text, '(Final-Tht')}`, `unknown-state@${lineOf(text, 'Final-Th)')}`]);
      const d = check(text).find(x => x.code === 'unknown-state')!;
      assert.equal(text.slice(d.span.start, d.span.end), 'Final-Th');
      assert.equal(d.fixes?.[0].title, "Change to 'Final-Tht'");
      assert.equal(d.fixes?.[0].preferred, true);
      assert.deepEqual(check(applyEdits(text, d.fixes![0].edits)), []);
    });

    test('a new state: "add a missing state" inserts a template after the last state', () => {
      const text = replaceOnce(react, '(next Tht Act', '(next Tht Plan Act');
      assert.deepEqual(codesAt(text), [`unknown-state@${lineOf(text, 'Tht Plan Act')}`]);
      const fixed = fixOf(text, 'unknown-state', /Add the missing state 'Plan'/);
      assert.deepEqual(check(fixed), []);
      assert.match(fixed, /\(Ans \(:text "\[Answer\]"\)\)\n {4}\(Plan \(:text "\[Plan\]"\)\)\)/);
    });

    test('close case: every name defined', () => {
      assert.deepEqual(only(react, 'unknown-state'), []);
    });
  });

  describe('bad-arity', () => {
    test('until with 3 formulas, or with 1, next with none', () => {
      const text = replaceOnce(react, 'Final-Tht)\n', 'Final-Tht Ans)\n');
      assert.deepEqual(codesAt(text), [`bad-arity@${lineOf(text, '(until')}`]);
      const d = check(text)[0];
      assert.equal(text.slice(d.span.start, d.span.end), 'until');
      const or1 = replaceOnce(react, '(next Tht Act Act-Inp Obs)', '(next Tht (or Act) Act-Inp Obs)');
      assert.deepEqual(codesAt(or1), [`bad-arity@${lineOf(or1, '(or Act)')}`]);
      const next0 = replaceOnce(react, '(next Tht Act Act-Inp Obs)', '(next Tht Act Act-Inp Obs (next))');
      assert.deepEqual(codesAt(next0), [`bad-arity@${lineOf(next0, '(next))')}`]);
    });

    test('a malformed argument still counts towards the arity', () => {
      const text = replaceOnce(react, '(until (next Tht Act Act-Inp Obs)', '(until (nxt Tht Act Act-Inp Obs)');
      assert.deepEqual(only(text, 'bad-arity'), []);
      assert.equal(only(text, 'syntax').length, 1);
    });

    test('close case: or with two formulas, next with one', () => {
      const text = replaceOnce(react, '(next Tht Act Act-Inp Obs)', '(next Tht (or Act (next Act)) Act-Inp Obs)');
      assert.deepEqual(check(text), []);
    });
  });

  describe('behavior-not-next', () => {
    test('a top-level until; the fix wraps it in next', () => {
      const text = fixtureAgent('cot').replace('(next Ques Tht Ans)', '(until Ques (next Tht Ans))');
      assert.deepEqual(codesAt(text), [`behavior-not-next@${lineOf(text, '(until')}`]);
      const fixed = fixOf(text, 'behavior-not-next', /Wrap/);
      assert.deepEqual(check(fixed), []);
    });

    test('a single state is not a next formula', () => {
      const text = fixtureAgent('direct').replace('(next Ques Ans)', 'Ques').replace('    (Ans (:text "[Answer]")))', ')');
      assert.deepEqual(codesAt(text), [`behavior-not-next@${lineOf(text, '    Ques))')}`]);
    });

    test('close case: a next whose first part is a loop is fine', () => {
      const text = fixtureAgent('cot').replace('(next Ques Tht Ans)', '(next (until Ques Tht) Ans)');
      assert.deepEqual(check(text), []);
    });
  });

  describe('unknown-keyword', () => {
    test('in a define and in a state, with the nearest keyword as fix', () => {
      const text = replaceOnce(replaceOnce(react, '(:behavior', '(:behaviour'), '(:flags :env-input)', '(:flag :env-input)');
      assert.deepEqual(
        codesAt(text),
        [
          `unknown-keyword@${lineOf(text, ':flag ')}`,
          `missing-behavior@${lineOf(text, '(define')}`,
          `unknown-keyword@${lineOf(text, ':behaviour')}`,
        ].sort((a, b) => Number(a.split('@')[1]) - Number(b.split('@')[1])),
      );
      let fixed = text;
      for (let i = 0; i < 2; i++) fixed = fixOf(fixed, 'unknown-keyword', /Change to/);
      assert.deepEqual(check(fixed), []);
    });

    test('close case: :text and :flags in a state, :states and :behavior in a define', () => {
      assert.deepEqual(only(react, 'unknown-keyword'), []);
    });
  });

  describe('unused-state', () => {
    test('a state the behavior never names, as a warning with a removal fix', () => {
      const text = replaceOnce(react, '    (Ans (:text "[Answer]")))', '    (Ans (:text "[Answer]"))\n    (Plan (:text "[Plan]")))');
      assert.deepEqual(codesAt(text), [`unused-state@${lineOf(text, '(Plan')}`]);
      assert.equal(check(text)[0].severity, 'warning');
      assert.deepEqual(check(fixOf(text, 'unused-state', /Remove/)), []);
      assert.equal(fixOf(text, 'unused-state', /Remove/), react);
    });

    test('close case: a state used only inside a nested loop is used', () => {
      assert.deepEqual(only(fixtureAgent('pass'), 'unused-state'), []);
    });
  });

  describe('unknown-flag', () => {
    test('a misspelt flag is a warning with the known flag as fix', () => {
      const text = replaceOnce(react, ':env-input', ':env-inptu');
      assert.deepEqual(codesAt(text), [`unknown-flag@${lineOf(text, ':env-inptu')}`]);
      const d = check(text)[0];
      assert.equal(d.severity, 'warning');
      assert.equal(d.fixes?.[0].edits[0].newText, ':env-input');
      assert.deepEqual(check(applyEdits(text, d.fixes![0].edits)), []);
    });

    test('a flag far from any known one has no fix', () => {
      const text = replaceOnce(react, ':env-input', ':frobnicate');
      assert.equal(check(text)[0].fixes, undefined);
    });

    test('close case: the product flags :tool-name and :tool-input are known', () => {
      let text = replaceOnce(react, '(Act (:text "[Action]"))', '(Act (:text "[Action]") (:flags :tool-name))');
      text = replaceOnce(text, '(Act-Inp (:text "[Action Input]"))', '(Act-Inp (:text "[Action Input]") (:flags :tool-input))');
      assert.deepEqual(check(text), []);
      const act = parseAgentFile(text).agents[0].states.find(s => s.name === 'Act')!;
      assert.deepEqual(
        act.flags.map(f => f.name),
        ['tool-name'],
      );
    });
  });

  test('diagnostics of two agents in one file are each at their own lines', () => {
    const second = fixtureAgent('direct').replace('(next Ques Ans)', '(next Ques Answer)');
    const text = `${fixtureAgent('cot')}\n${second}`;
    const ansLine = lineOf(text, '(define direct-agent') + 3;
    assert.match(text.split('\n')[ansLine - 1], /\(Ans /);
    assert.deepEqual(codesAt(text), [`unused-state@${ansLine}`, `unknown-state@${lineOf(text, 'Ques Answer')}`]);
  });
});
