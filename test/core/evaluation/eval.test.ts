// The evaluation core (core/evaluation/eval.ts), the shared request limiter (core/model/limiter.ts) and the task
// selection strategies that ask the model (core/evaluation/taskSelection.ts), against the scripted server.
import { describe, test } from 'node:test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { parseArt } from '../../../core/art/parse';
import { RequestLimiter } from '../../../core/model/limiter';
import { OpenAIModel } from '../../../core/model/openai';
import { ContinuationScript } from '../../../core/replay/script';
import { createArtRunner } from '../../../core/launch/create';
import {
  EvalDataError,
  normaliseAnswer,
  readDataset,
  runEval,
  scoreAnswer,
  vote,
  wilson,
  type EvalResult,
  type EvalRun,
} from '../../../core/evaluation/eval';
import { describeWhy } from '../../../core/prompt/promptReport';
import type { Runner } from '../../../core/engine/runner';
import type { RunResult, Snapshot } from '../../../core/engine/types';
import { bestCluster, chooseDemonstrations, llmSelect, similarityPrompt } from '../../../core/evaluation/taskSelection';
import { scriptedSuite } from '../../support/runs';

const LIB_A = `Preamble.

Description: (Sum) Add the numbers.
Input: 2 and 3
Q1: [calculator] 2 + 3
#1: 5
Q2: [EOQ]
Ans: 5
----
Description: (Reverse) Reverse the word.
Input: abc
Q1: [EOQ]
Ans: cba
----
Description: (Capital) Name the capital city.
Input: France
Q1: [EOQ]
Ans: Paris
`;
const LIB_B = `Other preamble.

Description: (Product) Multiply the numbers.
Input: 4 and 5
Q1: [calculator] 4 * 5
#1: 20
Q2: [EOQ]
Ans: 20
`;

describe('eval dataset', () => {
  const dataset = (text: string) => {
    const path = join(mkdtempSync(join(tmpdir(), 'art-dataset-')), 'data.jsonl');
    writeFileSync(path, text);
    return path;
  };

  test('a byte-order mark before the first example is not part of it', () => {
    const examples = readDataset(dataset('\uFEFF{"input": "2+2?", "target": "4"}\n{"input": "3+3?", "target": 6, "id": 7}\n'));
    assert.deepEqual(
      examples.map(e => [e.id, e.input, e.target]),
      [
        ['1', '2+2?', '4'],
        ['7', '3+3?', '6'],
      ],
    );
  });

  test('an id that is not a string or a number is refused at its line (it was recorded as "[object Object]")', () => {
    for (const [id, kind] of [
      ['{"a": 1}', 'object'],
      ['[1]', 'a list'],
      ['null', 'null'],
      ['true', 'boolean'],
    ]) {
      const path = dataset(`{"input": "a", "target": "b"}\n{"id": ${id}, "input": "2+2?", "target": "4"}\n`);
      assert.throws(
        () => readDataset(path),
        (e: Error) => e instanceof EvalDataError && e.message === `${path}:2: "id" must be a string or a number, not ${kind}`,
      );
    }
  });
});

describe('eval scoring', () => {
  test('exact match folds case, spaces, quotes and a final period; substring is the reference\'s "label in prediction"', () => {
    assert.equal(normaliseAnswer('  "Plate."  '), 'plate');
    assert.deepEqual(scoreAnswer('The answer is 18', '18'), { exact: false, substring: true });
    assert.deepEqual(scoreAnswer(' 18. ', '18'), { exact: true, substring: true });
    assert.deepEqual(scoreAnswer(null, '18'), { exact: false, substring: false });
  });
  test('Wilson interval', () => {
    const [lo, hi] = wilson(5, 6);
    assert.equal(lo.toFixed(3), '0.436');
    assert.equal(hi.toFixed(3), '0.970');
    assert.deepEqual(wilson(0, 0), [0, 1]);
  });
  test('vote: the most frequent normalised answer, a tie to the first', () => {
    assert.equal(vote(['7', ' 8', '8.', null]), ' 8');
    assert.equal(vote(['a', 'b']), 'a');
    assert.equal(vote([null, null]), null);
  });
});

/** A run that ends with `answer` after `ms` (or when stopped), as runEval sees a Runner. */
function fakeRun(answer: string, ms: number, trace: string, ended: (kept: boolean) => void): EvalRun {
  const snapshot = { calls: [], usage: { promptTokens: 3, completionTokens: 1 }, requests: 1 } as unknown as Snapshot;
  let stop: () => void = () => {};
  const runner = {
    run: () =>
      new Promise<RunResult>(resolve => {
        const t = setTimeout(() => resolve({ reason: 'finished', answer, snapshot }), ms);
        stop = () => (clearTimeout(t), resolve({ reason: 'stopped', answer: null, snapshot }));
      }),
    stop: () => stop(),
    snapshot: () => snapshot,
  } as unknown as Runner;
  return { runner, trace, ended };
}

