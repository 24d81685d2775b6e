// Replay without an endpoint: the replay model steps through fixture programs with their tools re-executed, and a
// recorded trace runs again without calling anything. Also the recording alignment they both rest on.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArt } from '../../../core/art/parse';
import { OpenAIModel } from '../../../core/model/openai';
import { ReplayModel } from '../../../core/replay/programReplay';
import { ContinuationScript } from '../../../core/replay/script';
import { compileAgent } from '../../../core/agent/compile';
import { parseAgentFile } from '../../../core/agent/parse';
import { createAgentRunner, createArtRunner } from '../../../core/launch/create';
import { MemoryTrace, TraceWriter, readTraceFile } from '../../../core/trace/trace';
import { replayTrace } from '../../../core/replay/traceReplay';
import type { ToolRegistry } from '../../../core/tools/registry';
import { requireDebianPackage } from '../../support/debian';
import { CODEGEN_SCRIPT, DUCKS, DUCKS_SCRIPT, fixturePath, realTools, runWithoutPauses, scriptedSuite } from '../../support/runs';

describe('ContinuationScript', () => {
  const s = ContinuationScript.parse(' [a] x\n#⟂1:⟦ 1⟧\nQ2: [b] y\n#⟂2:⟦ 2⟧\nQ3: [EOQ]\nAns: 2', 'Q1:');

  test('parses slots and call points', () => {
    assert.deepEqual(
      s.parts.map(p => p.kind),
      ['model', 'slot', 'model', 'slot', 'model'],
    );
    assert.deepEqual(s.rest({ part: 0, offset: 0 }), { text: ' [a] x\n#1: 1\nQ2: [b] y\n#2: 2\nQ3: [EOQ]\nAns: 2', callEnds: [8, 24] });
  });

  test('locates a prompt whatever the runner wrote into the slots', () => {
    const at = (written: string) => s.rest(s.locate(`demo Q1: old\nInput: t\nQ1:${written}`)!).text;
    assert.equal(at(''), ' [a] x\n#1: 1\nQ2: [b] y\n#2: 2\nQ3: [EOQ]\nAns: 2');
    assert.equal(at(' [a] x'), '\n#1: 1\nQ2: [b] y\n#2: 2\nQ3: [EOQ]\nAns: 2');
    assert.equal(at(' [a] x\n#1: 99\n'), 'Q2: [b] y\n#2: 2\nQ3: [EOQ]\nAns: 2', 'an overridden output');
    assert.equal(at(' [a] x\n#1:'), ' 1\nQ2: [b] y\n#2: 2\nQ3: [EOQ]\nAns: 2', 'an empty slot: the model writes it (fallback)');
    assert.equal(at(' [a] x\n#1: multi\nline\noutput\n'), 'Q2: [b] y\n#2: 2\nQ3: [EOQ]\nAns: 2');
    assert.equal(at(' [a] x\n#1: 1\nQ2: [b] EDITED\n#2: 7\n'), 'Q3: [EOQ]\nAns: 2', 'an edited input: resynchronised after the next slot');
    assert.equal(s.locate('no anchor here'), null);
    assert.equal(s.locate('Q1: [zz] something else'), null);
  });
});

