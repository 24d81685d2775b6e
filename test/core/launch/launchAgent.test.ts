// An agent spec launched the way the shells do (prepareRun): replay mode replays the transcript recorded beside
// the spec (NAME.transcript.txt), and the preamble (the `preamble` option, else NAME.preamble.txt beside the spec)
// is what a real endpoint receives before the question.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ContinuationScript } from '../../../core/replay/script';
import { prepareRun } from '../../../core/launch/launch';
import { LaunchError } from '../../../core/launch/options';
import { ScriptedServer } from '../../support/scriptedServer';

const ROOT = resolve(__dirname, '../../..');
const EXAMPLE = join(ROOT, 'examples/agents/react.agent');
const QUESTION = 'Where does the pen name of the author of The Adventures of Tom Sawyer come from?';

describe('prepareRun: an agent spec in replay mode', () => {
  test('replays the transcript beside the spec, with its question, the tools running again', async () => {
    const run = await prepareRun({ program: EXAMPLE, mode: 'replay', cwd: ROOT, trusted: true, pauseAfterTool: false, pauseOnToolError: false });
    const calls: string[] = [];
    run.runner.on('toolEnd', ({ call }) => void calls.push(`${call.tool}: ${call.output ?? call.error}`));
    try {
      const result = await run.runner.run();
      assert.equal(result.reason, 'finished', result.error);
      assert.equal(result.answer, 'A riverboat call meaning two fathoms deep');
    } finally {
      await run.dispose();
    }
    assert.equal(calls.length, 3);
    assert.match(calls[0], /^Search: Samuel Langhorne Clemens/);
    assert.match(calls[2], /^Lookup: \(Result 2 \/ 2\) His pen name comes from a riverboat call/);
    assert.ok(run.runner.text.startsWith(`[Question] ${QUESTION}\n`));
  });

  test('the same question given as the input replays too; another question is refused in one line', async () => {
    const replayWith = (input: string) =>
      prepareRun({ program: EXAMPLE, mode: 'replay', cwd: ROOT, trusted: true, pauseAfterTool: false, pauseOnToolError: false, input });
    await (await replayWith(QUESTION)).dispose();
    await assert.rejects(
      replayWith('Who wrote Hamlet?'),
      (e: Error) => e instanceof LaunchError && /react\.transcript\.txt answers the question ".*": leave the input empty/.test(e.message),
    );
  });

  test('a spec with no recording beside it: one line naming the file to add', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'art-agent-replay-'));
    const spec = join(dir, 'mine.agent');
    copyFileSync(EXAMPLE, spec);
    await assert.rejects(
      prepareRun({ program: spec, mode: 'replay', cwd: dir, trusted: true, pauseAfterTool: false, pauseOnToolError: false }),
      (e: Error) =>
        e instanceof LaunchError && /mine\.agent has none beside it: add mine\.transcript\.txt/.test(e.message) && !e.message.includes('\n'),
    );
  });
});

describe('prepareRun: the preamble an endpoint receives', () => {
  const server = new ScriptedServer();
  before(() => server.start());
  after(() => server.close());
  const question = 'Who was Milhouse named after?';
  const script = ContinuationScript.parse('[Final Thought] Nixon.\n[Answer] Richard Nixon\n', `[Question] ${question}\n`);

  async function promptOf(extra: { program: string; preamble?: string; cwd: string }): Promise<string> {
    server.reset();
    server.setScripts(script);
    const run = await prepareRun({
      ...extra,
      mode: 'generate',
      baseURL: server.baseURL,
      model: 'scripted',
      input: question,
      trusted: true,
      pauseAfterTool: false,
      pauseOnToolError: false,
    });
    try {
      const result = await run.runner.run();
      assert.equal(result.reason, 'finished', result.error);
    } finally {
      await run.dispose();
    }
    return server.requests[0].prompt;
  }

  test("the example's ReACT prompt (react.preamble.txt beside the spec) comes before the question", async () => {
    const prompt = await promptOf({ program: EXAMPLE, cwd: ROOT });
    assert.match(prompt, /^Answer a question by interleaving Thought, Action and Observation steps/);
    assert.match(prompt, /\[Answer\] Columbia\n/, 'its few-shot examples');
    assert.ok(prompt.endsWith(`\n\n[Question] ${question}\n`), prompt.slice(-200));
  });

  test('the preamble option names another file; without either the question comes alone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'art-agent-preamble-'));
    const spec = join(dir, 'plain.agent');
    copyFileSync(EXAMPLE, spec);
    assert.equal(await promptOf({ program: spec, cwd: dir }), `[Question] ${question}\n`);
    writeFileSync(join(dir, 'mine.txt'), 'Think before you act.\n');
    assert.equal(await promptOf({ program: spec, cwd: dir, preamble: 'mine.txt' }), `Think before you act.\n\n[Question] ${question}\n`);
    await assert.rejects(
      prepareRun({
        program: spec,
        cwd: dir,
        preamble: 'absent.txt',
        mode: 'generate',
        baseURL: server.baseURL,
        model: 'm',
        input: 'q',
        trusted: true,
        pauseAfterTool: false,
        pauseOnToolError: false,
      }),
      (e: Error) => e instanceof LaunchError && /^preamble: .*absent\.txt does not exist/.test(e.message),
    );
  });
});
