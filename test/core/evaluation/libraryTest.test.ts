// Programs as tests (core/evaluation/libraryTest.ts) on test/fixtures/programs/library-test.art: a program that
// reproduces (with `%%` read as `%` and a model-backed step answered from its recording), one whose recorded code
// output is wrong, one that stops without [EOQ]. Also the pieces it rests on: libraryAsRun and recordedAnswer.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseArt } from '../../../core/art/parse';
import { ReplayModel } from '../../../core/replay/programReplay';
import { foldWhitespace } from '../../../core/common/text';
import { describeFailure, testLibrary, type ProgramTest } from '../../../core/evaluation/libraryTest';
import { buildArtPrompt, libraryAsRun, taskOf } from '../../../core/prompt/prompt';
import { createToolRegistry, type ToolRegistry } from '../../../core/tools/registry';
import { fixturePath } from '../../support/runs';

const FILE = fixturePath('programs/library-test.art');
const library = () => parseArt(readFileSync(FILE, 'utf8'));

describe('libraryTest', () => {
  let tools: ToolRegistry;
  let results: ProgramTest[];
  before(async () => {
    tools = await createToolRegistry({ workspaceRoot: fixturePath('programs'), trusted: true });
    results = await testLibrary(library(), { tools });
  });
  after(() => tools.dispose());

  test('every demonstration is a test; the template is not', () => {
    assert.deepEqual(
      results.map(r => [r.index, r.passed]),
      [
        [0, true],
        [1, false],
        [2, false],
      ],
    );
    assert.equal(results[0].line, 2);
  });

  test('a reproduced program: %% runs as %, the model-backed step answers from its recording, not compared', () => {
    const [gen, exec, index] = results[0].steps;
    assert.equal(gen.got, 'ans = 17 % 5');
    assert.equal(gen.compared, false);
    assert.deepEqual([exec.tool, exec.got, exec.compared, exec.ok], ['code execute', '2', true, true]);
    assert.deepEqual([index.tool, index.got, index.compared], ['string index', 'a', false]);
    assert.deepEqual(results[0].answer, { recorded: '2 and a', got: '2 and a', ok: true });
  });

  test('a wrong recording fails with the diff: step, recorded, got (a one-element list unwrapped)', () => {
    const r = results[1];
    const bad = r.steps.filter(s => !s.ok);
    assert.deepEqual(
      bad.map(s => [s.step, s.recorded, s.got, s.line]),
      [[2, '5', '4', 19]],
    );
    assert.deepEqual(describeFailure(r), ['  #2 [code execute] (line 20)', '    recorded: 5', '    got:      4']);
  });

  test('a recording without [EOQ] says where it ends', () => {
    assert.match(results[2].error ?? '', /^the recording ends at #1: with no \[EOQ\] and no Ans:/);
  });

  test("with compare 'all' and no tool model, model-backed steps still answer from the recording, marked so", async () => {
    const all = await testLibrary(library(), { tools, compare: 'all' });
    assert.equal(all[0].passed, true);
    assert.deepEqual(
      all[0].steps.map(s => s.compared),
      [false, true, false],
    );
  });

  test('foldWhitespace folds only white space', () => {
    assert.equal(foldWhitespace('  (0, 0)\n\t x '), '(0, 0) x');
    assert.notEqual(foldWhitespace('(0,0)'), foldWhitespace('(0, 0)'));
  });
});

describe('libraryAsRun: a library with a %s template is a Python format string', () => {
  test('%% reads % in the prompt and the task; without a template the text is taken literally', () => {
    const doc = libraryAsRun(library());
    const { prompt, header } = buildArtPrompt(doc, taskOf(doc, 0), [{ doc, index: 0, program: doc.programs[0] }]);
    assert.match(header, /Input: What is 17 % 5, and/);
    assert.match(prompt, /\nans = 17 % 5\n/);
    assert.doesNotMatch(prompt, /%%/);
    const literal = parseArt('Input: 10%% of 5\nQ1: [EOQ]\nAns: 0.5');
    assert.equal(libraryAsRun(literal), literal);
    assert.equal(literal.programs[0].input?.text, '10%% of 5');
  });
});

describe('ReplayModel.recordedAnswer', () => {
  test('answers a tool step from the recording, in order, until the run departs', () => {
    const doc = libraryAsRun(library());
    const model = ReplayModel.fromArtProgram(doc, 0, name => name !== 'EOQ');
    assert.equal(model.recordedAnswer('What is the letter at index 1 of  "cat"?'), 'a');
    assert.equal(model.recordedAnswer('Write code for 17 % 5.'), 'ans = 17 % 5');
    assert.equal(model.recordedAnswer('not a step of the program'), undefined);
    model.departure.depart('#2 was set by hand');
    assert.equal(model.recordedAnswer('Write code for 17 % 5.'), undefined);
  });
});
