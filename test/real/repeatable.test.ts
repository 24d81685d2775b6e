// Temperature 0 is repeatable on the real default model in one process, whatever the model evaluated before: the same
// prompt gives the same text and the same log-probabilities fresh and after a request that shared part of it (the
// KV cache it left is reused only where a fresh evaluation computes the same, core/model/localModel.ts), and the same
// live ART run twice, with another program run between them, writes the same program.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { resolve, join } from 'node:path';
import { LocalModel } from '../../core/model/localModel';
import { disposeLocalRuntimes } from '../../core/model/localRuntime';
import { prepareRun } from '../../core/launch/launch';
import type { RunConfig } from '../../core/launch/session';
import { localModelPath } from '../support/localModel';

const file = localModelPath();
const root = resolve(__dirname, '../..');
after(() => disposeLocalRuntimes());

const PROMPT = [
  'Q: Ann has 2 pens and buys 5 more. How many pens does she have?',
  'A: She has 2 + 5 = 7 pens. The answer is 7.',
  'Q: A box holds 6 eggs. How many eggs are in 4 boxes?',
  'A: There are 6 * 4 = 24 eggs. The answer is 24.',
  'Q: Tom reads 12 pages a day for 3 days, then 5 more pages. How many pages does he read?',
  'A: He reads 12 * 3 + 5 = 41 pages. The answer is 41.',
  'Q: A farmer has 5 rows of 8 apple trees and sells 3 apples from each tree. How many apples does he sell?',
  'A:',
].join('\n');

describe('real model: temperature 0 is repeatable in one process', () => {
  test('the same prompt: the same text and log-probabilities, fresh and after requests that shared part of it', async () => {
    // One sequence: every request finds what the one before it left.
    const model = new LocalModel({ file, contextSize: 1024, sequences: 1 });
    const ask = (prompt: string) => model.complete({ prompt, stop: ['\nQ:'], maxTokens: 24, temperature: 0, logprobs: true });
    const fresh = await ask(PROMPT);
    const seen = [fresh];
    // A request sharing a prefix of every length up to a few tokens past a multiple of four, and an unrelated one.
    for (const cut of [0.31, 0.57, 0.83]) {
      await ask(`${PROMPT.slice(0, Math.floor(PROMPT.length * cut))} zebra`);
      seen.push(await ask(PROMPT));
    }
    await ask('Once upon a time');
    seen.push(await ask(PROMPT));
    for (const r of seen.slice(1)) {
      assert.equal(r.text, fresh.text);
      assert.deepEqual(r.tokenLogprobs, fresh.tokenLogprobs);
    }
    // Asked again at once, the prompt is reused but for its last few tokens (and what the model wrote after it).
    const again = await ask(PROMPT);
    assert.equal(again.text, fresh.text);
    assert.ok(again.usage!.cachedPromptTokens! >= fresh.usage!.promptTokens - 4, JSON.stringify(again.usage));
  });

  test('the same live ART run twice, another program run between them: the same program written', async () => {
    const base: RunConfig = {
      program: join(root, 'examples/library.art'),
      modelFile: file,
      modelSource: 'local',
      mode: 'generate',
      trusted: true,
      temperature: 0,
      maxTokens: 48,
      maxRequests: 6,
      cwd: root,
    };
    const text = async (task: string) => {
      const run = await prepareRun({ ...base, task });
      run.runner.on('paused', () => run.runner.continue());
      try {
        const r = await run.runner.run();
        return r.snapshot.text;
      } finally {
        await run.dispose();
      }
    };
    const first = await text('Elementary Math');
    await text('Word Unscramble');
    assert.equal(await text('Elementary Math'), first);
  });
});
