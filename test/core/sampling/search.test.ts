// Best-first search over steps (core/sampling/search.ts) against the scripted OpenAI-compatible server, which gives
// every token of a script the log-probability set for it: the search follows the lower average NLL, spends exactly
// its budget (counted at the server), and writes the tree it explored as a run with branches that `art diff` reads.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OpenAIModel } from '../../../core/model/openai';
import { ContinuationScript } from '../../../core/replay/script';
import { createArtRunner } from '../../../core/launch/create';
import { diffRuns, runView } from '../../../core/replay/diff';
import { listRuns, readRecords } from '../../../core/trace/history';
import { BudgetedModel, StepSearch, exploredLeaves, pathTo, writeSearchTraces } from '../../../core/sampling/search';
import { MemoryTrace, mainLine } from '../../../core/trace/trace';
import type { ToolLookup } from '../../../core/protocols/types';
import type { Tool } from '../../../core/tools/types';
import { ScriptedServer } from '../../support/scriptedServer';
import { countingLibrary } from '../../support/runs';

const LIBRARY = countingLibrary();

const PREFIX = ' [add one] add one to the input\n#⟂1:⟦ 4⟧\nQ2: [add one] add one to #1\n#⟂2:⟦ 5⟧\n';
/** The long way to 7 (every token at NLL 0.5). */
const LONG = ContinuationScript.parse(
  `${PREFIX}Q3: [add one] add one to #2\n#⟂3:⟦ 6⟧\nQ4: [add one] add one to #3\n#⟂4:⟦ 7⟧\nQ5: [EOQ]\nAns: 7\n----\nDescription: (Other)`,
  'Q1:',
);
/** Likelier at step 3 (NLL 0.1), then writes nothing more. */
const LURE = ContinuationScript.parse(`${PREFIX}Q3: [add one] add one to #1\n#⟂3:⟦ 6⟧\n`, 'Q1:');
/** The same step 3, then a short, unlikely answer (NLL 3). */
const SHORT = ContinuationScript.parse(`${PREFIX}Q3: [add one] add one to #1\n#⟂3:⟦ 6⟧\nQ4: [EOQ]\nAns: 6\n----\nDescription: (Other)`, 'Q1:');

const addOne: Tool = {
  info: { name: 'add one', description: 'adds one to the previous answer', input: 'text', origin: 'user' },
  run: async input => ({ ok: true, output: String(Number(input.previousAnswer ?? '3') + 1) }),
};
const TOOLS: ToolLookup = { get: name => (name.trim().toLowerCase() === 'add one' ? addOne : undefined) };

