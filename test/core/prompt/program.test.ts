// The pieces around a run of an ART program: reading a half-written program, building the prompt, selecting
// demonstrations, and saving a finished run as a demonstration.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseArt } from '../../../core/art/parse';
import { scanProgram } from '../../../core/protocols/artScan';
import { ArtProtocol } from '../../../core/protocols/artProtocol';
import { appendDemonstrationEdit, demonstrationText } from '../../../core/prompt/demonstration';
import { buildArtPrompt, taskHeader, taskOf } from '../../../core/prompt/prompt';
import { selectDemonstrations } from '../../../core/prompt/selection';
import { fixturePath, fakeTool } from '../../support/runs';

const tools = {
  get: (n: string) =>
    ['code execute', 'generate python code'].includes(n.toLowerCase()) ? fakeTool(n, () => ({ ok: true, output: '' })) : undefined,
};

describe('scanProgram: a program while it is being written', () => {
  test('a query is complete once its answer line starts, even as a bare `#`', () => {
    assert.equal(scanProgram(' [code execute] run it').steps[0].answerBreak, null);
    assert.equal(scanProgram(' [code execute] run it\n').steps[0].answerBreak, null);
    const s = scanProgram(' [code execute] run it\n#');
    assert.equal(s.steps[0].answerBreak, 22);
    assert.equal(s.steps[0].name, 'code execute');
    assert.equal(s.steps[0].instruction, 'run it');
    assert.deepEqual(s.steps[0].instructionSpan, { start: 16, end: 22 });
  });

  test('multi-line instructions and answers, python comments inside answers, Ans and the end of the program', () => {
    const text = ' [generate python code] write code\nthat adds\n#1:\n# add them\nx = 1 + 1\nQ2: [EOQ]\nAns: 2\n----\nDescription: next';
    const s = scanProgram(text);
    assert.equal(s.steps[0].instruction, 'write code\nthat adds');
    assert.equal(s.steps[0].answer, '# add them\nx = 1 + 1');
    assert.equal(s.steps[1].isEoq, true);
    assert.equal(s.ans?.text, '2');
    assert.equal(s.endAt, text.indexOf('\n----'));
  });

  test('the ART protocol reports tool calls and steps answered by the model', () => {
    const p = new ArtProtocol('prompt Input: 2+2\nQ1:', 'Input: 2+2\nQ1:', tools);
    const written = ' [think] add\n#1: four\nQ2: [code execute] Execute #1\n#2';
    const ds = p.detect(written);
    assert.deepEqual(
      ds.map(d => (d.type === 'boundary' ? [d.label, !!d.call, d.cut] : [d.type])),
      [
        ['Q1', false, 12],
        ['Q2', true, written.lastIndexOf('\n')],
      ],
    );
    const call = ds[1].type === 'boundary' ? ds[1].call! : null;
    assert.equal(call?.input, 'Execute #1');
    assert.equal(call?.previousAnswer, 'four');
    assert.deepEqual(
      [...call!.answers!],
      [
        [0, '2+2'],
        [1, 'four'],
      ],
    );
    assert.equal(p.appendOutput('', call!, '4'), '\n#2: 4\n');
    assert.equal(p.appendOutput('', call!, 'a\nb'), '\n#2:\na\nb\n');
    assert.equal(p.appendOutput('', call!, null), '\n#2:');
  });
});

