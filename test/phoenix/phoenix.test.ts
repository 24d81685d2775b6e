// Against a real engine: Arize Phoenix (test/support/phoenix.ts starts `phoenix serve` on 127.0.0.1 and stops it).
// `art run` with the standard OTEL_* variables and `art eval --otlp` against the scripted OpenAI-compatible server
// send their spans there; read back through Phoenix's REST API, they have the names, kinds, GenAI attributes and
// parent links the export gives them, the evaluation its per-example spans with their scores, and no key anywhere.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Phoenix, requirePhoenix, type PhoenixSpan } from '../support/phoenix';
import { arithmeticEval, eggsWithKey, NO_OTEL } from '../support/telemetry';
import { ScriptedServer } from '../support/scriptedServer';
import { runCli } from '../support/cli';
import { ARITHMETIC_LIBRARY, arithmeticExamples, arithmeticScripts } from '../support/arithmeticModel';

requirePhoenix();

const work = mkdtempSync(join(tmpdir(), 'art-phoenix-test-'));
const KEY = 'sk-test-Phx7Zq8fK2mWp4Lx9Rb7Tn3V1234';
const { input: KEYED_INPUT, script: withKey } = eggsWithKey(KEY);

describe('spans in Arize Phoenix', () => {
  // Each test's spans are alone in their project: the run's in "art-runs", the evaluation's in "default".
  let phoenix: Phoenix;
  let server: ScriptedServer;
  before(async () => {
    phoenix = await Phoenix.start();
    server = await new ScriptedServer({ tokenDelayMs: 0 }).start();
    server.setScripts(...arithmeticScripts(), withKey);
  });
  after(async () => {
    await ScriptedServer.closeAll();
    await phoenix?.stop();
  });
  const endpoint = () => ['--base-url', server.baseURL, '--model', 'scripted', '--temperature', '0'];
  const art = (args: string[], env: NodeJS.ProcessEnv = {}) => runCli(args, { cwd: work, env: { ...NO_OTEL, OPENAI_API_KEY: KEY, ...env } });
  /**
   * Phoenix stores what it is sent in the background: its spans once `ok` holds of them. A state with no event to
   * await, read through a request (so not until(), whose predicate is synchronous): polled every 250 ms, 30 s at most.
   */
  const stored = async (what: string, ok: (s: PhoenixSpan[]) => boolean, project = 'default'): Promise<PhoenixSpan[]> => {
    const end = Date.now() + 30_000;
    for (;;) {
      const got = await phoenix.spans(project);
      if (ok(got)) return got;
      if (Date.now() > end)
        throw new Error(`timed out after 30000 ms waiting for ${what}; Phoenix has ${got.length} span(s): ${got.map(x => x.name).join(', ')}`);
      await new Promise(r => setTimeout(r, 250));
    }
  };

  /** Every run span there with all its children (its requests and tool calls): Phoenix may store a batch in parts. */
  const wholeRuns = (s: PhoenixSpan[], runs: number) => {
    const found = s.filter(x => x.name.startsWith('invoke_agent '));
    const children = (r: PhoenixSpan) => s.filter(x => x.parent_id === r.context.span_id).length;
    const expected = (r: PhoenixSpan) => Number(r.attributes['art.run.requests']) + Number(r.attributes['art.run.tool_calls']);
    return found.length === runs && found.every(r => children(r) === expected(r));
  };

  test('art run with OTEL_EXPORTER_OTLP_ENDPOINT: the run, its requests and its tool call, parented, with GenAI attributes and scrubbed content', async () => {
    const r = await art(['run', ARITHMETIC_LIBRARY, '--task', 'Elementary Math', '--input', KEYED_INPUT, ...endpoint(), '--otlp-content'], {
      OTEL_EXPORTER_OTLP_ENDPOINT: phoenix.baseURL,
      OTEL_SERVICE_NAME: 'art-phoenix-test',
      // Phoenix files a run under the project its resource names.
      OTEL_RESOURCE_ATTRIBUTES: 'openinference.project.name=art-runs',
    });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(!r.stderr.includes('telemetry:'), r.stderr);
    const spans = await stored('the run and its requests and tool call in Phoenix', s => wholeRuns(s, 1), 'art-runs');
    const run = spans.find(s => s.name.startsWith('invoke_agent '))!;
    assert.equal(run.parent_id, null);
    assert.equal(run.span_kind, 'CHAIN');
    assert.equal(run.attributes['gen_ai.request.model'], 'scripted');
    assert.equal(run.attributes['art.run.end_reason'], 'finished');
    const children = spans.filter(s => s.parent_id === run.context.span_id);
    const requests = children.filter(s => s.name === 'text_completion scripted');
    assert.equal(requests.length, run.attributes['art.run.requests']);
    for (const q of requests) {
      assert.equal(q.span_kind, 'LLM');
      assert.equal(q.attributes['gen_ai.operation.name'], 'text_completion');
      assert.equal(q.attributes['gen_ai.request.max_tokens'], 512);
      assert.equal(q.attributes['gen_ai.request.temperature'], 0);
      assert.equal(typeof q.attributes['gen_ai.usage.output_tokens'], 'number');
      assert.deepEqual(q.attributes['gen_ai.response.finish_reasons'], ['stop']);
    }
    const tool = children.find(s => s.name === 'execute_tool calculator')!;
    assert.ok(tool, children.map(s => s.name).join(', '));
    assert.equal(tool.span_kind, 'TOOL');
    assert.equal(tool.attributes['gen_ai.tool.name'], 'calculator');
    assert.equal(tool.attributes['gen_ai.tool.call.id'], '1');
    assert.equal(tool.attributes['output.value'], '9');
    assert.match(String(run.attributes['input.value']), /\(my key is \*\*\*\)/);
    const all = JSON.stringify(spans);
    for (const secret of [KEY, KEY.slice(3), KEY.slice(8)]) assert.ok(!all.includes(secret), `a form of the key in Phoenix: ${secret}`);
  });

  test('art eval --otlp: the evaluation, one span per example with its score, each the parent of its run', async () => {
    const out = join(work, 'eval.results.jsonl');
    const r = await art([...arithmeticEval(server.baseURL, out), '--temperature', '0', '--otlp', phoenix.baseURL]);
    assert.equal(r.code, 0, r.stderr);
    const n = arithmeticExamples().length;
    const all = await stored(
      `the evaluation's ${n} examples and their runs in Phoenix`,
      s => s.some(x => x.name.startsWith('evaluate ')) && s.filter(x => x.name.startsWith('example ')).length === n && wholeRuns(s, n),
    );
    const evaluation = all.find(s => s.name.startsWith('evaluate '))!;
    assert.equal(evaluation.parent_id, null);
    assert.equal(evaluation.attributes['art.eval.exact'], 5);
    const examples = all.filter(s => s.parent_id === evaluation.context.span_id);
    assert.equal(examples.length, n);
    for (const ex of examples) {
      const id = ex.attributes['art.eval.example'];
      assert.equal(ex.attributes['gen_ai.evaluation.score.value'], id === 'pages' ? 0 : 1, String(id));
      const runs = all.filter(s => s.parent_id === ex.context.span_id);
      assert.deepEqual(
        runs.map(s => s.name.split(' ')[0]),
        ['invoke_agent'],
        String(id),
      );
      assert.ok(
        all.some(s => s.parent_id === runs[0].context.span_id && s.name === 'execute_tool calculator'),
        String(id),
      );
    }
    assert.ok(!JSON.stringify(all).includes(KEY.slice(8)), 'no key');
  });
});
