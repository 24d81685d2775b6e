import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { formulaToString, parseAgentFile, readSExprs, stateRefs } from '../../../core/agent';
import { fixtureAgent, fixtureAgentFiles } from './helpers';

describe('reading s-expressions', () => {
  test('atoms, keywords, strings with escapes, comments and spans', () => {
    const text = '; head\n(a :kw "x\\"y\\n" (b)) ; tail';
    const f = readSExprs(text);
    assert.deepEqual(f.problems, []);
    assert.deepEqual(
      f.comments.map(c => c.text),
      [' head', ' tail'],
    );
    const list = f.forms[0];
    assert.equal(list.kind, 'list');
    if (list.kind !== 'list') return;
    assert.deepEqual(
      list.items.map(i => i.kind),
      ['atom', 'keyword', 'string', 'list'],
    );
    const s = list.items[2];
    assert.equal(s.kind === 'string' && s.value, 'x"y\n');
    assert.equal(text.slice(s.span.start, s.span.end), '"x\\"y\\n"');
    const kw = list.items[1];
    assert.equal(kw.kind === 'keyword' && kw.name, 'kw');
    assert.equal(text.slice(list.span.start, list.span.end), '(a :kw "x\\"y\\n" (b))');
  });

  test('several problems in one file are all reported, and reading goes on', () => {
    const text = ['(a "open)', '(b [x] c)', ')', '(d "ok" \\q)', '(e :)'].join('\n');
    const f = readSExprs(text);
    const found = f.problems.map(p => text.slice(p.span.start, p.span.end));
    assert.deepEqual(found, ['"open', '[x]', ')', '\\q', ':']);
    // Every form after a problem is still read.
    assert.deepEqual(
      f.forms.map(x => (x.kind === 'list' && x.items[0].kind === 'atom' ? x.items[0].name : '?')),
      ['a', 'b', 'd', 'e'],
    );
  });

  test('an unterminated string before closing parentheses leaves them to the list', () => {
    const f = readSExprs('(s (:text "[Thought]))\n(t)');
    assert.equal(f.problems.length, 1);
    assert.match(f.problems[0].message, /unterminated string/);
    assert.deepEqual(
      f.forms.map(x => x.kind === 'list' && x.closed),
      [true, true],
    );
  });

  test('a list left open ends where the next (define starts a line', () => {
    const text = '(define a\n  (:states (Q (:text "q"))\n(define b (:states))';
    const f = readSExprs(text);
    assert.equal(f.forms.length, 2);
    assert.equal(f.problems.length, 1);
    const p = f.problems[0];
    assert.equal(p.span.start, text.indexOf('(:states'), 'reported at the innermost open paren');
    assert.match(p.message, /2 '\)' are missing/);
    const fixed = text.slice(0, p.fixes![0].edits[0].span.start) + p.fixes![0].edits[0].newText + text.slice(p.fixes![0].edits[0].span.end);
    assert.deepEqual(readSExprs(fixed).problems, []);
  });

  test('unknown escapes and a stray ) have precise spans', () => {
    const text = '("a\\qb") )';
    const f = readSExprs(text);
    assert.deepEqual(
      f.problems.map(p => text.slice(p.span.start, p.span.end)),
      ['\\q', ')'],
    );
  });
});

describe('parseAgentFile', () => {
  test('react: states, texts, flags and behavior with spans', () => {
    const text = fixtureAgent('react');
    const file = parseAgentFile(text);
    assert.deepEqual(file.problems, []);
    assert.equal(file.agents.length, 1);
    const a = file.agents[0];
    assert.equal(a.name, 'react-agent');
    assert.equal(text.slice(a.nameSpan.start, a.nameSpan.end), 'react-agent');
    assert.deepEqual(
      a.states.map(s => s.name),
      ['Ques', 'Tht', 'Act', 'Act-Inp', 'Obs', 'Final-Tht', 'Ans'],
    );
    const obs = a.states[4];
    assert.equal(obs.text, '[Observation]');
    assert.equal(text.slice(obs.textSpan!.start, obs.textSpan!.end), '"[Observation]"');
    assert.deepEqual(
      obs.flags.map(f => f.name),
      ['env-input'],
    );
    assert.equal(text.slice(obs.flags[0].span.start, obs.flags[0].span.end), ':env-input');
    assert.equal(text.slice(obs.span.start, obs.span.end), '(Obs (:text "[Observation]") (:flags :env-input))');
    assert.equal(formulaToString(a.behavior!), '(next Ques (until (next Tht Act Act-Inp Obs) Final-Tht) Ans)');
    const refs = stateRefs(a.behavior);
    assert.deepEqual(
      refs.map(r => text.slice(r.span.start, r.span.end)),
      refs.map(r => r.name),
    );
    const b = a.behavior!;
    assert.equal(b.kind !== 'state' && text.slice(b.opSpan.start, b.opSpan.end), 'next');
  });

  test('every fixture agent parses without problems', () => {
    for (const { name, text } of fixtureAgentFiles()) {
      const file = parseAgentFile(text);
      assert.deepEqual(file.problems, [], name);
      assert.equal(file.agents.length, 1, name);
      assert.ok(file.agents[0].behavior, name);
    }
  });

  test('several defines per file, and a bad one does not hide the next', () => {
    const text = `${fixtureAgent('cot')}\n(define broken (:states (A (:text "a")) (:behavior (next A))\n${fixtureAgent('direct')}`;
    const file = parseAgentFile(text);
    assert.deepEqual(
      file.agents.map(a => a.name),
      ['cot-agent', 'broken', 'direct-agent'],
    );
    assert.equal(file.agents[2].states.length, 2);
  });

  test('shape problems: top-level junk, nameless define, bad formula operator', () => {
    const text = 'junk\n(define (:states (A (:text "a"))) (:behavior (nxt A)))';
    const file = parseAgentFile(text);
    const at = file.problems.map(p => `${p.code}:${text.slice(p.span.start, p.span.end)}`);
    assert.deepEqual(at, ['syntax:junk', 'syntax:define', 'syntax:nxt']);
    const nxt = file.problems[2];
    assert.equal(nxt.fixes?.[0].edits[0].newText, 'next');
    assert.equal(file.agents[0].name, '');
    assert.equal(file.agents[0].states[0].name, 'A');
  });

  test('never throws on arbitrary text', () => {
    for (const t of ['', '(', ')', '"', ';', '(((', '(define', '(define x (:states (', '\u0000\uFFFF', '(define x (:behavior (until)))']) {
      const file = parseAgentFile(t);
      for (const p of file.problems) assert.ok(p.span.start >= 0 && p.span.end <= t.length && p.span.start <= p.span.end, t);
    }
  });
});
