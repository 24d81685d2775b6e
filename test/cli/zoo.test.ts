// `art run --api chat` against the model zoo (test/support/modelZoo.ts), as a user runs it (in this process, through
// main()'s Io: test/support/cli.ts). A model with a chat habit gives the right answer, a program `art check` finds
// clean, no chat text on the terminal and one line per kind of repair; a model that does not continue the program
// ends the run within a few requests with one line saying why, and a non-zero exit.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli';
import { REFUSAL, THOUGHT, ZOO_ANSWER, ZOO_LIBRARY, ZOO_PROGRAM, ZOO_WIDE_ANSWER, ZooServer, type Habit } from '../support/modelZoo';

const work = mkdtempSync(join(tmpdir(), 'art-cli-zoo-'));
const LIBRARY = join(work, 'pens.art');
writeFileSync(LIBRARY, ZOO_LIBRARY);

/** `art ARGS` in this process (test/support/cli.ts), in the work folder. */
const art = (args: string[]) => runCli(args, { cwd: work });

const servers: ZooServer[] = [];
after(() => Promise.all(servers.map(s => s.close())));

async function run(
  habit: Habit,
  extra: string[] = [],
  traced = true,
): Promise<{ code: number | null; stdout: string; stderr: string; server: ZooServer; trace: string }> {
  const server = await new ZooServer(habit).start();
  servers.push(server);
  const trace = join(work, `${habit}.jsonl`);
  const r = await art([
    'run',
    LIBRARY,
    '--task',
    String(ZOO_PROGRAM),
    '--base-url',
    server.baseURL,
    '--model',
    'zoo',
    '--api',
    'chat',
    ...(traced ? ['--trace', trace] : []),
    ...extra,
  ]);
  return { ...r, server, trace };
}

