import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { formatAgentText, parseAgentFile } from '../../../core/agent';
import { fixtureAgent, fixtureAgentFiles, meaning, replaceOnce } from './helpers';

const withoutComments = (text: string) => text.replace(/^;.*\n/gm, '');

describe('formatAgentText', () => {
  test('the fixture agents are already in the corpus style', () => {
    for (const { name, text } of fixtureAgentFiles()) assert.equal(formatAgentText(text), text, name);
  });

  test('a spec written on one line comes out in the corpus layout', () => {
    for (const name of ['react', 'reflexion', 'pass', 'rewoo', 'cot']) {
      const original = withoutComments(fixtureAgent(name));
      const oneLine = original.replace(/\s+/g, ' ').trim();
      assert.equal(formatAgentText(oneLine), original, name);
    }
  });

  test('badly indented specs are re-indented, keeping the meaning', () => {
    const messy = fixtureAgent('pass')
      .replace(/\n\s*/g, '\n')
      .replace(/\(next Ques\n/, '(next\nQues ');
    const formatted = formatAgentText(messy)!;
    assert.equal(formatted, fixtureAgent('pass'));
  });

  test('comments stay where they were: own lines, ends of lines, inside forms', () => {
    let text = fixtureAgent('react');
    text = replaceOnce(text, '    (Tht (:text "[Thought]"))', '    ;; the model reasons\n    (Tht   (:text "[Thought]"))   ; inline');
    text = replaceOnce(text, '(until (next Tht Act Act-Inp Obs)', '(until ; loop\n (next Tht Act Act-Inp Obs)');
    text += '\n\n; trailing comment\n';
    const formatted = formatAgentText(text)!;
    assert.ok(formatted.includes('    ;; the model reasons\n    (Tht (:text "[Thought]")) ; inline\n'));
    assert.ok(formatted.includes('(until ; loop\n'));
    assert.ok(formatted.endsWith('Ans)))\n\n; trailing comment\n'));
    assert.deepEqual(
      parseAgentFile(formatted).comments.map(c => c.text),
      parseAgentFile(text).comments.map(c => c.text),
    );
    assert.deepEqual(meaning(formatted), meaning(text));
    assert.equal(formatAgentText(formatted), formatted, 'idempotent');
  });

  test('several agents are separated by one blank line', () => {
    const text = `${fixtureAgent('cot')}${fixtureAgent('direct')}`;
    const formatted = formatAgentText(text)!;
    assert.equal(formatted, `${fixtureAgent('cot')}\n${fixtureAgent('direct')}`);
  });

  test('long states and formulas wrap under their first argument', () => {
    const long = 'x'.repeat(70);
    const text = `(define w (:states (Q (:text "${long}") (:flags :env-input)) (A (:text "a"))) (:behavior (next Q (or (next A A A A A A A A A A A A A A A A A A A A A A A A A A A A A A) Q))))`;
    const formatted = formatAgentText(text)!;
    assert.ok(formatted.includes(`    (Q (:text "${long}")\n       (:flags :env-input))`), formatted);
    for (const line of formatted.split('\n')) assert.ok(line.length <= 80 || line.includes(long), line);
    assert.deepEqual(meaning(formatted), meaning(text));
    assert.equal(formatAgentText(formatted), formatted);
  });

  test('null when the file has syntax errors; CRLF is kept', () => {
    assert.equal(formatAgentText('(define x (:states (A (:text "a))'), null);
    assert.equal(formatAgentText('(define x))'), null);
    const crlf = fixtureAgent('cot').replace(/\n/g, '\r\n');
    assert.equal(formatAgentText(crlf), crlf);
    assert.equal(formatAgentText(''), '');
  });
});
