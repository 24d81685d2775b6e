// `art mcp`'s tools in process: an SDK Client talks to the server (core/cli/mcp.ts) over the SDK's InMemoryTransport,
// one test per tool (check, run, test, evaluate with progress, cancellation and resumption, show_prompt, constrain)
// and the stepping session (debug_start, debug_continue with and without an override, debug_step_back, debug_stop,
// every session stopped when the client goes). Results are read from their structured content, checked against the
// tool's output schema by the client, and their text.
import { REDACTED } from '../../core/common/redact';
import { REFUSAL, ZOO_LIBRARY, ZOO_PROGRAM, ZooServer } from '../support/modelZoo';
import { acceptancePair } from '../support/evalResults';
import { loadResultsFile } from '../../core/evaluation/header';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createArtMcpServer } from '../../core/cli/mcp';
import type { McpStart } from '../../core/cli/mcpCommon';
import type { HeadlessSessions } from '../../core/agentTools/sessions';
import { ContinuationScript } from '../../core/replay/script';
import { fixturePath } from '../support/fixtures';
import { ScriptedServer } from '../support/scriptedServer';
import { ARITHMETIC_DATA, ARITHMETIC_LIBRARY, arithmeticExamples, arithmeticScripts, runsAtServer } from '../support/arithmeticModel';

const ROOT = resolve(__dirname, '../..');
const LIBRARY = 'examples/library.art';
const work = mkdtempSync(join(tmpdir(), 'art-mcp-tools-'));
const SECRET = 'sk-mcp-test-secret-4242';
const BAKER = 'A baker makes 12 loaves a day. She keeps 2 for her family and sells the rest for $3 each. How much money does she make in a week?';

interface Connected {
  start: McpStart;
  client: Client;
  sessions: HeadlessSessions;
  close(): Promise<void>;
  log: string[];
}

/** The flags the tests start the server with: the temporary folder and the repository allowed, the test's key variable. */
const testStart = (): McpStart => ({ allowPaths: [work, ROOT], apiKeyEnv: 'MCP_TEST_KEY', keyOrigins: [] });

async function connect(cwd = ROOT, start: McpStart = testStart()): Promise<Connected> {
  const log: string[] = [];
  const { server, sessions } = createArtMcpServer({ cwd, env: { ...process.env, MCP_TEST_KEY: SECRET }, log: l => log.push(l), start });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'art-mcp-test', version: '1' });
  await client.connect(clientSide);
  return { start, client, sessions, log, close: () => client.close() };
}

type Result = CallToolResult & { structuredContent?: Record<string, unknown> };
const call = async (c: Connected, name: string, args: Record<string, unknown>): Promise<Result> =>
  (await c.client.callTool({ name, arguments: args })) as Result;
const text = (r: Result) => (r.content[0] as { text: string }).text;
const data = (r: Result): any => {
  assert.ok(!r.isError, `the tool failed: ${text(r)}`);
  return r.structuredContent;
};

