import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCodeExecuteTool, createExecuteTool, requestedVariable, stripFences } from '../../../core/tools/python';
import { requireDebianPackage } from '../../support/debian';
import { readFixture } from '../../support/fixtures';
import { PYTHON, ctx } from './helpers';

/** The `#k:` answer of step k in the first program of a fixture file. */
function fixtureAnswer(file: string, k: number): string {
  const text = readFixture(file);
  const m = new RegExp(`\\n#${k}:[ \\t]*\\n?([\\s\\S]*?)\\nQ${k + 1}:`).exec(text);
  assert.ok(m, `no #${k} in ${file}`);
  return m[1];
}

const codeExecute = createCodeExecuteTool({ pythonPath: PYTHON });
const execute = createExecuteTool({ pythonPath: PYTHON });

describe('code execute', () => {
  test('Aqua-rat (arithmetic.art #1): solve_it from the ART prefix, ans = 1.0', async () => {
    requireDebianPackage('python3-sympy');
    const code = fixtureAnswer('programs/arithmetic.art', 1);
    assert.match(code, /solve_it\(/);
    const r = await codeExecute.run({ instruction: 'Execute the python code in #1 and get the value of "ans"', previousAnswer: code }, ctx());
    assert.ok(r.ok, JSON.stringify(r));
    assert.equal(r.output, '1.0');
    assert.equal(r.details?.variable, 'ans');
  });

  test('physics (physics.art #2): the value of "Fx", as the program records it in #3', async () => {
    const code = fixtureAnswer('programs/physics.art', 2);
    const r = await codeExecute.run({ instruction: 'Execute the snippet and get the value of "Fx"', previousAnswer: code }, ctx());
    assert.ok(r.ok, JSON.stringify(r));
    assert.equal(r.details?.variable, 'Fx');
    assert.equal(r.output, /\n#3: (.*)/.exec(readFixture('programs/physics.art'))![1]);
  });

  test('#k in the instruction picks that answer', async () => {
    const answers = new Map([
      [1, 'ans = 6 * 7'],
      [2, 'unrelated'],
    ]);
    const r = await codeExecute.run({ instruction: 'Execute the python code in #1', previousAnswer: 'unrelated', answers }, ctx());
    assert.ok(r.ok);
    assert.equal(r.output, '42');
  });

  test('without ans the printed output is the answer; lists come back as Python shows them', async () => {
    const printed = await codeExecute.run({ instruction: 'Execute', previousAnswer: '```python\nprint("v e m t d")\n```' }, ctx());
    assert.ok(printed.ok);
    assert.equal(printed.output, 'v e m t d');
    const list = await codeExecute.run({ instruction: 'Execute', previousAnswer: 'ans = [w[2] for w in ["Savita", "Saeed", "Ramos"]]' }, ctx());
    assert.ok(list.ok);
    assert.equal(list.output, "['v', 'e', 'm']");
  });

  test('results read as the ART reference shows them: str(), one-element lists unwrapped, numbers rounded', async () => {
    const run = async (code: string) => {
      const r = await codeExecute.run({ instruction: 'Execute', previousAnswer: code }, ctx());
      assert.ok(r.ok, JSON.stringify(r));
      return r.output;
    };
    assert.equal(await run('ans = ("a", 1)'), "('a', 1)");
    assert.equal(await run('ans = ["only"]'), 'only');
    assert.equal(await run('ans = [7]'), '7');
    assert.equal(await run('ans = {"k": [1, 2]}'), "{'k': [1, 2]}");
    assert.equal(await run('ans = 2 / 4'), '0.5');
    requireDebianPackage('python3-sympy');
    // A sympy number becomes a Python number; a container keeps sympy's own str() of its items.
    assert.equal(await run('x = Symbol("x")\nans = solve_it(2 * x - 8.0, x)[x]'), '4.0');
    assert.equal(await run('x = Symbol("x")\nans = solve_it(2 * x - 8.0, x)'), '{x: 4.00000000000000}');
    assert.equal(await run('ans = Rational(6, 3)'), '2');
    requireDebianPackage('python3-numpy');
    assert.equal(await run('import numpy as np\nans = np.float64(7.385)'), '7.385');
    assert.equal(await run('import numpy as np\nans = np.array([1, 2])'), '[1, 2]');
  });

  test('an exception is an error naming it; no code is an error', async () => {
    const r = await codeExecute.run({ instruction: 'Execute', previousAnswer: 'ans = 1 / 0' }, ctx());
    assert.equal(r.ok, false);
    assert.match(!r.ok ? r.error : '', /^\[code execute\] the code raised ZeroDivisionError: division by zero$/);
    const none = await codeExecute.run({ instruction: 'Execute the code' }, ctx());
    assert.match(!none.ok ? none.error : '', /found no code/);
    const silent = await codeExecute.run({ instruction: 'Execute', previousAnswer: 'x = 1' }, ctx());
    assert.match(!silent.ok ? silent.error : '', /defined no "ans" and printed nothing/);
  });

  test('a missing interpreter, and one without sympy, are named with the fix', async () => {
    const r = await createCodeExecuteTool({ pythonPath: '/nonexistent/python3' }).run({ instruction: 'x', previousAnswer: 'ans = 1' }, ctx());
    assert.equal(r.ok, false);
    assert.match(!r.ok ? r.error : '', /cannot start \/nonexistent\/python3/);
    // The same Debian Python without its site packages (-S) has no sympy.
    const dir = await mkdtemp(join(tmpdir(), 'art-nosympy-'));
    try {
      const bare = join(dir, 'python-without-sympy');
      await writeFile(bare, `#!/bin/sh\nexec ${PYTHON} -S "$@"\n`, { mode: 0o755 });
      const tool = createCodeExecuteTool({ pythonPath: bare });
      const noSympy = await tool.run({ instruction: 'x', previousAnswer: 'x = Symbol("x")\nans = solve_it(x - 2, x)[x]' }, ctx());
      assert.equal(noSympy.ok, false);
      assert.match(
        !noSympy.ok ? noSympy.error : '',
        /cannot import what the ART prefix needs \(No module named 'sympy'\): install Debian's python3-sympy/,
      );
      const plain = await tool.run({ instruction: 'x', previousAnswer: 'ans = math.floor(7 / 2)' }, ctx());
      assert.ok(plain.ok, 'code without sympy names runs with math only');
      assert.equal(plain.output, '3');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('execute', () => {
  test("auto debugging (as in the ART library's code.art): the traceback is the answer", async () => {
    const r = await execute.run({ instruction: 'Execute the following python code snippet.\nif x < 5:\n    pass' }, ctx());
    assert.ok(r.ok);
    assert.equal(r.output, 'Traceback (most recent call last):\n  File "<stdin>", line 1, in <module>\nNameError: name \'x\' is not defined');
  });

  test('printed output; code in the instruction wins over the previous answer', async () => {
    const r = await execute.run(
      { instruction: 'Execute the following python code snippet.\nx = set([1, 1, 2, 3])\nprint(x)', previousAnswer: 'print("no")' },
      ctx(),
    );
    assert.ok(r.ok);
    assert.equal(r.output, '{1, 2, 3}');
    const prev = await execute.run({ instruction: 'Execute the code', previousAnswer: 'print(sorted({3, 1}))' }, ctx());
    assert.ok(prev.ok);
    assert.equal(prev.output, '[1, 3]');
  });

  test('helpers: fenced code and the requested variable', () => {
    assert.equal(stripFences('Here:\n```py\nx = 1\n```\nDone'), 'x = 1');
    assert.equal(requestedVariable('Execute the snippet and get the value of "Fx"'), 'Fx');
    assert.equal(requestedVariable('Execute the python code in #1'), null);
  });
});
