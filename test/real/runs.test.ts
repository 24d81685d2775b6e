// Runs on the real default model, in-process: what holds for any model. An ART program of the examples live to its
// end; a recorded program paused at a tool call, stepped back (no tokens), overridden (the next request carries the
// override, the model goes on), and its trace replayed afterwards with no model; a MultiTool-CoT prompt whose inline
// trigger pauses; self-consistency over several samples; an evaluation with concurrency.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { prepareRun } from '../../core/launch/launch';
import type { RunConfig } from '../../core/launch/session';
import { disposeLocalRuntimes, localRuntime } from '../../core/model/localRuntime';
import type { CompletionRequest } from '../../core/model/types';
import type { PauseInfo, RunResult } from '../../core/engine/types';
import { END_REASONS } from '../../core/trace/vocabulary';
import { runCommand } from '../../core/cli/run';
import { evalCommand } from '../../core/cli/eval';
import { recordingModel } from '../support/fakeModels';
import { localModelPath } from '../support/localModel';

const file = localModelPath();
const root = resolve(__dirname, '../..');
const LIBRARY = join(root, 'examples/library.art');
const dir = mkdtempSync(join(tmpdir(), 'art-real-'));
const totals = () => ({ ...localRuntime({ file }).totals });
after(() => disposeLocalRuntimes());

const base: Partial<RunConfig> = { modelFile: file, modelSource: 'local', trusted: true, temperature: 0, maxTokens: 48, cwd: root };

function endedWell(r: RunResult): void {
  assert.ok((END_REASONS as readonly string[]).includes(r.reason), r.reason);
  if (r.reason === 'finished') assert.ok(r.answer !== null, 'a finished run has an answer');
}

/** Runs `config`, calling `onPause` at each pause (default: continue). */
async function runWith(config: RunConfig, onPause?: (p: PauseInfo, n: number, runner: Awaited<ReturnType<typeof prepareRun>>['runner']) => void) {
  const run = await prepareRun(config);
  let n = 0;
  run.runner.on('paused', (p: PauseInfo) => (onPause ? onPause(p, n++, run.runner) : run.runner.continue()));
  try {
    return { result: await run.runner.run(), run };
  } finally {
    await run.dispose();
  }
}

/** `art run` in-process: its exit code, standard output and standard error. */
async function art(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  const err: string[] = [];
  const code = await runCommand(argv, { write: s => (out += s), err: s => err.push(s), stdin: process.stdin, cwd: root });
  return { code, out, err: err.join('\n') };
}

describe('real model: an ART program', () => {
  test('live with the step constraint: runs to an answer or a named end reason, its step requests constrained', async () => {
    const { result } = await runWith({
      ...base,
      program: LIBRARY,
      task: 'Word Unscramble',
      input: 'odg',
      mode: 'generate',
      constrain: 'auto',
      maxRequests: 6,
    } as RunConfig);
    endedWell(result);
    const s = result.snapshot;
    // The step requests are constrained; the answer a step without a tool asks for, and the requests of tools that ask
    // the model, have no step syntax to hold to.
    assert.ok(s.constrainedRequests >= 1 && s.constrainedRequests <= s.requests, `${s.constrainedRequests} of ${s.requests} constrained`);
  });

  test('paused at a tool call, stepped back at no cost, overridden: the next request carries the override; the trace replays with no model', async () => {
    const requests: CompletionRequest[] = [];
    const trace = join(dir, 'override.jsonl');
    const OVERRIDE = '["q", "z", "x"]';
    const seen: { n: number; step?: number; totals: ReturnType<typeof totals>; prompts: number }[] = [];
    let overriddenAt = -1;
    const { result } = await runWith(
      {
        ...base,
        program: LIBRARY,
        task: 'Word Unscramble',
        mode: 'replay',
        pauseAfterTool: true,
        maxRequests: 6,
        trace,
        wrapModel: m => recordingModel(m, requests),
      } as RunConfig,
      (p, n, runner) => {
        seen.push({ n, step: p.call?.step, totals: totals(), prompts: requests.length });
        if (n === 1) runner.stepBack();
        else if (n === 2) {
          runner.setToolOutput(OVERRIDE);
          overriddenAt = requests.length;
          runner.continue();
        } else runner.continue();
      },
    );
    endedWell(result);
    assert.ok(seen.length >= 3, `pauses: ${JSON.stringify(seen.map(x => x.step))}`);
    assert.deepEqual(seen[2].totals, seen[1].totals, 'Step Back costs no tokens');
    assert.equal(seen[2].prompts, seen[1].prompts, 'and no request');
    assert.ok(requests.length > overriddenAt, 'a request after the override');
    assert.ok(requests[overriddenAt].prompt.includes(OVERRIDE), 'the next request carries the override');
    assert.ok(totals().requests > seen[2].totals.requests, 'the local model went on once the run departed');

    const before = totals();
    const replayed = await runWith({ program: trace, mode: 'replay', trusted: true, cwd: root } as RunConfig);
    assert.equal(replayed.result.answer, result.answer, 'the trace replays to the same answer');
    assert.deepEqual(totals(), before, 'with no model');
  });
});