describe('art mcp tools (in process)', () => {
  let c: Connected;
  before(async () => (c = await connect()));
  after(async () => {
    await c.close();
    await ScriptedServer.closeAll();
  });

  test('the tools are listed, each with an input and an output schema', async () => {
    const { tools } = await c.client.listTools();
    const names = tools.map(t => t.name);
    for (const n of [
      'check',
      'run',
      'test',
      'evaluate',
      'improve',
      'show_prompt',
      'compare',
      'constrain',
      'debug_start',
      'debug_continue',
      'debug_step_back',
      'debug_stop',
    ])
      assert.ok(names.includes(n), `${n} is listed`);
    for (const t of tools) {
      assert.equal(t.inputSchema.type, 'object', t.name);
      assert.equal(t.outputSchema?.type, 'object', t.name);
    }
    const run = tools.find(t => t.name === 'run')!;
    assert.ok(run.inputSchema.properties?.file, 'the file is an input');
    assert.ok(run.inputSchema.properties?.temperature, 'the run options are inputs');
    assert.equal(run.inputSchema.properties?.samples, undefined, "samples is art run's, not the tool's");
  });

  test("check: each file's diagnostics with code, 0-based range and message; relative paths start at the server's folder", async () => {
    const typo = join(work, 'typo.art');
    writeFileSync(typo, readFileSync(join(ROOT, LIBRARY), 'utf8').replace('[code execute]', '[code exectue]'));
    const r = await call(c, 'check', { files: [typo, LIBRARY, 'missing.art'] });
    const d = data(r);
    assert.deepEqual(
      d.files.map((f: { file: string }) => f.file),
      [typo, LIBRARY, 'missing.art'],
    );
    const found = d.files[0].diagnostics.find((x: { code: string }) => x.code === 'tool-name-typo');
    assert.ok(found, text(r));
    assert.match(found.message, /did you mean `\[code execute\]`/);
    assert.deepEqual(found.range.start, { line: 28, character: 5 });
    assert.deepEqual(d.files[1].diagnostics, [], 'the example library has no problems');
    assert.equal(d.files[2].diagnostics[0].code, 'unreadable-file');
    assert.match(text(r), /typo\.art:29:6: warning: .* \[tool-name-typo\]/);
    assert.match(d.summary, /^checked 2 of 3 files: .*; 1 could not be read$/);
  });

  test('check: a missing file alone is an error naming it and the fix, never "no problems"', async () => {
    const r = await call(c, 'check', { files: ['missing.art'] });
    assert.equal(r.isError, true, text(r));
    assert.match(text(r), /missing\.art: no such file: check the path/);
    assert.match(text(r), /nothing checked: 1 file could not be read/);
    assert.doesNotMatch(text(r), /no problems/);
    const twice = await call(c, 'check', { files: ['missing.art', './missing.art'] });
    assert.equal(twice.isError, true, 'a file named twice is still one file not read');
    assert.match(text(twice), /nothing checked: 1 file could not be read/);
    const typo = join(work, 'alias-typo.art');
    writeFileSync(typo, readFileSync(join(ROOT, LIBRARY), 'utf8').replace('[code execute]', '[code exectue]'));
    const aliases = data(await call(c, 'check', { files: [typo, `${work}/./alias-typo.art`, 'missing.art'] }));
    assert.match(aliases.summary, /^checked 1 of 2 files: 1 warning; 1 could not be read$/);
    assert.deepEqual(
      aliases.files.map((f: { diagnostics: { code: string }[] }) => f.diagnostics.map(d => d.code)),
      [['tool-name-typo'], ['tool-name-typo'], ['unreadable-file']],
      "each name gets its file's diagnostics",
    );
  });

  test('run: replays Elementary Math to 210 with the program written and its calls', async () => {
    const r = await call(c, 'run', { file: LIBRARY, task: 'Elementary Math' });
    const d = data(r);
    assert.equal(d.status, 'finished');
    assert.equal(d.answer, '210');
    assert.equal(d.mode, 'replay');
    assert.match(d.program, /#2: 210\nQ3: \[EOQ\]\nAns: 210/);
    assert.deepEqual(
      d.calls.map((x: { tool: string; output: string }) => [x.tool, x.output.trim().split('\n').at(-1)]),
      [
        ['generate python code', 'print(ans)'],
        ['code execute', '210'],
      ],
    );
    assert.match(text(r), /Answer: 210$/);
  });

  test('run: a missing file, an unknown task and a value out of bounds are errors, each one line', async () => {
    const missing = await call(c, 'run', { file: 'no-such.art' });
    assert.equal(missing.isError, true);
    assert.equal(text(missing), `no-such.art: no such file: check the path (relative paths start at ${ROOT}, the server's working directory)`);
    const bad = await call(c, 'run', { file: LIBRARY, task: 'No Such Task' });
    assert.equal(bad.isError, true);
    assert.doesNotMatch(text(bad), /\n/);
    assert.match(text(bad), /No Such Task/);
    const schema = await call(c, 'run', { file: LIBRARY, temperature: 5 });
    assert.equal(schema.isError, true, 'the input schema bounds the options');
  });

  test('run: generate mode reads the key from the variable art mcp was started with and never shows it in a result', async () => {
    const server = await new ScriptedServer({ tokenDelayMs: 0 }).start();
    server.setScripts(ContinuationScript.parse(` [EOQ]\nAns: the key is ${SECRET}\n----\nDescription: more`, `Input: ${BAKER}\nQ1:`));
    c.start.keyOrigins = [server.baseURL];
    const r = await call(c, 'run', { file: LIBRARY, task: 'Elementary Math', baseURL: server.baseURL, model: 'scripted' });
    const d = data(r);
    assert.equal(d.mode, 'generate');
    assert.equal(d.status, 'finished');
    assert.equal(d.answer, `the key is ${REDACTED}`);
    assert.ok(!JSON.stringify(r).includes(SECRET), 'the key is in no part of the result');
    assert.equal(server.requests.length, 1, 'the endpoint was called');
  });

  test('run: a live run whose model refuses ends "malformed" with the reason, as a result, not a schema error', async () => {
    const zoo = await new ZooServer('refusal').start();
    try {
      const library = join(work, 'zoo.art');
      writeFileSync(library, ZOO_LIBRARY);
      const r = await call(c, 'run', { file: library, task: String(ZOO_PROGRAM), baseURL: zoo.baseURL, model: 'zoo', api: 'chat' });
      const d = data(r);
      assert.equal(d.status, 'malformed');
      assert.ok(!d.program.includes(REFUSAL), 'the refusal is not written into the program');
      assert.match(d.error ?? '', /sorry/i);
    } finally {
      await zoo.close();
    }
  });

  test("run: a chat reply repaired is in the notes, as art run reports it; the mode's description is art mcp's rule", async () => {
    const zoo = await new ZooServer('wrapper').start();
    try {
      const library = join(work, 'zoo-wrapper.art');
      writeFileSync(library, ZOO_LIBRARY);
      const d = data(await call(c, 'run', { file: library, task: String(ZOO_PROGRAM), baseURL: zoo.baseURL, model: 'zoo', api: 'chat' }));
      assert.equal(d.status, 'finished', d.error);
      assert.ok(
        d.notes.some((n: string) => /^request \d+: the chat reply was repaired: /.test(n)),
        `a repair note in: ${JSON.stringify(d.notes)}`,
      );
    } finally {
      await zoo.close();
    }
    const mode = (await c.client.listTools()).tools.find(t => t.name === 'run')!.inputSchema.properties?.mode as { description: string };
    assert.doesNotMatch(mode.description, /In VS Code/);
    assert.match(
      mode.description,
      /Default: replay, unless an endpoint is given \(baseURL and model, or art mcp started with --base-url and --model\)/,
    );
  });

  test('test: per program pass/fail with recorded and computed outputs, and "N passed, N failed"', async () => {
    const ok = await call(c, 'test', { files: [LIBRARY], tools: 'deterministic' });
    assert.equal(data(ok).summary, '6 passed, 0 failed');
    assert.deepEqual(data(ok).notes, [], '"tools" says which steps are compared: it is no tool file');
    assert.match(text(ok), /^PASS examples\/library\.art:38 program 3 \(Elementary Math\)$/m);
    const r = await call(c, 'test', { files: [fixturePath('programs/library-test.art')] });
    const d = data(r);
    assert.equal(d.summary, '1 passed, 2 failed');
    const sums = d.programs.find((p: { title: string }) => p.title === 'Sums');
    assert.equal(sums.passed, false);
    assert.equal(sums.line, 15);
    const step = sums.steps.find((s: { ok: boolean }) => !s.ok);
    assert.deepEqual([step.tool, step.recorded, step.got], ['code execute', '5', '4']);
    assert.match(d.programs.find((p: { title: string }) => p.title === 'Unfinished').error, /the recording ends at #1/);
    assert.match(text(r), /recorded: 5\n\s+got:\s+4/);
    const agent = await call(c, 'test', { files: ['examples/agents/react.agent'] });
    assert.equal(agent.isError, true);
    assert.match(text(agent), /react\.agent: art test runs the programs of task libraries/);
  });

  test('show_prompt: the prompt of a run, its demonstrations and why each was chosen', async () => {
    const r = await call(c, 'show_prompt', { file: LIBRARY, task: 'Elementary Math' });
    const d = data(r);
    assert.ok(d.prompt.endsWith(`Input: ${BAKER}\nQ1:`), d.prompt.slice(-200));
    assert.equal(d.title, 'Elementary Math');
    assert.deepEqual(
      d.demonstrations.map((x: { title: string }) => x.title),
      ['Arithmetic', 'Arithmetic', 'Physics Questions', 'Word Unscramble', 'Sports Understanding'],
    );
    assert.match(d.demonstrations[0].why, /^same-file/);
    assert.match(text(r), /Physics Questions/);
  });

  test("constrain: an agent's constraint as a regex and a grammar; an unknown state names the states", async () => {
    const d = data(await call(c, 'constrain', { spec: 'examples/agents/react.agent' }));
    assert.equal(d.agent, 'react-agent');
    assert.equal(d.state, null);
    assert.match(d.regex, /\\\[Question\\\]/);
    assert.match(d.gbnf, /^root ::= /m);
    const after = data(await call(c, 'constrain', { spec: 'examples/agents/react.agent', state: 'Ques' }));
    assert.notEqual(after.regex, d.regex, 'from a later state the constraint differs');
    const bad = await call(c, 'constrain', { spec: 'examples/agents/react.agent', state: 'nope' });
    assert.equal(bad.isError, true);
    assert.match(text(bad), /has no state "nope" in its behavior: use one of Ques, /);
  });

  test("compare: two evaluations paired by id (the issue's example: 0.60 and 0.70, 15 fixed, 5 broken, p = 0.0414, one only in B)", async () => {
    const [ra, rb] = acceptancePair();
    const write = (name: string, results: unknown[]) => {
      const path = join(work, name);
      writeFileSync(path, results.map(r => JSON.stringify(r)).join('\n') + '\n');
      return path;
    };
    const a = write('compare-a.results.jsonl', ra);
    const b = write('compare-b.results.jsonl', rb);
    const r = await call(c, 'compare', { a, b });
    const d = data(r);
    assert.equal(d.a.accuracy, 0.6);
    assert.equal(d.b.accuracy, 0.7);
    assert.equal(d.fixed.length, 15);
    assert.equal(d.broken.length, 5);
    assert.equal(d.pValue.toFixed(4), '0.0414');
    assert.equal(d.onlyB, 1);
    assert.match(text(r), /15 fixed/);
    const missing = await call(c, 'compare', { a, b: join(work, 'nope.results.jsonl') });
    assert.equal(missing.isError, true);
    assert.match(text(missing), /nope\.results\.jsonl/);
  });

  test('a stepping session: pauses at each tool, steps back, and an override departs the replay with the reason', async () => {
    const first = data(await call(c, 'debug_start', { file: LIBRARY, task: 'Elementary Math' }));
    assert.equal(first.status, 'paused');
    assert.equal(first.tool, 'generate python code');
    assert.equal(first.step, 1);
    assert.match(first.output, /ans = \(loaves_per_day - kept\) \* price \* days/);
    assert.match(
      first.program,
      /Q1: \[generate python code\] .*\n#1:\nloaves_per_day = 12\n[^]*print\(ans\)\n?$/,
      "the program so far ends with the tool's output",
    );
    const session = first.session;
    const second = data(await call(c, 'debug_continue', { session }));
    assert.deepEqual([second.status, second.tool, second.output, second.step], ['paused', 'code execute', '210', 2]);
    assert.equal(second.previousAnswer?.includes('print(ans)'), true, 'the code it ran');
    const back = data(await call(c, 'debug_step_back', { session }));
    assert.deepEqual([back.status, back.tool], ['paused', 'generate python code']);
    assert.ok(!back.program.includes('Q2:'), 'the program is as it was at the first pause');
    assert.equal(back.canStepBack, true);
    const again = data(await call(c, 'debug_continue', { session }));
    assert.deepEqual([again.tool, again.output], ['code execute', '210']);
    const end = data(await call(c, 'debug_continue', { session, output: '999' }));
    assert.equal(end.status, 'departed');
    assert.match(end.program, /#2: 999\n?$/);
    assert.match(end.error, /departed from its recording \(#2's output was set by hand\)/);
    // The way on is said in the MCP tools' own arguments, not the editor's status bar or the command line's flags.
    assert.match(end.error, /"baseURL" and "model".*debug_step_back/);
    assert.doesNotMatch(end.error, /status bar|--base-url and --model\)? and run again/);
    // A departed session is kept: a step back replays to the pause it departed from, where the output can be set again.
    assert.equal(c.sessions.size, 1, 'a departed session is kept for Step Back and Stop');
    const refusedContinue = await call(c, 'debug_continue', { session });
    assert.equal(refusedContinue.isError, true);
    assert.match(text(refusedContinue), /departed from its recording and ended: debug_step_back/);
    const before = data(await call(c, 'debug_step_back', { session }));
    assert.deepEqual([before.status, before.tool, before.output], ['paused', 'code execute', '210']);
    const stopped = data(await call(c, 'debug_stop', { session }));
    assert.equal(stopped.status, 'stopped');
    assert.equal(c.sessions.size, 0, 'a stopped session is forgotten');
    const gone = await call(c, 'debug_continue', { session });
    assert.equal(gone.isError, true);
    assert.match(text(gone), new RegExp(`no session "${session}": it ended or was never started; start one with debug_start`));
  });

  test('a session continued to its end finishes with the answer; debug_stop ends one half-way; a refused override keeps it paused', async () => {
    const a = data(await call(c, 'debug_start', { file: LIBRARY, task: 'Elementary Math' }));
    data(await call(c, 'debug_continue', { session: a.session }));
    const done = data(await call(c, 'debug_continue', { session: a.session }));
    assert.deepEqual([done.status, done.answer], ['finished', '210']);
    const b = data(await call(c, 'debug_start', { file: LIBRARY, task: 'Elementary Math' }));
    const start = data(await call(c, 'debug_step_back', { session: b.session }));
    assert.deepEqual([start.reason, start.canStepBack], ['entry', false]);
    assert.ok(start.program.endsWith(`Input: ${BAKER}\nQ1:`), 'back at the start: the header only');
    const refused = await call(c, 'debug_step_back', { session: b.session });
    assert.equal(refused.isError, true);
    assert.match(text(refused), /^art mcp: session \d+: stepBack: the run is at its start/);
    const override = await call(c, 'debug_continue', { session: b.session, output: 'x' });
    assert.equal(override.isError, true, 'no tool call is paused at the start');
    assert.match(text(override), /is not paused at a tool call/);
    const stopped = data(await call(c, 'debug_stop', { session: b.session }));
    assert.equal(stopped.status, 'stopped');
    assert.equal(c.sessions.size, 0);
  });

  test('every session is stopped when the client goes', async () => {
    const other = await connect();
    const s = data(await call(other, 'debug_start', { file: LIBRARY, task: 'Elementary Math' }));
    assert.equal(s.status, 'paused');
    assert.equal(other.sessions.size, 1);
    await other.close();
    // Closing the connection closes the server's side, which stops the sessions (the map is emptied at once).
    assert.equal(other.sessions.size, 0);
  });
});

describe('art mcp evaluate (in process)', () => {
  let server: ScriptedServer;
  let c: Connected;
  before(async () => {
    server = await new ScriptedServer({ tokenDelayMs: 0 }).start();
    server.setScripts(...arithmeticScripts());
    c = await connect(work);
  });
  after(async () => {
    await c.close();
    await ScriptedServer.closeAll();
  });

  const args = (out: string) => ({
    library: ARITHMETIC_LIBRARY,
    data: ARITHMETIC_DATA,
    out,
    task: 'Elementary Math',
    baseURL: server.baseURL,
    model: 'scripted',
    concurrency: 1,
  });

  test('scores the dataset with a progress notification per example', async () => {
    const progress: { progress: number; total?: number; message?: string }[] = [];
    const r = (await c.client.callTool({ name: 'evaluate', arguments: args(join(work, 'all.jsonl')) }, undefined, {
      onprogress: p => void progress.push(p),
    })) as Result;
    const d = data(r);
    const n = arithmeticExamples().length;
    assert.deepEqual([d.total, d.done, d.stopped, d.summary.n, d.summary.exact], [n, n, false, n, n - 1]);
    assert.equal(d.resultsPath, join(work, 'all.jsonl'));
    assert.ok(existsSync(d.resultsPath));
    assert.deepEqual(
      progress.slice(1).map(p => p.progress),
      Array.from({ length: n }, (_, i) => i + 1),
    );
    assert.ok(progress.every(p => p.total === n));
    assert.match(progress.find(p => p.message?.startsWith('pages'))!.message!, /^pages: wrong \(answer "6", target "8"\)/);
    assert.match(text(r), /results: .*all\.jsonl/);
  });

  test('cancelled, it stops; called again, it resumes without running a finished example twice', async () => {
    server.reset();
    const out = join(work, 'resume.jsonl');
    const controller = new AbortController();
    let firstDone = false;
    const cancelled = c.client.callTool({ name: 'evaluate', arguments: args(out) }, undefined, {
      signal: controller.signal,
      onprogress: p => {
        if (p.progress >= 1 && !firstDone) {
          firstDone = true;
          controller.abort(new Error('cancelled by the test'));
        }
      },
    });
    await assert.rejects(cancelled);
    // Called again with the same arguments: it waits for the cancelled evaluation to stop, then runs what is left.
    const n = arithmeticExamples().length;
    const r = data(await call(c, 'evaluate', args(out)));
    assert.equal(r.done, n);
    assert.ok(r.already >= 1 && r.already < n, `the cancelled call finished some examples, not all: ${r.already}`);
    // The results file: its header (what produced it), then one line per example.
    const { header, results: lines } = loadResultsFile(out);
    assert.ok(header, 'the results file starts with its header');
    assert.equal(lines.length, n, 'one line per example');
    assert.equal(new Set(lines.map(l => l.id)).size, n);
    const runs = runsAtServer(server);
    for (const { id } of lines.slice(0, r.already))
      assert.equal(runs[id], 1, `${id} finished before the cancel and did not run again: ${JSON.stringify(runs)}`);
  });

  test('a missing dataset is a one-line error naming it', async () => {
    const r = await call(c, 'evaluate', { ...args(join(work, 'x.jsonl')), data: 'nope.jsonl' });
    assert.equal(r.isError, true);
    assert.equal(text(r), `nope.jsonl: no such file: check the path (relative paths start at ${work}, the server's working directory)`);
  });
});
