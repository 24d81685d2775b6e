import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cleanCode, createLlmTools } from '../../../core/tools/codegen';
import type { Tool } from '../../../core/tools/types';
import { answeringModel, failingModel, hangingModel } from '../../support/fakeModels';
import { PYTHON, ctx } from './helpers';

const tools = new Map(createLlmTools({ pythonPath: PYTHON }).map(t => [t.info.name, t] as [string, Tool]));
const tool = (name: string) => tools.get(name)!;

describe('LLM-backed tools', () => {
  test('code generate: its own prompt holds only the instruction and the previous answer', async () => {
    const model = answeringModel(() => '```python\nwords = "Savita Saeed".split()\nans = [w[2] for w in words]\nprint(ans)\n```');
    const r = await tool('code generate').run(
      {
        instruction: 'What is the third letter of words in the list in #1?',
        previousAnswer: '["Savita", "Saeed"]',
        answers: new Map([[1, '["Savita", "Saeed"]']]),
      },
      ctx({ model }),
    );
    assert.ok(r.ok, JSON.stringify(r));
    assert.equal(r.output, 'words = "Savita Saeed".split()\nans = [w[2] for w in words]\nprint(ans)');
    const prompt = model.requests[0].prompt;
    assert.ok(prompt.endsWith('# What is the third letter of words in the list in the input?\nInput:\n["Savita", "Saeed"]\nPython code:\n'), prompt);
    assert.doesNotMatch(prompt, /Q\d:|#\d:|Ans:|Description:/, 'no part of the program leaks into the prompt');
    assert.deepEqual(model.requests[0].stop, ['\n----']);
    assert.equal(r.details?.prompt, prompt);
  });

  test('generate python code uses the task input as the input of step 1 (answers #0)', async () => {
    const model = answeringModel(() => 'ans = 16 - 3 - 4\nprint(ans)');
    const r = await tool('generate python code').run(
      { instruction: 'Write down the arithmetic as python code', answers: new Map([[0, "Janet's ducks lay 16 eggs per day."]]) },
      ctx({ model }),
    );
    assert.ok(r.ok);
    assert.match(
      model.requests[0].prompt,
      /# Write down the arithmetic as python code\nInput:\nJanet's ducks lay 16 eggs per day\.\nPython code:\n$/,
    );
  });

  test('code edit reads the code on the lines after the instruction', async () => {
    // An endpoint that ignores the stop sequence: the tool cuts at the next example itself.
    const model = answeringModel(() => 'x = set([1, 1, 2, 3])\nprint(x)\n----\n# another example the model started', { ignoresStops: true });
    const r = await tool('code edit').run({ instruction: 'Edit the following code to print the value of x\nx = set([1, 1, 2, 3])' }, ctx({ model }));
    assert.ok(r.ok);
    assert.equal(r.output, 'x = set([1, 1, 2, 3])\nprint(x)');
    assert.match(model.requests[0].prompt, /# Edit the following code to print the value of x\nInput:\nx = set\(\[1, 1, 2, 3\]\)\nPython code:\n$/);
  });

  test('string index runs the generated code and answers with ans', async () => {
    const model = answeringModel(() => 'words = ["Savita", "Saeed", "Ramos", "Sato", "Yadav"]\nans = [w[2] for w in words]\nprint(ans)');
    const r = await tool('string index').run(
      { instruction: 'What is the third letter of words in the list in #1?', previousAnswer: '["Savita", "Saeed", "Ramos", "Sato", "Yadav"]' },
      ctx({ model }),
    );
    assert.ok(r.ok, JSON.stringify(r));
    assert.equal(r.output, "['v', 'e', 'm', 't', 'd']");
    assert.match(String(r.details?.code), /w\[2\]/);
  });

  test('string permutation lists the permutations', async () => {
    const model = answeringModel(() => 'from itertools import permutations\nans = ["".join(p) for p in permutations("abc")]');
    const r = await tool('string permutation').run({ instruction: 'What are the possible permutations of "abc"?' }, ctx({ model }));
    assert.ok(r.ok);
    assert.deepEqual(JSON.parse(r.output.replace(/'/g, '"')), ['abc', 'acb', 'bac', 'bca', 'cab', 'cba']);
  });

  test("generated code that fails is an error with the traceback's last line", async () => {
    const model = answeringModel(() => 'ans = undefined_name[0]');
    const r = await tool('string edit').run({ instruction: 'Reverse it', previousAnswer: 'abc' }, ctx({ model }));
    assert.equal(r.ok, false);
    assert.equal(!r.ok ? r.error : '', "[string edit] the generated code raised NameError: name 'undefined_name' is not defined");
  });

  test('without a model: a clear error; a failing model: its message', async () => {
    for (const name of ['code generate', 'generate python code', 'code edit', 'string edit', 'string index', 'string permutation']) {
      const r = await tool(name).run({ instruction: 'do it', previousAnswer: 'x = 1' }, ctx());
      assert.equal(r.ok, false);
      assert.match(!r.ok ? r.error : '', new RegExp(`^no model configured for \\[${name}\\]`));
    }
    const r = await tool('code generate').run({ instruction: 'do it' }, ctx({ model: failingModel('429 rate limited') }));
    assert.equal(!r.ok ? r.error : '', '[code generate] the model request failed: 429 rate limited');
    const empty = await tool('code generate').run({ instruction: 'do it' }, ctx({ model: answeringModel(() => '   ') }));
    assert.equal(!empty.ok ? empty.error : '', '[code generate] the model returned no code');
  });

  test('a model that never answers is stopped by the timeout', async () => {
    const r = await tool('code generate').run({ instruction: 'do it' }, ctx({ model: hangingModel(), timeoutMs: 200 }));
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.timedOut, true);
    assert.equal(!r.ok ? r.error : '', '[code generate] timed out after 200 ms');
  });

  test('cleanCode strips fences, an echoed "Python code:" and a following example', () => {
    assert.equal(cleanCode('Python code:\nx = 1\n----\n# next'), 'x = 1');
    assert.equal(cleanCode('Sure!\n```python\nprint(1)\n```\nThis prints 1.'), 'print(1)');
  });
});
