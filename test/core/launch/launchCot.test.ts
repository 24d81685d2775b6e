// A MultiTool-CoT prompt file (NAME.cot.txt) launched the way the shells do: replay mode replays NAME.answer.txt
// beside it with the calculator running again at each <<Calculator>> trigger; generate mode sends the prompt with
// the question in its `%s` slot and ends the run where the model starts another question.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ContinuationScript } from '../../../core/replay/script';
import { prepareRun } from '../../../core/launch/launch';
import { LaunchError } from '../../../core/launch/options';
import { ScriptedServer } from '../../support/scriptedServer';

const ROOT = resolve(__dirname, '../../..');
const EXAMPLE = join(ROOT, 'examples/word-problems.cot.txt');
const QUIET = { trusted: true, pauseAfterTool: false, pauseOnToolError: false } as const;

describe('prepareRun: a MultiTool-CoT prompt', () => {
  test('replays the answer recorded beside the example; each trigger calls the calculator again', async () => {
    const run = await prepareRun({ program: EXAMPLE, mode: 'replay', cwd: ROOT, ...QUIET });
    assert.equal(run.language, 'multitool');
    try {
      const result = await run.runner.run();
      assert.equal(result.reason, 'finished', result.error);
      assert.deepEqual(
        result.snapshot.calls.map(c => [c.tool, c.input, c.output]),
        [
          ['Calculator', 'The library buys 6 * 45', '270'],
          ['Calculator', 'After giving 38 books away, it keeps 270 - 38', '232'],
        ],
      );
      // The answer as the prompt's examples state it (`So the answer is N.`), not the whole last line.
      assert.equal(result.answer, '232');
    } finally {
      await run.dispose();
    }
  });

  test('a wrong recorded number is replaced by the tool output (the slot is filled again)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'art-cot-'));
    const prompt = join(dir, 'p.cot.txt');
    writeFileSync(prompt, 'Use <<Calculator>>.\n\nQ: %s\nA:\n');
    writeFileSync(join(dir, 'p.answer.txt'), 'What is 7 times 6?\nIt is 7 * 6 <<Calculator>> 41. So the answer is 42.\n');
    const run = await prepareRun({ program: prompt, mode: 'replay', cwd: dir, ...QUIET });
    try {
      const result = await run.runner.run();
      assert.equal(result.reason, 'finished', result.error);
      assert.equal(result.snapshot.text, ' It is 7 * 6 <<Calculator>> 42. So the answer is 42.');
    } finally {
      await run.dispose();
    }
    await assert.rejects(
      prepareRun({ program: prompt, mode: 'replay', cwd: dir, input: 'What is 2 + 2?', ...QUIET }),
      (e: Error) => e instanceof LaunchError && /p\.answer\.txt answers the question "What is 7 times 6\?"/.test(e.message),
    );
    writeFileSync(join(dir, 'q.cot.txt'), 'Use <<Calculator>>.\n');
    await assert.rejects(
      prepareRun({ program: join(dir, 'q.cot.txt'), mode: 'generate', baseURL: 'http://127.0.0.1:9/v1', model: 'm', input: 'x', cwd: dir, ...QUIET }),
      (e: Error) => e instanceof LaunchError && /q\.cot\.txt: the prompt has no `%s` line/.test(e.message),
    );
    await assert.rejects(
      prepareRun({ program: join(dir, 'q.cot.txt'), mode: 'replay', cwd: dir, ...QUIET }),
      (e: Error) => e instanceof LaunchError && /q\.cot\.txt has none beside it: add q\.answer\.txt/.test(e.message),
    );
  });

  describe('generate mode', () => {
    const server = new ScriptedServer();
    before(() => server.start());
    after(() => server.close());

    test('the endpoint receives the prompt with the question filled in; a new `Q:` ends the run', async () => {
      const question = 'A farmer has 9 rows of 12 apple trees. How many trees?';
      server.setScripts(
        ContinuationScript.parse(' There are 9 * 12 <<Calculator>>⟦ 108⟧ trees. So the answer is 108.\n\nQ: Next', `Q: ${question}\nA:`),
      );
      const run = await prepareRun({
        program: EXAMPLE,
        mode: 'generate',
        baseURL: server.baseURL,
        model: 'scripted',
        input: question,
        cwd: ROOT,
        ...QUIET,
      });
      try {
        const result = await run.runner.run();
        assert.equal(result.reason, 'finished', result.error);
        assert.equal(result.answer, '108');
        assert.equal(result.snapshot.text, ' There are 9 * 12 <<Calculator>> 108 trees. So the answer is 108.\n');
      } finally {
        await run.dispose();
      }
      const first = server.requests[0];
      assert.match(first.prompt, /^Solve each problem step by step\./);
      assert.ok(first.prompt.endsWith(`\n\nQ: ${question}\nA:`), first.prompt.slice(-120));
      assert.deepEqual(first.stop, ['>>', '\nQ:']);
    });
  });
});