describe('art run --api chat against the model zoo', () => {
  for (const [habit, answer, kinds] of [
    ['wrapper', ZOO_ANSWER, ['echo', 'wrapper']],
    ['echo-line', ZOO_ANSWER, ['echo']],
    ['think', ZOO_ANSWER, ['think']],
    ['reasoning-field', ZOO_ANSWER, []],
    ['split-bytes', ZOO_WIDE_ANSWER, []],
    ['ignore-stop', ZOO_ANSWER, []],
  ] as [Habit, string, string[]][]) {
    test(`${habit}: the answer, a clean program, no chat text, ${kinds.length ? 'each repair said once' : 'nothing to repair'}`, async () => {
      const r = await run(habit);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(r.stdout.endsWith(`Q2: [EOQ]\nAns: ${answer}\n\nAnswer: ${answer}\n`), r.stdout);
      assert.doesNotMatch(r.stdout, /Sure|```|think>|taken back|\b11\b/, r.stdout);
      assert.ok(!r.stdout.includes(THOUGHT));
      const said = [...r.stderr.matchAll(/the chat reply was repaired: /g)].length;
      assert.equal(said, kinds.length, r.stderr);
      for (const k of kinds) assert.ok(readFileSync(r.trace, 'utf8').includes(`"kind":"${k}"`), `${k} in the trace`);
      if (habit === 'reasoning-field') assert.match(r.stderr, /completion tokens \(\d+ of them reasoning\)/);
      if (habit === 'think') {
        assert.match(r.stderr, /characters of reasoning, in the trace/);
        // Without --trace the reasoning is nowhere: said so, not "in the trace".
        const untraced = await run(habit, [], false);
        assert.match(untraced.stderr, /characters of reasoning, not kept: --trace FILE keeps it/);
      }
      // The program printed is one `art check` finds clean.
      const program = join(work, `${habit}.art`);
      writeFileSync(program, r.stdout.slice(0, r.stdout.lastIndexOf('\n\nAnswer:')) + '\n');
      const check = await art(['check', program]);
      assert.equal(check.code, 0, check.stdout + check.stderr);
    });
  }

  test('refusal: one request, one line quoting it and saying what was expected, exit 1', async () => {
    const r = await run('refusal');
    assert.equal(r.code, 1);
    assert.equal(r.server.requests.length, 1);
    // One line about the run (the tools' own line aside).
    const lines = r.stderr
      .trim()
      .split('\n')
      .filter(l => !l.startsWith('[art] tools:'));
    assert.equal(lines.length, 1, r.stderr);
    assert.equal(
      lines[0],
      `art run: the run ended (malformed): the model's reply does not continue the program: ${JSON.stringify(REFUSAL)} where \`Q1: [tool or sub-step] instruction\` was expected`,
    );
    assert.doesNotMatch(r.stdout, /sorry/);
  });

  test('empty after the first step: ends with no-progress within the budget, exit 1', async () => {
    const r = await run('empty');
    assert.equal(r.code, 1);
    assert.ok(r.server.requests.length <= 8, `${r.server.requests.length} requests`);
    assert.match(
      r.stderr,
      /^art run: the run ended \(no-progress\): no progress in 3 requests in a row \(the last, request \d+: its reply added nothing\)/m,
    );
    assert.doesNotMatch(r.stdout, /\n#\n/, 'nothing written for the empty replies');
    assert.match(readFileSync(r.trace, 'utf8'), /"t":"end"[^\n]*"reason":"no-progress"/);
  });

  test('--no-progress-limit 1: the first request that adds nothing ends the run, two requests before the default would', async () => {
    const byDefault = await run('empty');
    const r = await run('empty', ['--no-progress-limit', '1']);
    assert.equal(r.code, 1);
    assert.equal(r.server.requests.length, byDefault.server.requests.length - 2, r.stderr);
    assert.match(
      r.stderr,
      /^art run: the run ended \(no-progress\): no progress in 1 request in a row \(the last, request \d+: its reply added nothing\)/m,
    );
  });

  test('--no-progress-limit 0 is refused in one line naming the flag', async () => {
    const r = await art(['run', LIBRARY, '--no-progress-limit', '0']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /--no-progress-limit/);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  });

  test('same-again: the same reply after the tool output is refused where a step was expected, exit 1', async () => {
    const r = await run('same-again');
    assert.equal(r.code, 1);
    assert.ok(r.server.requests.length <= 3);
    assert.match(r.stderr, /the run ended \(malformed\): [^\n]*"\[calculator\] 3 \+ 7" where the next step/);
  });
});

describe('art run --api tools against the zoo tool-call endpoint', () => {
  const INPUT = 'Tom has 21 pens and buys 3 more. How many pens does he have?';
  const PROGRAM = `Q1: [calculator] 21 + 3\n#1: 24\nQ2: [EOQ]\nAns: 24\n`;

  test('a streamed call to calculator becomes Q1 / #1, the output goes back as a tool message, the run ends with the answer; the trace re-runs it', async () => {
    const r = await run('tool-call', ['--api', 'tools', '--input', INPUT]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.endsWith(`${PROGRAM}\nAnswer: 24\n`), r.stdout);
    assert.equal(r.server.requests.length, 2);
    const messages = r.server.requests[1].body.messages;
    const id = messages[2].tool_calls[0].id;
    assert.deepEqual(messages.at(-1), { role: 'tool', tool_call_id: id, content: '24' });
    assert.ok(r.server.requests[0].body.tools.some((t: any) => t.function.name === 'calculator'));

    // Re-run from the trace: every request is answered from it, none reaches the endpoint.
    const again = await art([
      'run',
      LIBRARY,
      '--task',
      String(ZOO_PROGRAM),
      '--input',
      INPUT,
      '--base-url',
      r.server.baseURL,
      '--model',
      'zoo',
      '--api',
      'tools',
      '--from',
      r.trace,
    ]);
    assert.equal(again.code, 0, again.stderr);
    assert.ok(again.stdout.endsWith(`${PROGRAM}\nAnswer: 24\n`), again.stdout);
    assert.equal(r.server.requests.length, 2);
    // The trace itself runs (its completions and tool outputs replayed).
    const replay = await art(['run', r.trace]);
    assert.equal(replay.code, 0, replay.stderr);
    assert.ok(replay.stdout.includes(PROGRAM), replay.stdout);
  });

  test('api tools with an agent is refused in one line', async () => {
    const agent = join(work, 'a.agent');
    writeFileSync(agent, '(agent a (state q :text "Question:"))\n');
    const r = await art(['run', agent, '--base-url', 'http://127.0.0.1:9/v1', '--model', 'zoo', '--api', 'tools', '--input', 'x']);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /api "tools" runs ART programs \(\.art\)/);
  });
});
