// The shape of the syntax tree: preamble, separators, multi-line parts, template, fullwidth colons, CRLF, spans.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ArtIncremental, ownString, parseArt } from '../../../core/art';
import { moveProgram } from '../../../core/art/shift';
import { lines } from '../../support/art';

const slice = (text: string, s: { start: number; end: number }) => text.slice(s.start, s.end);

describe('.art parser', () => {
  const text = lines(
    'Some preamble prose.',
    'from sympy import Symbol',
    '',
    'Description: (Aqua-rat) Solve it,',
    'on two lines.',
    'Input: In a flight of 600 km',
    '  choice: A',
    'Q1: [generate python code] write code',
    'using sympy.',
    '#1:',
    'x = 1',
    '    y = 2',
    '',
    'Q2: [code execute] Execute the code in #1',
    '#2: 1.0',
    'Q3: [EOQ]',
    'Ans: A',
    '----',
    'Description: %s',
    'Input: %s',
    'Q1:',
  );
  const doc = parseArt(text);

  test('preamble, programs and separators', () => {
    assert.equal(doc.preamble?.text, 'Some preamble prose.\nfrom sympy import Symbol');
    assert.equal(doc.programs.length, 2);
    assert.equal(doc.separators.length, 1);
    assert.equal(slice(text, doc.separators[0]), '----');
  });

  test('multi-line description, input, instruction and answer, with exact spans', () => {
    const p = doc.programs[0];
    assert.equal(p.description?.taskName, 'Aqua-rat');
    assert.equal(slice(text, p.description!.taskNameSpan!), 'Aqua-rat');
    assert.equal(p.description?.text, 'Solve it,\non two lines.'); // the instruction, after the task name
    assert.equal(p.input?.text, 'In a flight of 600 km\n  choice: A');
    const [s1, s2, s3] = p.steps;
    assert.equal(s1.name, 'generate python code');
    assert.equal(slice(text, s1.nameSpan!), 'generate python code');
    assert.equal(s1.instruction, 'write code\nusing sympy.');
    assert.equal(s1.answer?.text, 'x = 1\n    y = 2');
    assert.equal(slice(text, s1.answer!.numberSpan), '1');
    assert.equal(slice(text, s2.marker), 'Q2:');
    assert.deepEqual(
      p.references.map(r => [r.number, slice(text, r.span)]),
      [[1, '#1']],
    );
    assert.ok(s3.isEoq);
    assert.equal(p.ans?.text, 'A');
  });

  test('the template', () => {
    assert.ok(doc.programs[1].template);
    assert.ok(!doc.programs[0].template);
  });

  test('programs without separators: a new Description or Input starts a program', () => {
    const d = parseArt(
      lines('Input: a', 'Q1: [EOQ]', 'Ans: a', 'Input: b', 'Q1: [EOQ]', 'Ans: b', 'Description: (T) x', 'Input: c', 'Q1: [EOQ]', 'Ans: c'),
    );
    assert.deepEqual(
      d.programs.map(p => p.input?.text),
      ['a', 'b', 'c'],
    );
    assert.equal(d.programs[2].description?.taskName, 'T');
  });

  test('em-dash and three-dash separators', () => {
    const d = parseArt(lines('Input: a', 'Q1: [EOQ]', 'Ans: a', '——', 'Input: b', 'Q1: [EOQ]', 'Ans: b', '---', 'Input: c', 'Q1: [EOQ]', 'Ans: c'));
    assert.equal(d.programs.length, 3);
    assert.equal(d.separators.length, 2);
  });

  test('fullwidth colons and CRLF', () => {
    const t = 'Input： a\r\nQ1： [search] x\r\n#1： y\r\nQ2: [EOQ]\r\nAns： y\r\n';
    const d = parseArt(t);
    const p = d.programs[0];
    assert.equal(p.input?.text, 'a');
    assert.equal(p.steps[0].answer?.text, 'y');
    assert.equal(p.ans?.text, 'y');
    assert.equal(slice(t, p.steps[0].marker), 'Q1：');
  });

  test('step names: any character but ] and line breaks; compared case- and space-insensitively', () => {
    const d = parseArt(lines('Input: a', 'Q1: [  Generate   Python code ] x', '#1: y', 'Q2: [eoq]', 'Ans: y'));
    assert.equal(d.programs[0].steps[0].name, '  Generate   Python code ');
    assert.ok(d.programs[0].steps[1].isEoq);
  });

  test('misspelled Description keys of the reference library are descriptions', () => {
    for (const key of ['Descripton', 'Desciption', 'Descriptio']) {
      const d = parseArt(lines('Input: a', 'Q1: [EOQ]', 'Ans: a', '----', `${key}: %s `, 'Input: %s', 'Q1:'));
      assert.equal(d.programs[1].description?.text, '%s', key);
      assert.ok(d.programs[1].template, key);
    }
    // ...but an ordinary word starting with Desc is text.
    const d = parseArt(lines('Input: a', 'Q1: [search] x', '#1: y', 'Descending: order', 'Q2: [EOQ]', 'Ans: a'));
    assert.equal(d.programs.length, 1);
    assert.equal(d.programs[0].steps[0].answer?.text, 'y\nDescending: order');
  });

  test('answers holding code comments and shebangs are not split', () => {
    const d = parseArt(lines('Input: a', 'Q1: [code generate] x', '#1:', '#!/usr/bin/python', '#open file', 'print(1)', 'Q2: [EOQ]', 'Ans: a'));
    assert.equal(d.programs[0].steps[0].answer?.text, '#!/usr/bin/python\n#open file\nprint(1)');
  });

  test('never throws on odd input', () => {
    for (const t of ['', '\n', '\r', 'Q', 'Q1', 'Q1:', '#', '#1', '[', 'Ans:', '----', '\uFF1A', 'Q99999999999999999999: [x', '\u0000']) {
      parseArt(t);
    }
  });

  test('a span read from a node is a copy: writing to it changes nothing; moving a program moves every offset', () => {
    const d = parseArt(text);
    const step = d.programs[0].steps[0];
    const before = JSON.stringify(d.programs[0]);
    (step.marker as { start: number }).start = 999;
    (step.answer!.textSpan as { end: number }).end = 0;
    assert.equal(JSON.stringify(d.programs[0]), before);
    moveProgram(d.programs[0], 5);
    const moved = parseArt(`${' '.repeat(5)}${text}`).programs[0];
    assert.deepEqual(
      JSON.parse(JSON.stringify(d.programs[0])).steps.map((s: { span: unknown; nameSpan: unknown; answer: { numberSpan: unknown } | null }) => [
        s.span,
        s.nameSpan,
        s.answer?.numberSpan,
      ]),
      JSON.parse(JSON.stringify(moved)).steps.map((s: { span: unknown; nameSpan: unknown; answer: { numberSpan: unknown } | null }) => [
        s.span,
        s.nameSpan,
        s.answer?.numberSpan,
      ]),
    );
  });

  test('JSON shows a node by its values and spans, without the document it reads them from', () => {
    const json = JSON.parse(JSON.stringify(doc.programs[0].steps[1])) as Record<string, unknown>;
    assert.deepEqual(Object.keys(json), [
      'number',
      'numberSpan',
      'marker',
      'name',
      'nameSpan',
      'bracketSpan',
      'unclosedBracket',
      'instruction',
      'instructionSpan',
      'span',
      'isEoq',
      'answer',
    ]);
    assert.equal(json.instruction, 'Execute the code in #1');
    assert.ok(!JSON.stringify(doc.programs[0]).includes('preamble'), 'the source text is not in the JSON');
    assert.ok(!('place' in JSON.parse(JSON.stringify(doc.programs[0]))));
  });

  test('names are strings of their own, shared between programs; values are read from the current text after an edit', () => {
    const two = parseArt(`${text}\n----\nInput: b\nQ1: [generate python code] again\n#1: y\nQ2: [EOQ]\nAns: y\n`);
    assert.equal(two.programs[0].steps[0].name, 'generate python code');
    assert.ok(Object.is(two.programs[0].steps[0].name, two.programs[2].steps[0].name));
    assert.equal(ownString('generate python code'), 'generate python code');
    const inc = new ArtIncremental();
    inc.update(text);
    const after = inc.update(text.replace('In a flight', 'On a flight'));
    assert.equal(after.doc.programs[0].input!.text, 'On a flight of 600 km\n  choice: A');
    assert.equal(after.doc.programs[0].steps[1].instruction, 'Execute the code in #1');
    assert.equal(after.doc.programs[1].input!.text, '%s');
  });
});
