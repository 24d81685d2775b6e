import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { calculate, createCalculatorTool } from '../../../core/tools/calculator';
import { ctx } from './helpers';

const calc = createCalculatorTool();
async function run(instruction: string) {
  return calc.run({ instruction }, ctx());
}

describe('calculator', () => {
  test('arithmetic, functions, units', async () => {
    assert.deepEqual(await run('2 + 3 * 4'), { ok: true, output: '14', details: { expression: '2 + 3 * 4' } });
    assert.equal(calculate('72 * cos(35 deg)').value, '58.978947188807');
    assert.equal(calculate('5 km to m').value, '5000 m');
    assert.equal(calculate('a = 6; a * 7').value, '42');
  });

  test('reads the text before a MultiTool-CoT trigger', () => {
    assert.deepEqual(calculate('So she sells 16 - 3 - 4 ='), { value: '9', expression: '16 - 3 - 4' });
    assert.equal(calculate('The total is $1,200 × 3').value, '3600');
  });

  test('rejects import/evaluate/parse tricks and function definitions', async () => {
    const attempts: [string, RegExp][] = [
      ['import({x: 1}, {override: true})', /import is disabled/],
      ['evaluate("1+1")', /evaluate is disabled/],
      ['parse("1+1")', /parse is disabled/],
      ['createUnit("foo")', /createUnit is disabled/],
      ['config({number: "BigNumber", precision: 100000})', /config is disabled/],
      ['f(n) = f(n - 1) + f(n - 1); f(60)', /defining functions is not supported/],
      ['zeros(100000, 100000)', /zeros is disabled/],
      ['1:1e9', /range is disabled/],
      ['cos.constructor("return process")()', /./],
    ];
    for (const [expr, reason] of attempts) {
      const r = await run(expr);
      assert.equal(r.ok, false, `${expr} must be rejected`);
      assert.match(!r.ok ? r.error : '', reason, expr);
      assert.match(!r.ok ? r.error : '', /^\[calculator\] cannot evaluate/);
    }
    // A rejected expression leaves no trace: the next evaluation is ordinary.
    assert.equal(calculate('1/3').value, '0.33333333333333');
  });

  test('empty input and nonsense are clear errors', async () => {
    const empty = await calc.run({ instruction: ' ' }, ctx());
    assert.match(!empty.ok ? empty.error : '', /needs an arithmetic expression/);
    const words = await run('hello world');
    assert.equal(words.ok, false);
  });

  test('the previous answer is the expression when the instruction is empty', async () => {
    const r = await calc.run({ instruction: '', previousAnswer: '(6 * 3) / 2' }, ctx());
    assert.ok(r.ok);
    assert.equal(r.output, '9');
  });
});
