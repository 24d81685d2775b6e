// Every shipped example replays to the end with no endpoint, through `art run` as a new user runs it (in-process,
// test/support/cli.ts; no --mode: with no endpoint given, the CLI replays and says so): each program of examples/library.art, the
// agent with the transcript recorded beside it, and the MultiTool-CoT prompt with its recorded answer.
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, test } from 'node:test';
import { parseArt } from '../../core/art/parse';
import { readFileSync } from 'node:fs';
import { runCli } from '../support/cli';

const ROOT = resolve(__dirname, '../..');
const art = (args: string[]) => runCli(args, { cwd: ROOT, env: { OPENAI_API_KEY: undefined } });

const library = parseArt(readFileSync(resolve(ROOT, 'examples/library.art'), 'utf8'));
const programs = library.programs.flatMap((p, i) => (p.template ? [] : [{ i, name: p.description?.taskName ?? `program ${i}`, ans: p.ans?.text }]));

describe('every shipped example replays to the end', () => {
  test('the library has programs to replay', () => assert.ok(programs.length >= 4));

  for (const p of programs) {
    test(`examples/library.art: ${p.name}`, async () => {
      const r = await art(['run', 'examples/library.art', '--task', String(p.i), '--quiet']);
      assert.equal(r.code, 0, r.stderr);
      // The notice names both ways to generate instead: a local model file, or an endpoint.
      assert.match(
        r.stderr,
        /^\[art\] replay mode: no model is given \(--model-file FILE\.gguf for a local model, or --base-url and --model for an endpoint, to generate\)$/m,
      );
      assert.doesNotMatch(r.stderr, /failed/, 'no tool failed');
      assert.equal(r.stdout.trim(), `Answer: ${p.ans?.trim()}`);
    });
  }

  test('examples/agents/react.agent with react.transcript.txt', async () => {
    const r = await art(['run', 'examples/agents/react.agent']);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /failed/);
    assert.match(r.stdout, /\[Observation\] \(Result 2 \/ 2\) His pen name comes from a riverboat call/);
    assert.match(r.stdout, /\nAnswer: A riverboat call meaning two fathoms deep\n$/);
  });

  test('examples/word-problems.cot.txt with word-problems.answer.txt', async () => {
    const r = await art(['run', 'examples/word-problems.cot.txt']);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /failed/);
    assert.match(r.stdout, /6 \* 45 <<Calculator>> 270 books\. .* 270 - 38 <<Calculator>> 232 books\./);
    assert.match(r.stdout, /So the answer is 232\.\n\nAnswer: 232\n$/);
  });
});