describe('eval runs with traces', () => {
  test("each sample's trace; the result names the first that gave the voted answer; every run told it is kept", async () => {
    const kept: boolean[] = [];
    const results: EvalResult[] = [];
    const answers = ['7', '8', '8.'];
    await runEval({
      examples: [{ id: 'a', input: 'i', target: '8', line: 1 }],
      concurrency: 1,
      samples: 3,
      taskOf: () => 'Sum',
      makeRunner: (_, k) => fakeRun(answers[k], 1, `runs/a-s${k + 1}.jsonl`, b => kept.push(b)),
      onResult: r => results.push(r),
    });
    assert.deepEqual([results[0].answer, results[0].exact, results[0].task], ['8', true, 'Sum']);
    assert.equal(results[0].trace, 'runs/a-s2.jsonl');
    assert.deepEqual(results[0].traces, ['runs/a-s1.jsonl', 'runs/a-s2.jsonl', 'runs/a-s3.jsonl']);
    assert.deepEqual(kept, [true, true, true]);
  });

  test('stopped: the runs in flight are told they are not kept, and their example is not reported', async () => {
    const kept: [string, boolean][] = [];
    const results: EvalResult[] = [];
    const controller = new AbortController();
    await runEval({
      examples: ['fast', 'slow'].map((id, i) => ({ id, input: id, target: 'x', line: i + 1 })),
      concurrency: 2,
      signal: controller.signal,
      makeRunner: ex => fakeRun('x', ex.id === 'fast' ? 1 : 10_000, `${ex.id}.jsonl`, b => kept.push([ex.id, b])),
      onResult: r => (results.push(r), controller.abort()),
    });
    assert.deepEqual(
      results.map(r => [r.id, r.trace]),
      [['fast', 'fast.jsonl']],
    );
    assert.deepEqual(kept, [
      ['fast', true],
      ['slow', false],
    ]);
  });
});

describe('request limiter', () => {
  test('never more in flight than the bound; a 429 halves it and holds every new request', async () => {
    const l = new RequestLimiter(4);
    let peak = 0;
    const work = async (ms: number) => {
      const release = await l.acquire();
      peak = Math.max(peak, l.inFlight);
      await new Promise(r => setTimeout(r, ms));
      release();
    };
    await Promise.all(Array.from({ length: 12 }, () => work(5)));
    assert.equal(peak, 4);
    l.onRateLimit(80);
    assert.equal(l.limit, 2);
    const t = performance.now();
    peak = 0;
    await Promise.all(Array.from({ length: 4 }, () => work(1)));
    assert.ok(performance.now() - t >= 75, 'no request started before the gate opened');
    assert.equal(peak, 2);
  });
});

