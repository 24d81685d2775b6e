// Answers as each kind of program states them: a MultiTool-CoT run's answer is read the way its prompt's examples
// state it (`So the answer is N.`, or the prompt's own words), not the whole last line; ART's `Ans:` and an agent's
// final state; and an evaluation's result says when a finished run stated no answer that could be read.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileAgent } from '../../../core/agent/compile';
import { parseAgentFile } from '../../../core/agent/parse';
import type { Runner } from '../../../core/engine/runner';
import { NO_ANSWER, runEval, scoreAnswer, type EvalResult } from '../../../core/evaluation/eval';
import { fillCotPrompt } from '../../../core/prompt/cotPrompt';
import { AgentProtocol } from '../../../core/protocols/agentProtocol';
import { ArtProtocol } from '../../../core/protocols/artProtocol';
import { answerMarkerOf, CONVENTIONAL_ANSWER_MARKER, MultiToolProtocol, statedAnswer } from '../../../core/protocols/multitoolProtocol';

const NO_TOOLS = { get: () => undefined };
const ROOT = join(__dirname, '../../..');

describe('MultiTool-CoT answers', () => {
  const chain =
    'The library buys 6 * 45 <<Calculator>> 270 books. After giving 38 books away, it keeps 270 - 38 <<Calculator>> 232 books. So the answer is 232.';

  test("the shipped prompt's examples name the marker; the answer is what follows it, so exact match can hold", () => {
    const cot = fillCotPrompt(readFileSync(join(ROOT, 'examples/word-problems.cot.txt'), 'utf8'), 'Q?');
    assert.equal(cot.spec.answerMarker, 'So the answer is');
    const p = new MultiToolProtocol(cot.spec, NO_TOOLS);
    assert.equal(p.answer(` ${chain}`), '232');
    assert.deepEqual(scoreAnswer(p.answer(` ${chain}`), '232'), { exact: true, substring: true });
    // The whole last line used to be the answer: substring match credited any number in the chain.
    assert.deepEqual(scoreAnswer(p.answer(` ${chain}`), '270'), { exact: false, substring: false });
    assert.equal(p.traceConfig.answerMarker, 'So the answer is');
  });

  test('a prompt that states its answers in its own words is read in those words; the convention is the fallback', () => {
    const prompt = [
      'Solve it.',
      '',
      'Question: 2 + 2?',
      'Reasoning: 2 + 2 <<Calculator>> 4. Final answer: 4.',
      '',
      'Question: 3 * 5?',
      'Reasoning: First 3 * 5 <<Calculator>> 15.',
      'Final answer: 15',
      '',
      'Question: %s',
      'Reasoning:',
    ].join('\n');
    const cot = fillCotPrompt(prompt, '7 - 2?');
    assert.equal(cot.spec.answerMarker, 'Final answer');
    const p = new MultiToolProtocol(cot.spec, NO_TOOLS);
    assert.equal(p.answer(' 7 - 2 <<Calculator>> 5.\nFinal answer: 5'), '5');
    assert.equal(p.answer(' 7 - 2 <<Calculator>> 5. So the answer is 5.'), '5', 'the convention when the own words are missing');
    assert.equal(p.answer(' 7 - 2 <<Calculator>> 5.'), null, 'no answer stated: none read');
  });

  test('the marker: the common start of the examples’ last sentences, else the convention', () => {
    assert.equal(answerMarkerOf(['A. So the answer is 53.', 'B. So the answer is 89.']), 'So the answer is');
    assert.equal(answerMarkerOf(['Thus the answer is 1.', 'So the answer is 2.']), CONVENTIONAL_ANSWER_MARKER);
    assert.equal(answerMarkerOf(['So the answer is 53.']), CONVENTIONAL_ANSWER_MARKER, 'one example cannot tell');
    assert.equal(answerMarkerOf(['The total is 5.', 'the total is 6.']), 'The total is');
    assert.equal(answerMarkerOf(['A 5.', 'A 6.']), CONVENTIONAL_ANSWER_MARKER, 'too short to be a marker');
    assert.equal(answerMarkerOf(['5.', '6.']), CONVENTIONAL_ANSWER_MARKER, 'nothing in common');
  });

  test('statedAnswer: the last statement wins, a decimal point is not a full stop, case folded', () => {
    assert.equal(statedAnswer('So the answer is 3. Wait, no: the answer is 3.5.'), '3.5');
    assert.equal(statedAnswer('THE ANSWER IS: Paris\nmore text'), 'Paris');
    assert.equal(statedAnswer('the answer is'), null);
    assert.equal(statedAnswer('nothing here'), null);
  });
});

describe("ART's Ans: and an agent's final state", () => {
  test('ART: the Ans: line; none before it', () => {
    const p = new ArtProtocol('Input: x\nQ1:', 'Input: x\nQ1:', NO_TOOLS);
    assert.equal(p.answer(' [EOQ]\nAns: 42'), '42');
    assert.equal(p.answer(' [calculator] 6 * 7\n#1: 42\nQ2: [EOQ]\n'), null);
  });

  test('agent: the final state’s text; none before the agent reaches it', () => {
    const react = compileAgent(parseAgentFile(readFileSync(join(ROOT, 'examples/agents/react.agent'), 'utf8')).agents[0]);
    const p = new AgentProtocol({ agent: react, question: 'Who?' }, NO_TOOLS);
    const upToFinal = ' Who?\n[Final Thought] It is Nixon.\n';
    assert.equal(p.answer(upToFinal), null);
    assert.equal(p.answer(`${upToFinal}[Answer] Richard Nixon\n`), 'Richard Nixon');
  });
});

describe('an evaluation result with no answer read', () => {
  test('says so in its error; the summary counts it as "no answer"', async () => {
    const results: EvalResult[] = [];
    const runner = {
      run: async () => ({ reason: 'finished', answer: null, snapshot: { calls: [], usage: { promptTokens: 1, completionTokens: 1 }, requests: 1 } }),
      stop: () => {},
      snapshot: () => ({}),
    } as unknown as Runner;
    await runEval({
      examples: [{ id: 'a', input: 'x', target: '1', line: 1 }],
      makeRunner: () => runner,
      concurrency: 1,
      onResult: r => results.push(r),
    });
    assert.deepEqual([results[0].end, results[0].answer, results[0].error], ['finished', null, NO_ANSWER]);
    assert.match(NO_ANSWER, /^no answer could be read: /);
  });
});
