// `art run` (in-process, test/support/cli.ts): replaying a fixture program with its tools re-executed,
// interactively with overrides typed on stdin, against the scripted OpenAI-compatible server, and failing with one
// clear line. What only a process shows (a signal stopping the run and its sandbox) runs the built CLI as a child.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { descendants, zombie } from '../support/processes';
import { FAST_RETRY, runCli, spawnCli, type RunCliOptions } from '../support/cli';
import { until } from '../support/until';
import { ScriptedServer } from '../support/scriptedServer';
import { CODEGEN_SCRIPT, DUCKS_SCRIPT, fixturePath } from '../support/runs';
import { runUsage } from '../../core/cli/run';
import { ContinuationScript } from '../../core/replay/script';

const PROGRAM = fixturePath('programs/arithmetic.art');
const work = mkdtempSync(join(tmpdir(), 'art-cli-run-'));
/** A lookup, a search and a code execute program, a one-word word list and a two-document corpus. */
const OPTIONS_DIR = join(__dirname, '../fixtures/run-options');
const OPTIONS = join(OPTIONS_DIR, 'options.art');

const art = (args: string[], opts: RunCliOptions = {}) => runCli(args, { cwd: work, ...opts });

describe('art run', () => {
  test('replay: prints the program as it grows and the answer; Python really runs; writes the trace', async () => {
    const trace = join(work, 'replay.jsonl');
    const r = await art(['run', PROGRAM, '--task', 'Elementary Math', '--mode', 'replay', '--trace', trace]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /^Description: \(Elementary Math\)[\s\S]*\nQ1: \[generate python code\][^\n]*\n#1:\ntotal_eggs = 16[\s\S]*\n#2: 18\nQ3: \[EOQ\]\nAns: 18\n\nAnswer: 18\n$/,
    );
    const records = readFileSync(trace, 'utf8')
      .trim()
      .split('\n')
      .map(l => JSON.parse(l));
    const exec = records.find(x => x.t === 'tool' && x.call.tool === 'code execute');
    assert.equal(exec.call.output, '18');
    assert.ok(exec.call.durationMs > 0);
    // A replay asks no endpoint: no token count is claimed, in the summary or the trace.
    assert.match(r.stderr, /\[art\] \d+ requests? \([^)]*\), no tokens reported/);
    assert.deepEqual(records.at(-1).usage, { promptTokens: 0, completionTokens: 0 });
  });

  test('--interactive pauses at each tool call; a typed line overrides the output, an empty line keeps it', async () => {
    const r = await art(['run', PROGRAM, '--task', '1', '--mode', 'replay', '--interactive'], { stdin: '\n42\n' });
    assert.match(r.stderr, /── \[generate python code\] returned[^\n]*:\ntotal_eggs = 16/);
    assert.match(r.stderr, /── \[code execute\] returned[^\n]*:\n18\n── override/);
    assert.match(r.stdout, /\nans = sold_eggs \* dollars_per_egg\nprint\(ans\)\nQ2: /, 'the kept output');
    // The override ends the replay: with no endpoint the run stops there and says why (the recording's `Ans: 18`
    // no longer follows from 42).
    assert.match(r.stdout, /\n#2: 42\n$/, 'the override, and nothing replayed after it');
    assert.match(
      r.stderr,
      /the run ended \(departed\): the run departed from its recording \(#2's output was set by hand\)[^\n]*--base-url and --model/,
    );
    assert.equal(r.code, 1);
  });

  test('--interactive with stdin closed keeps every output', async () => {
    const r = await art(['run', PROGRAM, '--task', '1', '--mode', 'replay', '--interactive', '--quiet'], { stdin: '' });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Answer: 18\n');
  });

  test('--inline-triggers: the calculator answers the <<Calculator>> triggers in the answer the model wrote', async () => {
    // The recording's first number is wrong on purpose: with the option the calculator's 12 replaces it.
    const program = join(work, 'inline-triggers.art');
    const recorded = readFileSync(fixturePath('programs/inline-triggers.art'), 'utf8').replace('3 * 4 <<Calculator>> 12', '3 * 4 <<Calculator>> 13');
    writeFileSync(program, recorded);
    const trace = join(work, 'inline.jsonl');
    const on = await art(['run', program, '--task', '1', '--mode', 'replay', '--inline-triggers', '--interactive', '--trace', trace], { stdin: '' });
    assert.equal(on.code, 0, on.stderr);
    assert.match(
      on.stdout,
      /\n#1: The pens cost 3 \* 4 <<Calculator>> 12 dollars\. The change is 20 - 12 <<Calculator>> 8 dollars\.\nQ2: \[EOQ\]\nAns: 8\n/,
    );
    assert.match(on.stderr, /── \[Calculator\] returned[^\n]*:\n12\n[\s\S]*── \[Calculator\] returned[^\n]*:\n8\n/);
    const calls = readFileSync(trace, 'utf8')
      .trim()
      .split('\n')
      .map(l => JSON.parse(l))
      .filter(x => x.t === 'tool')
      .map(x => [x.call.tool, x.call.input, x.call.output, x.call.inline]);
    assert.deepEqual(calls, [
      ['Calculator', 'The pens cost 3 * 4', '12', true],
      ['Calculator', 'The change is 20 - 12', '8', true],
    ]);
    // Without the option the trigger is text: nothing runs, the recorded 13 stays.
    const plain = await art(['run', program, '--task', '1', '--mode', 'replay', '--interactive'], { stdin: '' });
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /<<Calculator>> 13 dollars/);
    assert.doesNotMatch(plain.stderr, /\[Calculator\] returned/);
  });

  describe('generate mode against the scripted server', () => {
    const server = new ScriptedServer();
    before(async () => {
      await server.start();
      server.setScripts(DUCKS_SCRIPT, CODEGEN_SCRIPT);
    });
    after(() => ScriptedServer.closeAll());

    test('streams from the endpoint with the key from --api-key-env; the override reaches the next request', async () => {
      const r = await art(
        ['run', PROGRAM, '--task', '1', '--base-url', server.baseURL, '--model', 'scripted', '--api-key-env', 'ART_KEY_FOR_TEST', '--interactive'],
        { stdin: '\n7\n', env: { ART_KEY_FOR_TEST: 'sk-cli-test-key' } },
      );
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /#2: 7\nQ3: \[EOQ\]\nAns: 18\n\nAnswer: 18\n$/);
      const last = server.requests.filter(q => !q.prompt.endsWith('Python code:\n')).at(-1)!;
      assert.ok(last.prompt.endsWith('#2: 7\n'), last.prompt.slice(-40));
      assert.equal(server.tokensAfterCall, 0);
    });

    test('a replay whose tool now gives another output than recorded goes on live from there (nothing pretends)', async () => {
      // The recording says 6 * 7 is 41; Python says 42. Without an endpoint the run stops there and says why; with
      // one, the recorded prefix costs nothing and the endpoint writes the rest after the new output.
      const edited = join(work, 'changed-output.art');
      writeFileSync(edited, readFileSync(OPTIONS, 'utf8').replace('#1: 42\nQ2: [EOQ]\nAns: 42', '#1: 41\nQ2: [EOQ]\nAns: 41'));
      const alone = await art(['run', edited, '--task', '2', '--mode', 'replay']);
      assert.equal(alone.code, 1, alone.stderr);
      assert.match(alone.stderr, /departs from its recording here \(#1 \[code execute\] now gives "42" where the recording has "41"\)/);
      assert.doesNotMatch(alone.stdout, /Ans: 41/);
      server.reset();
      server.setScripts(ContinuationScript.parse('Q2: [EOQ]\nAns: 42\n', '#1: 42\n'));
      const live = await art(['run', edited, '--task', '2', '--mode', 'replay', '--base-url', server.baseURL, '--model', 'scripted']);
      assert.equal(live.code, 0, live.stderr);
      assert.match(live.stdout, /#1: 42\nQ2: \[EOQ\]\nAns: 42\n/);
      assert.equal(server.requests.length, 1, 'one request, after the changed output');
      assert.ok(server.requests[0].prompt.endsWith('#1: 42\n'), server.requests[0].prompt.slice(-40));
      server.setScripts(DUCKS_SCRIPT, CODEGEN_SCRIPT);
    });

    test('a task ending at an open `Q1:` is generated from there; one ending at `Q2:` after a step replays it, then the model writes', async () => {
      // The way a person asks the model to go on: `Input: ...` / `Q1:` (the checker says nothing, see the golden
      // fixture open-step.ok.art); with steps before it, those are written as given and the model writes from `Q2:`.
      const demo = 'Description: (Arithmetic) Add two numbers.\nInput: Add 2 and 3.\nQ1: [calculator] 2 + 3\n#1: 5\nQ2: [EOQ]\nAns: 5\n----\n';
      const task = join(work, 'open-step.art');
      writeFileSync(task, `${demo}Description: (Arithmetic) Add two numbers.\nInput: Add 21 and 3.\nQ1:\n`);
      server.reset();
      server.setScripts(ContinuationScript.parse(' [calculator] 21 + 3\n#⟂1:⟦ 24⟧\nQ2: [EOQ]\nAns: 24\n', 'Input: Add 21 and 3.\nQ1:'));
      const fresh = await art(['run', task, '--task', '1', '--base-url', server.baseURL, '--model', 'scripted']);
      assert.equal(fresh.code, 0, fresh.stderr);
      assert.match(fresh.stdout, /Answer: 24\n$/);
      assert.ok(server.requests[0].prompt.endsWith('Input: Add 21 and 3.\nQ1:'), server.requests[0].prompt.slice(-40));

      const half = join(work, 'open-step-2.art');
      writeFileSync(half, `${demo}Description: (Arithmetic) Add two numbers.\nInput: Add 21 and 3.\nQ1: [calculator] 21 + 3\n#1: 24\nQ2:\n`);
      const alone = await art(['run', half, '--task', '1', '--mode', 'replay']);
      assert.equal(alone.code, 1, alone.stderr);
      assert.match(alone.stderr, /the program ends at Q2:, where the model writes/);
      for (const mode of ['replay', 'generate']) {
        server.reset();
        server.setScripts(ContinuationScript.parse(' [EOQ]\nAns: 24\n', '#1: 24\nQ2:'));
        const r = await art(['run', half, '--task', '1', '--mode', mode, '--base-url', server.baseURL, '--model', 'scripted']);
        assert.equal(r.code, 0, `${mode}: ${r.stderr}`);
        assert.match(r.stdout, /#1: 24\nQ2: \[EOQ\]\nAns: 24\n/, mode);
        assert.equal(server.requests.length, 1, `${mode}: one request, from Q2:`);
        assert.ok(server.requests[0].prompt.endsWith('#1: 24\nQ2:'), server.requests[0].prompt.slice(-40));
      }
      server.setScripts(DUCKS_SCRIPT, CODEGEN_SCRIPT);
    });

    test('--search K --budget N: progress lines, a summary, the answer; the run and its tree go into .art/runs', async () => {
      server.setScripts(DUCKS_SCRIPT, CODEGEN_SCRIPT);
      server.reset();
      const cwd = mkdtempSync(join(tmpdir(), 'art-cli-search-'));
      const args = ['run', PROGRAM, '--task', '1', '--base-url', server.baseURL, '--model', 'scripted', '--cwd', cwd, '--search', '2'];
      const r = await art([...args, '--budget', '12']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /\nQ3: \[EOQ\]\nAns: 18\n\nAnswer: 18\n$/);
      assert.match(r.stderr, /\[art\] search: expanded node 0 \(step 0, score 0\.000\): 2 sample\(s\), 1 distinct/);
      const summary =
        /\[art\] search: (\d+) node\(s\) expanded, (\d+) reached, \d+ sampled; (\d+) of 12 model call\(s\); best score [\d.]+ \(average NLL\); trace: (\S+\.jsonl)/.exec(
          r.stderr,
        );
      assert.ok(summary, r.stderr);
      const calls = server.requests.reduce((n, q) => n + Number(q.body.n ?? 1), 0);
      assert.equal(Number(summary[3]), calls, "the calls counted are the calls the server saw (samples and the code tool's own request)");
      assert.ok(calls <= 12);
      const runs = join(cwd, '.art', 'runs');
      assert.equal(summary[4].startsWith(runs), true);
      const ids = readdirSync(runs).filter(f => f.endsWith('.json'));
      assert.equal(ids.length, 1, 'the run and its summary are in the run history');
      const saved = JSON.parse(readFileSync(join(runs, ids[0]), 'utf8'));
      assert.equal(saved.answer, '18');
      assert.equal(saved.status, 'finished');

      // A budget too small to reach the answer: exactly that many calls, exit 1, and what to do.
      server.reset();
      const short = await art([...args, '--budget', '3', '--quiet']);
      assert.equal(short.code, 1);
      assert.equal(
        server.requests.reduce((n, q) => n + Number(q.body.n ?? 1), 0),
        3,
      );
      assert.match(short.stderr, /the search ended without an answer \(the budget of 3 model calls was spent first; give a larger --budget\)/);
    });

    test('--search needs an endpoint and no --interactive; --budget needs --search', async () => {
      const replay = await art(['run', PROGRAM, '--task', '1', '--search', '2']);
      assert.equal(replay.code, 2);
      assert.match(replay.stderr, /^art run: --search samples continuations from the model: give an endpoint \(--base-url and --model\)/m);
      const budget = await art(['run', PROGRAM, '--task', '1', '--budget', '5']);
      assert.equal(budget.code, 2);
      assert.match(budget.stderr, /--budget is the budget of --search: give --search K too/);
      const bad = await art(['run', PROGRAM, '--search', '0', '--base-url', server.baseURL, '--model', 'scripted']);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /--search: expected an integer from 1 to 16, not 0/);
    });

    test('--rerank: search scores its passages with logprobs requests to the endpoint', async () => {
      server.setScripts(
        ContinuationScript.parse(' [search] Who is Milhouse named after?\n#⟂1:⟦ Richard Nixon⟧\nQ2: [EOQ]\nAns: Richard Nixon\n', 'Q1:'),
      );
      const args = ['run', OPTIONS, '--task', '1', '--base-url', server.baseURL, '--model', 'scripted', '--cwd', OPTIONS_DIR, '--corpus', 'corpus'];
      server.reset();
      const plain = await art(args);
      assert.equal(plain.code, 0, plain.stderr);
      assert.equal(server.requests.filter(q => q.body.logprobs).length, 0);
      server.reset();
      const r = await art([...args, '--rerank']);
      assert.equal(r.code, 0, r.stderr);
      const scoring = server.requests.filter(q => q.body.logprobs);
      assert.ok(
        scoring.some(q => q.prompt.endsWith('\n\nQuestion: Who is Milhouse named after?')),
        scoring.map(q => q.prompt.slice(-60)).join('\n'),
      );
    });

    test('--samples runs through tool calls: nobody answers a pause (the samples paused after the first tool and exited 0)', async () => {
      const anchor = 'How many dollars does he take at the market each day?\nQ1:';
      server.setScripts(ContinuationScript.parse(` [calculator] 3 * 6\n#1: 18\nQ2: [EOQ]\nAns: 18\n----\nDescription: (Next)`, anchor));
      server.rotateScripts = true;
      const r = await art(['run', PROGRAM, '--task', '1', '--base-url', server.baseURL, '--model', 'scripted', '--samples', '2']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^Answer: 18\n$/);
      assert.match(r.stderr, /\[art\] vote: 2 of 2 samples/);
    });

    test('--samples 3 --trace: three programs vote; each sample writes its trace, the vote at its end', async () => {
      const anchor = 'How many dollars does he take at the market each day?\nQ1:';
      const script = (answer: string) => ContinuationScript.parse(` [EOQ]\nAns: ${answer}\n----\nDescription: (Next)`, anchor);
      server.setScripts(script('18'), script('32'), script('18.'));
      server.rotateScripts = true;
      try {
        const trace = join(work, 'samples.jsonl');
        const r = await art(['run', PROGRAM, '--task', '1', '--base-url', server.baseURL, '--model', 'scripted', '--samples', '3', '--trace', trace]);
        assert.equal(r.code, 0, r.stderr);
        // Which sample got which script depends on the order the requests arrived in: "18" or "18." wins.
        assert.match(r.stdout, /^Answer: 18\.?\n$/);
        assert.match(r.stderr, /\[art\] vote: 2 of 3 samples/);
        const answers = [1, 2, 3].map(k => {
          const path = join(work, `samples.sample-${k}.jsonl`);
          assert.match(r.stderr, new RegExp(`\\[art\\] sample ${k}: answer "[^"]+"; trace: ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
          const records = readFileSync(path, 'utf8')
            .trim()
            .split('\n')
            .map(l => JSON.parse(l));
          assert.deepEqual(records[0].sample, { index: k, of: 3 });
          const vote = records.at(-1);
          assert.equal(vote.t, 'vote');
          assert.match(vote.answer, /^18\.?$/);
          assert.equal(vote.agree, 2, 'the normalised "18." agrees with "18"');
          return vote.samples[k - 1].answer;
        });
        assert.deepEqual(answers.sort(), ['18', '18.', '32']);
      } finally {
        server.rotateScripts = false;
      }
    });
  });

  test("--help is the help generated from the run options' declaration", async () => {
    const r = await art(['run', '--help']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${runUsage()}\n`);
    assert.match(r.stdout, /--rerank /);
    assert.match(r.stdout, /--word-list FILE /);
    assert.match(r.stdout, /--python-timeout-ms MS /);
  });

  test("--word-list: a custom word list changes lookup's answer (relative to --cwd)", async () => {
    // The recording says "twins"; with this word list lookup says "nwist", so the replay cannot go on (no endpoint).
    const own = await art(['run', OPTIONS, '--task', '0', '--mode', 'replay', '--cwd', OPTIONS_DIR, '--word-list', 'words.txt']);
    assert.match(own.stdout, /\n#1: nwist\n/);
    assert.match(own.stderr, /The run departs from its recording here \(#1 \[lookup\] now gives "nwist" where the recording has "twins"\)/);
    assert.equal(own.code, 1, own.stderr);
    const missing = await art([
      'run',
      OPTIONS,
      '--task',
      '0',
      '--mode',
      'replay',
      '--word-list',
      join(work, 'none.txt'),
      '--trace',
      join(work, 'words.jsonl'),
    ]);
    assert.match(readFileSync(join(work, 'words.jsonl'), 'utf8'), /the word list [^"]*none\.txt is missing/);
    assert.equal(missing.code, 0, 'the model writes the output of a failed tool');
  });

  test('--python-timeout-ms: a tiny limit makes code execute time out', async () => {
    const trace = join(work, 'timeout.jsonl');
    const r = await art(['run', OPTIONS, '--task', '2', '--mode', 'replay', '--python-timeout-ms', '5', '--trace', trace]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /code execute failed \(\[code execute\] stopped after the time limit of 0\.005 s\)/);
    const exec = readFileSync(trace, 'utf8')
      .trim()
      .split('\n')
      .map(l => JSON.parse(l))
      .find(x => x.t === 'tool');
    assert.equal(exec.call.error, '[code execute] stopped after the time limit of 0.005 s');
  });

  test('--rerank in replay mode says it is unavailable', async () => {
    const r = await art(['run', OPTIONS, '--task', '1', '--mode', 'replay', '--corpus', join(OPTIONS_DIR, 'corpus'), '--rerank', '--quiet']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /\[art\] search reranking is unavailable in replay mode/);
  });

  test('errors are one line, exit 2: missing file, bad task, no endpoint, bad option value, binary or huge file', async () => {
    const binary = join(work, 'binary.art');
    writeFileSync(binary, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0]));
    const huge = join(work, 'huge.art');
    writeFileSync(huge, '');
    truncateSync(huge, 600 * 1024 * 1024);
    const cases: [string[], RegExp][] = [
      [['run', join(work, 'nope.art')], /^art run: .*nope\.art: no such file\n$/],
      [['run', PROGRAM, '--task', 'Nope', '--mode', 'replay'], /^art run: no task named "Nope": the file has 0: Aqua-rat, 1: Elementary Math\n$/],
      [['run', PROGRAM, '--task', '9', '--mode', 'replay'], /^art run: no program 9/],
      [['run', PROGRAM, '--mode', 'generate'], /^art run: no model: give a local GGUF model file \(modelFile \/ --model-file\), or the base URL/],
      [['run', PROGRAM, '--mode', 'fast'], /^art run: --mode: expected "generate" or "replay", not "fast"\n$/],
      [['run', PROGRAM, '--temperature', 'hot'], /^art run: --temperature: expected a number from 0 to 2, not "hot"\n$/],
      [['run', PROGRAM, '--python-timeout-ms', '0'], /^art run: --python-timeout-ms: expected an integer of at least 1, not 0\n$/],
      [['run', PROGRAM, '--word-list'], /^art run: Option '--word-list <value>' argument missing \(art run --help lists the options\)\n$/],
      [['run', PROGRAM, '--bogus'], /^art run: Unknown option '--bogus' \(art run --help lists the options\)\n$/],
      [['run', PROGRAM, '--base-url', 'http://127.0.0.1:9/v1', '--mode', 'generate'], /^art run: no model/],
      [['run', join(work)], /is a directory/],
      [['run', binary, '--mode', 'replay'], /^art run: .*binary\.art: not a text file \(it holds NUL bytes/],
      [['run', huge, '--mode', 'replay'], /^art run: .*huge\.art: too large \(600 MB; the limit is 100 MB\)\n$/],
    ];
    for (const [args, message] of cases) {
      const r = await art(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message);
      assert.equal(r.stdout, '');
    }
  });

  test('a named pipe as the tool file: the run goes on without it and says why (it used to hang)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'art-cli-fifo-'));
    const tools = join(dir, 'tools.json');
    assert.equal(spawnSync('mkfifo', [tools]).status, 0);
    const r = await art(['run', PROGRAM, '--mode', 'replay', '--quiet', '--tools', tools]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /\[art\] tools: .*tools\.json: not a regular file \(a named pipe\) \(fix: make it a regular JSON file\)/);
    assert.match(r.stdout, /^Answer: /m);
  });

  test('a run that cannot reach its endpoint ends with exit 1 and says why', async () => {
    // The retries a few milliseconds apart instead of the default backoff (0.5 s doubling: 7.5 s for the four).
    const r = await art(['run', PROGRAM, '--task', '1', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm'], { retry: FAST_RETRY });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^\[art\] retry 4 in \d ms: connection error$/m);
    assert.match(r.stderr, /art run: the run ended \(error\): .*\(after 4 retries\)/);
  });
});

describe('art run and its sandbox (issue 8)', () => {
  const SLOW = `Description: (Slow) A code step that sleeps
Input: wait
Q1: [generate python code] Sleep, then set ans
#1:
import time
time.sleep(30)
ans = 1
Q2: [code execute] Execute the python code in #1 and get the value of "ans"
#2: 1
Q3: [EOQ]
Ans: 1
`;

  test('the first line says the sandbox level and what it does not isolate', async () => {
    const r = await art(['run', PROGRAM, '--task', 'Elementary Math', '--mode', 'replay', '--quiet']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr.split('\n')[0], /^\[art\] tools: Python sandbox: .+; not isolated: .+\.$/);
  });

  test("SIGTERM stops the run: the code step's processes end, scratch folders go, the CLI says so and exits 1", async () => {
    const program = join(work, 'slow.art');
    writeFileSync(program, SLOW);
    const child = spawnCli(['run', program, '--mode', 'replay', '--quiet'], { cwd: work });
    child.stdin.end();
    let stderr = '';
    child.stderr.on('data', d => (stderr += d));
    const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(resolve =>
      child.on('close', (code, signal) => resolve({ code, signal })),
    );
    try {
      // Wait for the code step's Python (not the sandbox's start-up probes, which run before the run begins).
      const python = () =>
        descendants(child.pid!).some(pid => {
          try {
            return readFileSync(`/proc/${pid}/cmdline`, 'latin1').startsWith('/usr/bin/python3\0-I\0');
          } catch {
            return false;
          }
        });
      await until(python, { what: "the code step's Python" });
      const tree = descendants(child.pid!);
      assert.ok(tree.length >= 2, `the code step started (${tree.length} processes)`);
      child.kill('SIGTERM');
      const { code, signal } = await closed;
      assert.equal(signal, null, 'the CLI handled SIGTERM');
      assert.equal(code, 1);
      assert.match(stderr, /art run: the run ended \(stopped\)/);
      // The kernel ends the sandbox's processes as their namespace goes, a moment after the CLI's exit.
      const left = () => tree.filter(pid => existsSync(`/proc/${pid}`) && !zombie(pid));
      await until(() => left().length === 0, { what: `the code step's processes ${left().join(', ')} to end` });
      assert.deepEqual(
        readdirSync(tmpdir()).filter(n => n.startsWith(`art-python-${child.pid}-`)),
        [],
      );
    } finally {
      child.kill('SIGKILL');
    }
  });
});