describe('eval against the scripted server', () => {
  const { server, tools } = scriptedSuite({ resetEachTest: true });
  const lib = parseArt(LIB_A);

  test('runs examples concurrently under one bound; 429s slow the whole run down; self-consistency votes', async () => {
    server.tokenDelayMs = 0;
    const inputs = ['1 and 1', '2 and 2', '3 and 3', '4 and 4'];
    server.setScripts(
      ...inputs.map((input, i) =>
        ContinuationScript.parse(
          ` [calculator] ${i + 1} + ${i + 1}\n#⟂1:⟦ ${2 * (i + 1)}⟧\nQ2: [EOQ]\nAns: ${2 * (i + 1)}\n----`,
          `Input: ${input}\nQ1:`,
        ),
      ),
    );
    server.injectFaults({ status: 429, retryAfterMs: 50 });
    const limiter = new RequestLimiter(4);
    const results: EvalResult[] = [];
    await runEval({
      examples: inputs.map((input, i) => ({ id: String(i), input, target: String(2 * (i + 1)), line: i + 1 })),
      concurrency: 4,
      samples: 3,
      makeRunner: ex =>
        createArtRunner(
          { library: lib, task: { taskName: 'Sum', description: 'Add the numbers.', input: ex.input } },
          { model: limiter.wrap(new OpenAIModel({ baseURL: server.baseURL, model: 'scripted' })), tools, pauseAfterTool: false },
        ),
      onResult: r => results.push(r),
    });
    assert.equal(results.length, 4);
    for (const r of results) {
      assert.equal(r.exact, true, JSON.stringify(r));
      assert.deepEqual(r.samples, [r.target, r.target, r.target]);
      assert.equal(r.toolCalls, 3);
    }
    assert.equal(limiter.rateLimited, 1);
    // 4 examples x 3 samples x 2 requests, plus the retried one.
    assert.equal(server.requests.length, 25);
  });

  test('llm selection: P(Yes) from the log-probability where the endpoint gives it; the most similar tasks first', async () => {
    server.tokenDelayMs = 0;
    const task = { taskName: 'Addition', description: 'Add two numbers.', input: '7 and 8' };
    server.setScripts(
      ContinuationScript.parse(' Yes. Both add numbers.', similarityPrompt(lib.programs[0], task)),
      ContinuationScript.parse(' No. One reverses a string.', similarityPrompt(lib.programs[1], task)),
      ContinuationScript.parse(' No. One is a fact.', similarityPrompt(lib.programs[2], task)),
      ContinuationScript.parse(' Yes. Both are arithmetic.', similarityPrompt(parseArt(LIB_B).programs[0], task)),
    );
    const model = new OpenAIModel({ baseURL: server.baseURL, model: 'scripted' });
    const libraries = [
      { path: 'a.art', doc: lib },
      { path: 'b.art', doc: parseArt(LIB_B) },
    ];
    const { chosen, scored } = await llmSelect({ strategy: 'llm', libraries, task, model, k: 2 });
    assert.deepEqual(
      chosen.map(d => d.program.description?.taskName),
      ['Sum', 'Product'],
    );
    assert.ok(
      server.requests.every(r => r.body.logprobs),
      'asked for logprobs',
    );
    // The scripted server gives every token the log-probability -0.5.
    const yes = scored.find(s => s.demonstrations[0].program.description?.taskName === 'Sum')!;
    const no = scored.find(s => s.demonstrations[0].program.description?.taskName === 'Reverse')!;
    assert.equal(yes.usedLogprobs, true);
    assert.equal(yes.score.toFixed(4), Math.exp(-0.5).toFixed(4));
    assert.equal(no.score.toFixed(4), (1 - Math.exp(-0.5)).toFixed(4));
    // Each chosen demonstration says why: P(Yes), the log-probability and the answer.
    assert.deepEqual(chosen[0].why, { strategy: 'llm', pYes: yes.score, answer: 'Yes.', logprob: -0.5 });
    assert.match(describeWhy(chosen[0].why), /^llm: P\(Yes\) = 0\.607 \(log-probability -0\.500 of the answer "Yes\."\)$/);
    assert.match(
      server.requests[0].prompt,
      /Task1: \[Sum\] Add the numbers\. Input: 2 and 3 The final answer is 5\.\nTask2: \[Addition\] Add two numbers\. Input: 7 and 8\nAre these similar\?$/,
    );
  });

  test('best-cluster: the file that answers most labelled examples wins', async () => {
    server.tokenDelayMs = 0;
    // After library B's demonstrations the model answers right; after A's, wrong.
    server.setScripts(
      ContinuationScript.parse(' [EOQ]\nAns: 42\n----', 'Ans: 20\n----\nDescription: (Times) Multiply.\nInput: 6 and 7\nQ1:'),
      ContinuationScript.parse(' [EOQ]\nAns: 13\n----', 'Ans: Paris\n----\nDescription: (Times) Multiply.\nInput: 6 and 7\nQ1:'),
    );
    const model = new OpenAIModel({ baseURL: server.baseURL, model: 'scripted' });
    const lines: string[] = [];
    const selection = {
      strategy: 'best-cluster' as const,
      libraries: [
        { path: 'a.art', doc: lib },
        { path: 'b.art', doc: parseArt(LIB_B) },
      ],
      task: { taskName: 'Times', description: 'Multiply.', input: '' },
      labelled: [{ input: '6 and 7', target: '42' }],
      runnerOptions: { model, tools, pauseAfterTool: false },
    };
    const best = await bestCluster({ ...selection, explain: l => lines.push(l) });
    assert.equal(best.path, 'b.art');
    assert.deepEqual(lines, ['a.art: 0/1 labelled examples right', 'b.art: 1/1 labelled examples right']);
    // Through chooseDemonstrations, each of the file's programs says why it is there.
    const chosen = await chooseDemonstrations(selection);
    assert.deepEqual(
      chosen.map(d => [d.file, d.why]),
      [['b.art', { strategy: 'best-cluster', file: 'b.art', correct: 1, tried: 1 }]],
    );
    assert.equal(describeWhy(chosen[0].why), "best-cluster: b.art answered 1 of 1 labelled example right, the most of the folder's files");
  });
});