describe('prompt building and task selection', () => {
  const lib = parseArt(readFileSync(fixturePath('programs/arithmetic.art'), 'utf8'));

  test('the prompt is the preamble, the demonstrations and the new task filled into the template', () => {
    const task = { taskName: 'Toy', description: 'Add numbers.', input: 'What is 2 + 3?' };
    const demos = selectDemonstrations([lib], task);
    assert.deepEqual(
      demos.map(d => d.index),
      [0, 1],
      'the template is not a demonstration',
    );
    const { prompt, header } = buildArtPrompt(lib, task, demos);
    assert.equal(header, 'Description: (Toy) Add numbers.\nInput: What is 2 + 3?\nQ1:');
    assert.ok(prompt.startsWith('In these examples, you are given a task description'));
    assert.ok(prompt.endsWith(`Ans: 18\n----\n${header}`));
    assert.equal(prompt.split('\n----\n').length, 3);
  });

  test('running a program of the library leaves it out of the demonstrations', () => {
    const task = taskOf(lib, 1);
    assert.equal(task.taskName, 'Elementary Math');
    assert.match(task.input, /^Omar's hens/);
    const demos = selectDemonstrations([lib], task, { exclude: [1] });
    assert.deepEqual(
      demos.map(d => d.index),
      [0],
    );
  });

  test('a library without a template gets plain Description/Input lines; a typo in a template is kept', () => {
    const plain = parseArt('Input: a\nQ1: [x] y\n#1: z\nQ2: [EOQ]\nAns: z\n');
    assert.equal(taskHeader(plain, { input: 'b' }), 'Input: b\nQ1:');
    const typo = parseArt('Input: a\nQ1: [x] y\n#1: z\nQ2: [EOQ]\nAns: z\n----\nDescripton: %s\nInput: %s\nQ1:');
    assert.equal(taskHeader(typo, { description: 'd', input: 'b' }), 'Descripton: d\nInput: b\nQ1:');
  });

  test('lexical similarity picks the closest programs across libraries', () => {
    const str = parseArt(readFileSync(fixturePath('programs/string-operations.art'), 'utf8'));
    const cot = parseArt(readFileSync(fixturePath('programs/cot.art'), 'utf8'));
    const task = {
      description: 'Take the letters at position 2 of the words in a list and concatenate them',
      input: 'Take the letters at position 2 of the words in "Ana Bo Cid" and concatenate them using a space.',
    };
    const picked = selectDemonstrations([cot, str, lib], task, { strategy: 'similar', k: 1 });
    assert.equal(picked.length, 1);
    assert.equal(picked[0].program.description?.taskName, 'Kth letter concatenation');
    const sports = selectDemonstrations(
      [cot, str, lib],
      { input: 'Is the following sentence plausible? "Lionel Messi scored a touchdown."' },
      { strategy: 'similar', k: 1 },
    );
    assert.equal(sports[0].program.description?.taskName, 'Sports Understanding');
  });
});

describe('save as demonstration', () => {
  const run = {
    kind: 'art' as const,
    text: 'Descripton: (Toy) Add numbers.\nInput: What is 2 + 3?\nQ1: [code execute] Execute 2 + 3\n#1: 5\nQ2: [EOQ]\nAns: 5',
  };

  test('a finished run becomes a program with canonical header lines', () => {
    assert.equal(
      demonstrationText({ ...run, text: run.text.replace('Descripton', 'Description') }),
      'Description: (Toy) Add numbers.\nInput: What is 2 + 3?\nQ1: [code execute] Execute 2 + 3\n#1: 5\nQ2: [EOQ]\nAns: 5',
    );
  });

  test('an unfinished run cannot be saved', () => {
    assert.throws(() => demonstrationText({ kind: 'art', text: 'Input: x\nQ1: [a] b\n#1: c' }), /did not reach `Ans:`/);
    assert.throws(() => demonstrationText({ kind: 'agent', text: '[Question] x' }), /only ART runs/);
  });

  test('the edit inserts before the template, or appends with a separator', () => {
    const libText = readFileSync(fixturePath('programs/arithmetic.art'), 'utf8');
    const prog = 'Input: What is 2 + 3?\nQ1: [code execute] Execute 2 + 3\n#1: 5\nQ2: [EOQ]\nAns: 5';
    const edit = appendDemonstrationEdit(libText, prog);
    const after = libText.slice(0, edit.span.start) + edit.newText + libText.slice(edit.span.end);
    const doc = parseArt(after);
    assert.equal(doc.programs.length, 4);
    assert.equal(doc.programs[2].input?.text, 'What is 2 + 3?');
    assert.equal(doc.programs[3].template, true, 'the template stays last');
    const noTemplate = 'Input: a\nQ1: [x] y\n#1: z\nQ2: [EOQ]\nAns: z\n----\nInput: b\nQ1: [x] y\n#1: z\nQ2: [EOQ]\nAns: z';
    const e2 = appendDemonstrationEdit(noTemplate, prog);
    assert.equal(e2.span.start, noTemplate.length);
    assert.equal(e2.newText, `\n----\n${prog}\n`);
    assert.equal(parseArt(noTemplate + e2.newText).programs.length, 3);
  });
});