describe('ReplayModel: fixture programs step through with no endpoint, tools re-executed', { timeout: 120_000 }, () => {
  let tools: ToolRegistry;
  before(async () => {
    tools = await realTools();
  });
  after(() => tools.dispose());

  test('every program of arithmetic.art', async t => {
    requireDebianPackage('python3-sympy');
    const doc = parseArt(readFileSync(fixturePath('programs/arithmetic.art'), 'utf8'));
    const runnable = doc.programs.map((p, i) => ({ p, i })).filter(({ p }) => !p.template);
    assert.equal(runnable.length, 2);
    for (const { p, i } of runnable) {
      const model = ReplayModel.fromArtProgram(doc, i, name => tools.get(name) !== undefined);
      const r = createArtRunner({ library: doc, program: i }, { model, tools, pauseAfterTool: false });
      const toolRuns: string[] = [];
      r.on('toolEnd', ({ call }) => toolRuns.push(`${call.tool}=${call.output ?? `error: ${call.error}`}`));
      const result = await runWithoutPauses(r, t.signal);
      assert.equal(result.reason, 'finished', result.error);
      assert.equal(result.answer, p.ans!.text, `program ${i + 1}`);
      // The code was generated (the replay answers the tool's own prompt with the recorded code) and really run.
      assert.equal(toolRuns.length, 2, toolRuns.join('\n'));
      assert.match(toolRuns[0], /^generate python code=/);
      assert.match(toolRuns[1], /^code execute=/);
      const recorded = p.steps.find(s => s.name === 'code execute')!.answer!.text;
      const ran = result.snapshot.calls[1].output!;
      assert.equal(Number(ran), Number(recorded), `code execute re-ran to ${ran} (recorded ${recorded})`);
      // The replayed program has the same steps as the recorded one.
      assert.deepEqual(
        result.snapshot.steps.map(s => s.name),
        p.steps.map(s => s.name),
      );
    }
  });

  test('the ReACT trace of the fixtures replays with Search and Lookup re-executed over a local corpus', async t => {
    const agent = compileAgent(parseAgentFile(readFileSync(fixturePath('agents/react.agent'), 'utf8')).agents[0]);
    const transcript = readFileSync(fixturePath('traces/react-milhouse.txt'), 'utf8');
    const question = transcript.split('\n')[0].replace(/^\[Question\]\s*/, '');
    const model = ReplayModel.fromAgentTranscript(agent, transcript);
    const r = createAgentRunner({ agent, question }, { model, tools, pauseAfterTool: false });
    const result = await runWithoutPauses(r, t.signal);
    assert.equal(result.reason, 'finished', result.error);
    assert.equal(result.answer, 'Richard Nixon');
    assert.deepEqual(
      result.snapshot.calls.map(c => [c.tool, c.input]),
      [
        ['Search', 'Milhouse'],
        ['Lookup', 'named after'],
      ],
    );
    assert.ok(
      result.snapshot.calls.every(c => c.output && !c.error),
      'the tools ran on the local corpus',
    );
    assert.equal(result.snapshot.text.split('\n').length, transcript.trim().split('\n').length);
  });

  test('a replay departing from the recording says so', async () => {
    const doc = parseArt(readFileSync(fixturePath('programs/arithmetic.art'), 'utf8'));
    const model = ReplayModel.fromArtProgram(doc, 0, () => true);
    await assert.rejects(model.complete({ prompt: 'Input: something else\nQ1: [nothing like it]' }), /does not continue this prompt/);
  });
});

// Bounded: a run that hangs fails the suite (and its `after` still closes the server) instead of the whole unit run.
describe('trace: JSONL, no keys, replay without calling anything', { timeout: 120_000 }, () => {
  const { server, tools } = scriptedSuite({ scripts: [DUCKS_SCRIPT, CODEGEN_SCRIPT] });
  const library = parseArt(readFileSync(fixturePath('programs/arithmetic.art'), 'utf8'));

  test('a recorded run with an override replays to the same program, with no request and no tool run', async () => {
    const key = 'sk-trace-KEY-123456789';
    const file = join(mkdtempSync(join(tmpdir(), 'art-trace-')), 'run.jsonl');
    const writer = new TraceWriter(file, [key]);
    const model = new OpenAIModel({ baseURL: server.baseURL, model: 'scripted', apiKey: key });
    const r = createArtRunner({ library, program: DUCKS }, { model, tools, pauseAfterTool: true, trace: writer });
    r.on('paused', ({ call }) => {
      if (call?.tool === 'code execute') r.setToolOutput('20');
      r.continue();
    });
    const original = await r.run();
    writer.close();
    assert.equal(original.reason, 'finished');
    const raw = readFileSync(file, 'utf8');
    assert.doesNotMatch(raw, /KEY-123456789/, 'no key in the trace');
    const { records, errors } = readTraceFile(file);
    assert.deepEqual(errors, []);
    assert.ok(records.some(x => x.t === 'edit' && x.what === 'output' && x.text === '20'));

    const requestsBefore = server.requests.length;
    const ran: string[] = [];
    const replay = await replayTrace(records, { onRunner: run => run.on('toolStart', ({ call }) => ran.push(call.tool)) });
    assert.equal(server.requests.length, requestsBefore, 'the replay sent no request');
    assert.deepEqual(replay.mismatches, []);
    assert.equal(replay.result.reason, 'finished');
    assert.equal(replay.result.snapshot.text, original.snapshot.text);
    assert.match(replay.result.snapshot.text, /#2: 20\n/);
    assert.deepEqual(ran, ['generate python code', 'code execute'], 'replayed tools (recorded outputs), not real ones');
    assert.equal(replay.result.snapshot.calls[1].override, '20');
  });

  test('memory traces hold every kind of record of a run', async t => {
    const trace = new MemoryTrace();
    const model = new OpenAIModel({ baseURL: server.baseURL, model: 'scripted' });
    await runWithoutPauses(createArtRunner({ library, program: DUCKS }, { model, tools, pauseAfterTool: false, trace }), t.signal);
    const end = trace.records.at(-1)!;
    assert.equal(end.t, 'end');
    assert.ok(end.t === 'end' && end.usage.completionTokens > 0 && end.requests === 3);
    const completions = trace.records.filter(x => x.t === 'completion');
    assert.ok(completions.every(c => c.t === 'completion' && typeof c.text === 'string'));
    assert.match(trace.toJSONL().split('\n')[0], /^\{"t":"run"/);
  });
});