describe('real model: MultiTool-CoT', () => {
  test('an inline trigger pauses the run; an override there goes to the model', async () => {
    const requests: CompletionRequest[] = [];
    let paused: PauseInfo | undefined;
    let overriddenAt = -1;
    const { result } = await runWith(
      {
        ...base,
        program: join(root, 'examples/word-problems.cot.txt'),
        mode: 'replay',
        pauseAfterTool: true,
        maxRequests: 4,
        wrapModel: m => recordingModel(m, requests),
      } as RunConfig,
      (p, n, runner) => {
        if (n === 0) {
          paused = p;
          runner.setToolOutput('999');
          overriddenAt = requests.length;
        }
        runner.continue();
      },
    );
    endedWell(result);
    assert.equal(paused?.call?.tool, 'Calculator');
    assert.ok(requests[overriddenAt]?.prompt.includes('999'), 'the next request carries the override');
  });
});

describe('real model: several runs at once', () => {
  test('self-consistency: several samples, each ends, the vote is said; the samples share the prompt evaluated once', async () => {
    const before = totals();
    const r = await art([
      LIBRARY,
      '--task',
      'Word Unscramble',
      '--input',
      'odg',
      '--model-file',
      file,
      '--samples',
      '3',
      '--temperature',
      '0.7',
      '--seed',
      '1',
      '--max-tokens',
      '32',
      '--max-requests',
      '3',
    ]);
    assert.match(r.err + r.out, /vote|sample/i);
    const t = totals();
    const prompt = t.promptTokens - before.promptTokens;
    const evaluated = t.evaluatedPromptTokens - before.evaluatedPromptTokens;
    assert.ok(evaluated < prompt / 2, `evaluated ${evaluated} of ${prompt} prompt tokens`);
  });

  test('an evaluation of a small dataset with concurrency 2: every example has a result', async () => {
    const data = join(dir, 'words.jsonl');
    writeFileSync(data, ['{"id": "dog", "input": "odg", "target": "dog"}', '{"id": "cat", "input": "tca", "target": "cat"}'].join('\n') + '\n');
    const out = join(dir, 'words.results.jsonl');
    const err: string[] = [];
    const code = await evalCommand(
      [
        LIBRARY,
        '--task',
        'Word Unscramble',
        '--data',
        data,
        '--out',
        out,
        '--runs',
        join(dir, 'runs'),
        '--model-file',
        file,
        '--concurrency',
        '2',
        '--max-tokens',
        '32',
        '--max-requests',
        '3',
        '--progress',
        'none',
      ],
      { write: () => {}, err: s => err.push(s), isTTY: false, cwd: root },
    );
    assert.ok(code === 0 || code === 1, err.join('\n'));
    const results = readFileSync(out, 'utf8')
      .split('\n')
      .filter(l => l.trim())
      .map(l => JSON.parse(l) as { id?: string; t?: string });
    const ids = new Set(results.map(r => r.id).filter(Boolean));
    assert.ok(ids.has('dog') && ids.has('cat'), JSON.stringify(results).slice(0, 400));
  });
});