describe('best-first search over steps', () => {
  // Scripts answer only prompts that follow them: the paths that part stay apart.
  const server = new ScriptedServer({ resync: false });
  before(() => server.start());
  after(() => ScriptedServer.closeAll());

  function setup(k: number, budget: number) {
    server.reset();
    server.setScripts(LONG, LURE, SHORT);
    server.scriptLogprobs.set(LONG, -0.5);
    server.scriptLogprobs.set(LURE, -0.1);
    server.scriptLogprobs.set(SHORT, -3);
    const model = new BudgetedModel(new OpenAIModel({ baseURL: server.baseURL, model: 'scripted', apiKey: 'k' }), budget);
    const trace = new MemoryTrace();
    const runner = createArtRunner({ library: LIBRARY, program: 0 }, { model, tools: TOOLS, trace, stopOnEntry: true, pauseAfterTool: false });
    const lines: string[] = [];
    const search = new StepSearch(runner, model, trace.records, { k, budget, progress: l => lines.push(l) });
    return { search, model, trace, lines };
  }
  /** Model calls as the server counted them: every request, n samples each. */
  const callsAtServer = () => server.requests.reduce((n, q) => n + Number(q.body.n ?? 1), 0);

  test('follows the lower average NLL past a likelier step that leads to an unlikely answer', async () => {
    const { search, lines } = setup(3, 40);
    const r = await search.run();
    assert.equal(r.result.reason, 'finished', r.result.error);
    assert.equal(r.result.answer, '7', 'the long way: its path has the lower average NLL');
    assert.equal(r.scoredBy, 'nll');
    // The lure was reached (its tool ran) and expanded; its only continuation, the short answer, scored worse.
    const reached = [...search.segments.keys()];
    const lure = reached.find(n => n.alt?.text === 'Q3: [add one] add one to #1');
    assert.ok(lure?.expanded, 'the likelier step 3 was expanded');
    const short = lure.children.find(c => c.alt?.then === 'end');
    assert.ok(short && short.score > r.chosen.score, 'the short answer scores worse than the chosen path');
    assert.ok(lure.score < pathTo(r.chosen)[3].score, 'the lure was the likelier step 3');
    assert.ok(!short.reached, 'the worse answer is never run');
    // The chosen score is the average NLL of every token the model wrote on the path (0.1 before step 3, 0.5 after).
    assert.ok(r.chosen.score > 0.1 && r.chosen.score < 0.5, String(r.chosen.score));
    assert.equal(r.calls, callsAtServer(), "the calls the search counted are the server's");
    assert.equal(r.expanded, lines.length - 1, 'one progress line per expansion, then the summary');
    assert.match(lines.at(-1)!, /reached the answer: \d+ node\(s\) expanded, .* model call\(s\); best score 0\.\d+ \(nll\)/);
    // Every request was a sampling request (n = k or what the budget left): nothing was asked twice.
    assert.ok(server.requests.every(q => q.body.stream !== true));
    assert.deepEqual(
      pathTo(r.chosen).map(n => n.depth),
      pathTo(r.chosen).map((_, i) => i),
    );
  });

  test('spends exactly the budget, counted at the server, and stops at the best node reached', async () => {
    for (const budget of [1, 4, 7]) {
      const { search } = setup(3, budget);
      const r = await search.run();
      assert.equal(callsAtServer(), budget, `budget ${budget}: the server saw exactly that many calls`);
      assert.equal(r.calls, budget);
      assert.equal(r.budgetSpent, true);
      assert.equal(r.result.reason, 'stopped', 'no program reached its answer within the budget');
      assert.ok(server.requests.every(q => Number(q.body.n ?? 1) <= 3));
    }
  });

  test('writes the tree: the chosen path as the run, the explored nodes as branches with their own traces', async () => {
    const { search, trace } = setup(3, 40);
    const r = await search.run();
    const dir = mkdtempSync(join(tmpdir(), 'art-search-'));
    try {
      const main = join(dir, 'run.jsonl');
      const files = writeSearchTraces(search, r, main);
      const leaves = exploredLeaves(search, r);
      assert.equal(files.length, 1 + leaves.length);
      assert.ok(leaves.length >= 1, 'the lure is an explored node off the chosen path');
      const { records, errors } = readRecords(readFileSync(main, 'utf8'));
      assert.deepEqual(errors, []);
      // The run's trace is the chosen path: its main line holds no tool call of another path.
      const tools = mainLine(records as never).filter(x => x.t === 'tool');
      assert.deepEqual(
        tools.map(x => (x.t === 'tool' ? x.call.input : '')),
        ['add one to the input', 'add one to #1', 'add one to #2', 'add one to #3'],
      );
      assert.equal(records.filter(x => x.t === 'run').length, 1);
      assert.equal(records.at(-1)!.t, 'end');
      assert.equal(records.at(-1)!.answer, '7');
      assert.equal(records.at(-1)!.text, r.result.snapshot.text);
      // The exploration wrote more than the chosen path: the lure's tool call is only in its branch.
      assert.ok(
        trace.records.some(x => x.t === 'pause' && x.step === 3) &&
          !tools.some(x => x.t === 'tool' && x.call.step === 3 && x.call.input === 'add one to #1'),
      );
      const branches = records.filter(x => x.t === 'branch' && x.why === 'search');
      assert.equal(branches.length, leaves.length);
      const b = branches[0];
      assert.equal(b.step, 2, 'the lure parts from the chosen path after step 2');
      const branchFile = join(dir, String(b.trace));
      assert.ok(existsSync(branchFile));
      const branch = readRecords(readFileSync(branchFile, 'utf8')).records;
      assert.equal(branch.at(-1)!.t, 'end');
      assert.equal(branch.at(-1)!.reason, 'stopped');
      assert.match(String(branch.at(-1)!.text), /Q3: \[add one\] add one to #1\n#3: 6\n$/);
      assert.deepEqual(
        branch.filter(x => x.t === 'tool').map(x => (x.call as { input: string }).input),
        ['add one to the input', 'add one to #1', 'add one to #1'],
        'the branch holds its own third call',
      );
      // The run history lists the run with its branches, and the diff aligns them step by step.
      const [entry] = listRuns(dir);
      assert.equal(entry.summary.answer, '7');
      assert.deepEqual(
        entry.summary.branches.map(x => [x.trace, x.step, x.label?.startsWith('search · nll ')]),
        branches.map(x => [x.trace, 2, true]),
      );
      const d = diffRuns(runView(records), runView(branch));
      assert.ok(d.differing >= 1);
      assert.ok(d.slots.some(s => s.key === 'Q3' && !s.same));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a sampling request the endpoint refuses ends the run and the search says why', async () => {
    const { search } = setup(3, 40);
    // Refused whole and then one sample at a time (the client's fallback for an endpoint that takes no `n`).
    const refusal = { status: 400, message: 'bad request from the scripted server' };
    server.injectFaults(refusal, refusal);
    await assert.rejects(search.run(), /bad request from the scripted server/);
    assert.equal(search.runner.state, 'finished', 'the run is not left paused');
  });

  test('without logprobs the nodes are scored by vote', async () => {
    setup(3, 40);
    // The chat API of the scripted server returns no logprobs for n samples.
    const chat = new BudgetedModel(new OpenAIModel({ baseURL: server.baseURL, model: 'scripted', apiKey: 'k', api: 'chat' }), 12);
    const trace = new MemoryTrace();
    const runner = createArtRunner({ library: LIBRARY, program: 0 }, { model: chat, tools: TOOLS, trace, stopOnEntry: true });
    const s = new StepSearch(runner, chat, trace.records, { k: 3, budget: 12 });
    const r = await s.run();
    assert.equal(r.scoredBy, 'vote');
    assert.ok(r.calls <= 12);
    assert.equal(callsAtServer(), r.calls);
  });
});
