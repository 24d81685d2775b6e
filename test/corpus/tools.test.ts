// The corpus suite: the code of the papers' programs runs in `code execute` (the ART prefix, sympy) to the answer
// the paper records.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { createCodeExecuteTool } from '../../core/tools/python';
import { CORPUS, requireCorpus } from '../support/corpus';
import { requireDebianPackage } from '../support/debian';

requireCorpus();

/** The `#k:` answer of step k in the first program of a corpus file. */
function corpusAnswer(file: string, k: number): string {
  const text = readFileSync(join(CORPUS, file), 'utf8');
  const m = new RegExp(`\\n#${k}:[ \\t]*\\n?([\\s\\S]*?)\\nQ${k + 1}:`).exec(text);
  assert.ok(m, `no #${k} in ${file}`);
  return m[1];
}

const codeExecute = createCodeExecuteTool({ pythonPath: '/usr/bin/python3' });
const ctx = () => ({ signal: new AbortController().signal });

describe('code execute on the corpus programs', () => {
  test('Aqua-rat (programs/arithmetic.art #1): solve_it from the ART prefix, ans = 1.0', async () => {
    requireDebianPackage('python3-sympy');
    const r = await codeExecute.run(
      { instruction: 'Execute the python code in #1 and get the value of "ans"', previousAnswer: corpusAnswer('programs/arithmetic.art', 1) },
      ctx(),
    );
    assert.ok(r.ok, JSON.stringify(r));
    assert.equal(r.output, '1.0');
  });

  test('physics (programs/human-feedback.art #2): the value of "Fx"', async () => {
    const r = await codeExecute.run(
      { instruction: 'Execute the snippet and get the value of "Fx"', previousAnswer: corpusAnswer('programs/human-feedback.art', 2) },
      ctx(),
    );
    assert.ok(r.ok, JSON.stringify(r));
    assert.equal(r.details?.variable, 'Fx');
    assert.ok(Math.abs(Number(r.output) - 58.9789) < 1e-4, r.output);
  });
});
