// OpenTelemetry export from `art run` and `art eval` (in-process, test/support/cli.ts) against the scripted
// OpenAI-compatible server, to a local OTLP/HTTP receiver (test/support/otlpReceiver.ts decodes the protobuf the
// exporter sends): the spans' names, GenAI attributes and parent links, the evaluation's per-example spans with their
// scores, content only when asked for, no key anywhere; nothing sent without configuration; a collector that is
// down, answers 500 or never answers changes neither the run's output nor its exit code, and is one line.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ScriptedServer } from '../support/scriptedServer';
import { runCli } from '../support/cli';
import { OtlpReceiver, type ReceivedSpan } from '../support/otlpReceiver';
import { arithmeticEval, eggsWithKey, freePort, NO_OTEL } from '../support/telemetry';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createArtMcpServer } from '../../core/cli/mcp';
import { endTelemetry } from '../../core/launch/session';
import { ARITHMETIC_LIBRARY, arithmeticExamples, arithmeticScripts } from '../support/arithmeticModel';

const work = mkdtempSync(join(tmpdir(), 'art-cli-otlp-'));
const KEY = 'sk-test-Otlp8fK2mWp4Lx9Rb7Tn3V12345';
const COLLECTOR_SECRET = 'collector-secret-9f8e7d6c5b4a';
const eggs = arithmeticExamples().find(e => e.id === 'eggs')!;
const { input: KEYED_INPUT, script: withKey } = eggsWithKey(KEY);
/** The eggs example with the collector's token in its input, without its `Bearer ` prefix. */
const { input: TOKEN_INPUT, script: withToken } = eggsWithKey(COLLECTOR_SECRET);

const byName = (spans: ReceivedSpan[], prefix: string) => spans.filter(s => s.name.startsWith(prefix));
const telemetryLines = (stderr: string) => stderr.split('\n').filter(l => l.includes('telemetry:'));

describe('OpenTelemetry export', () => {
  let server: ScriptedServer;
  let receiver: OtlpReceiver;
  before(async () => {
    server = await new ScriptedServer({ tokenDelayMs: 0 }).start();
    server.setScripts(...arithmeticScripts(), withKey, withToken);
    receiver = await new OtlpReceiver().start();
  });
  after(async () => {
    await receiver.close();
    await ScriptedServer.closeAll();
  });
  const runArgs = (input = eggs.input) => [
    'run',
    ARITHMETIC_LIBRARY,
    '--task',
    'Elementary Math',
    '--input',
    input,
    '--base-url',
    server.baseURL,
    '--model',
    'scripted',
    '--temperature',
    '0',
  ];
  const evalArgs = (out: string) => arithmeticEval(server.baseURL, out);
  const art = (args: string[], env: NodeJS.ProcessEnv = {}) => runCli(args, { cwd: work, env: { ...NO_OTEL, OPENAI_API_KEY: KEY, ...env } });
  const fresh = () => {
    receiver.clear();
    receiver.mode = 'ok';
  };

  test('art run with the standard variables: a run span, its requests and tool call as children, GenAI attributes, no content, no key', async () => {
    fresh();
    const r = await art(runArgs(), {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.baseURL,
      OTEL_EXPORTER_OTLP_HEADERS: `authorization=Bearer%20${COLLECTOR_SECRET},x-team=art`,
      OTEL_SERVICE_NAME: 'art-under-test',
    });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(telemetryLines(r.stderr), []);
    assert.ok(receiver.requests.every(q => q.path === '/v1/traces' && q.headers['content-type'] === 'application/x-protobuf'));
    assert.equal(receiver.requests[0].headers.authorization, `Bearer ${COLLECTOR_SECRET}`);
    assert.equal(receiver.requests[0].headers['x-team'], 'art');

    const spans = receiver.spans;
    const [run] = byName(spans, 'invoke_agent ');
    assert.ok(run, spans.map(s => s.name).join(', '));
    assert.equal(run.parentSpanId, '');
    assert.equal(run.resource['service.name'], 'art-under-test');
    assert.equal(run.attributes['openinference.span.kind'], 'CHAIN');
    assert.equal(run.attributes['gen_ai.operation.name'], 'invoke_agent');
    assert.equal(run.attributes['gen_ai.provider.name'], 'openai');
    assert.equal(run.attributes['gen_ai.request.model'], 'scripted');
    assert.equal(run.attributes['art.run.mode'], 'generate');
    assert.equal(run.attributes['art.run.end_reason'], 'finished');
    assert.equal(run.attributes['art.run.tool_calls'], 1);

    const requests = byName(spans, 'text_completion scripted');
    assert.equal(requests.length, run.attributes['art.run.requests']);
    assert.ok(requests.length >= 2);
    for (const q of requests) {
      assert.equal(q.parentSpanId, run.spanId);
      assert.equal(q.traceId, run.traceId);
      assert.equal(q.kind, 3, 'a CLIENT span');
      assert.equal(q.attributes['openinference.span.kind'], 'LLM');
      assert.equal(q.attributes['gen_ai.operation.name'], 'text_completion');
      assert.equal(q.attributes['gen_ai.request.max_tokens'], 512);
      assert.equal(q.attributes['gen_ai.request.temperature'], 0);
      assert.equal(typeof q.attributes['gen_ai.usage.output_tokens'], 'number');
      assert.equal(typeof q.attributes['gen_ai.usage.input_tokens'], 'number');
      assert.deepEqual(q.attributes['gen_ai.response.finish_reasons'], ['stop']);
      assert.ok(q.start >= run.start && q.end <= run.end);
    }
    const [tool] = byName(spans, 'execute_tool ');
    assert.equal(tool.name, 'execute_tool calculator');
    assert.equal(tool.parentSpanId, run.spanId);
    assert.equal(tool.attributes['openinference.span.kind'], 'TOOL');
    assert.equal(tool.attributes['gen_ai.tool.name'], 'calculator');
    assert.equal(tool.attributes['gen_ai.tool.call.id'], '1');

    // Content is opt-in: no prompt, completion, tool input or output, answer.
    for (const s of spans)
      for (const k of ['input.value', 'output.value', 'gen_ai.tool.call.arguments', 'gen_ai.tool.call.result'])
        assert.equal(s.attributes[k], undefined, `${s.name}: ${k}`);
    const bodies = Buffer.concat(receiver.requests.map(q => q.body)).toString('latin1');
    assert.ok(!bodies.includes(eggs.input), 'the input is not sent');
    for (const secret of [KEY, KEY.slice(3), COLLECTOR_SECRET]) assert.ok(!bodies.includes(secret), secret);
  });

  test('--otlp-content puts the prompts, completions and tool input and output in, the key redacted', async () => {
    fresh();
    const r = await art([...runArgs(KEYED_INPUT), '--otlp', receiver.baseURL, '--otlp-content']);
    assert.equal(r.code, 0, r.stderr);
    const [run] = byName(receiver.spans, 'invoke_agent ');
    assert.match(String(run.attributes['input.value']), /Janet has 16 eggs.*\(my key is \*\*\*\)/s);
    const [first] = byName(receiver.spans, 'text_completion ');
    assert.match(String(first.attributes['input.value']), /my key is \*\*\*/);
    assert.equal(typeof first.attributes['output.value'], 'string');
    const [tool] = byName(receiver.spans, 'execute_tool ');
    assert.equal(tool.attributes['gen_ai.tool.call.arguments'], '16 - 3 - 4');
    assert.equal(tool.attributes['gen_ai.tool.call.result'], '9');
    const bodies = Buffer.concat(receiver.requests.map(q => q.body)).toString('latin1');
    for (const secret of [KEY, KEY.slice(3), KEY.slice(8)]) assert.ok(!bodies.includes(secret), secret);
  });

  test('art eval --otlp: an evaluation span, one child per example with its score, each example the parent of its run', async () => {
    fresh();
    const out = join(work, 'eval.results.jsonl');
    const r = await art([...evalArgs(out), '--concurrency', '3', '--otlp', `${receiver.baseURL}/v1/traces`]);
    assert.equal(r.code, 0, r.stderr);
    const spans = receiver.spans;
    const [evaluation] = byName(spans, 'evaluate ');
    assert.equal(evaluation.parentSpanId, '');
    assert.equal(evaluation.attributes['art.eval.done'], 6);
    assert.equal(evaluation.attributes['art.eval.exact'], 5);
    const examples = byName(spans, 'example ');
    assert.deepEqual(
      examples.map(e => e.attributes['art.eval.example']).sort(),
      arithmeticExamples()
        .map(e => e.id)
        .sort(),
    );
    for (const ex of examples) {
      assert.equal(ex.parentSpanId, evaluation.spanId);
      const right = ex.attributes['art.eval.example'] !== 'pages';
      assert.equal(ex.attributes['gen_ai.evaluation.score.value'], right ? 1 : 0, String(ex.name));
      assert.equal(ex.attributes['gen_ai.evaluation.score.label'], right ? 'correct' : 'incorrect');
      assert.deepEqual(
        ex.events.map(e => [e.name, e.attributes['gen_ai.evaluation.name']]),
        [
          ['gen_ai.evaluation.result', 'exact'],
          ['gen_ai.evaluation.result', 'substring'],
        ],
      );
      const runs = spans.filter(s => s.parentSpanId === ex.spanId);
      assert.equal(runs.length, 1, `${ex.name}: one run`);
      assert.match(runs[0].name, /^invoke_agent /);
      const children = spans.filter(s => s.parentSpanId === runs[0].spanId).map(s => s.name);
      assert.ok(children.includes('execute_tool calculator') && children.includes('text_completion scripted'), children.join(', '));
    }
    assert.equal(new Set(spans.map(s => s.traceId)).size, 1, 'one trace');
  });

  test("art mcp: a run through the run tool is sent where the server's environment says; no tool takes otlp from its caller", async () => {
    fresh();
    const env = { ...process.env, ...NO_OTEL, OPENAI_API_KEY: KEY, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.baseURL } as NodeJS.ProcessEnv;
    for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
    // The library lies outside the server's folder: art mcp is started with --allow-path for it.
    const { server: mcp } = createArtMcpServer({ cwd: work, env, log: () => undefined, start: { allowPaths: [dirname(ARITHMETIC_LIBRARY)] } });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await mcp.connect(serverSide);
    const client = new Client({ name: 'art-otlp-test', version: '1' });
    await client.connect(clientSide);
    try {
      const { tools } = await client.listTools();
      for (const t of tools) for (const k of ['otlp', 'otlpContent']) assert.ok(!(k in (t.inputSchema.properties ?? {})), `${t.name} takes ${k}`);
      const r = await client.callTool({
        name: 'run',
        arguments: { file: ARITHMETIC_LIBRARY, task: 'Elementary Math', input: eggs.input, baseURL: server.baseURL, model: 'scripted' },
      });
      assert.ok(!r.isError, JSON.stringify(r.content));
    } finally {
      await client.close();
    }
    await endTelemetry();
    const [run] = byName(receiver.spans, 'invoke_agent ');
    assert.ok(run, receiver.spans.map(s => s.name).join(', '));
    assert.equal(byName(receiver.spans, 'execute_tool calculator')[0]?.parentSpanId, run.spanId);
  });

  test('the token of an Authorization header is kept out of the spans without its "Bearer " prefix too (issue 37)', async () => {
    fresh();
    const r = await art([...runArgs(TOKEN_INPUT), '--otlp-content'], {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.baseURL,
      OTEL_EXPORTER_OTLP_HEADERS: `authorization=Bearer%20${COLLECTOR_SECRET}`,
    });
    assert.equal(r.code, 0, r.stderr);
    const [run] = byName(receiver.spans, 'invoke_agent ');
    assert.match(String(run.attributes['input.value']), /\(my key is \*\*\*\)/);
    const bodies = Buffer.concat(receiver.requests.map(q => q.body)).toString('latin1');
    assert.ok(!bodies.includes(COLLECTOR_SECRET), 'the token was exported');
  });

  test('no credential of the OTLP URL (user:password@, a secret in the query) is printed (issue 37)', async () => {
    fresh();
    receiver.mode = 'error-500';
    const secrets = ['pa55-word-in-url', 'query-secret-123'];
    const withCredentials = (base: string) => `${base.replace('://', '://team:pa55-word-in-url@')}/v1/traces?api_key=query-secret-123`;
    const failing = await art([...runArgs(), '--otlp', withCredentials(receiver.baseURL)]);
    assert.equal(telemetryLines(failing.stderr).length, 1, failing.stderr);
    assert.match(telemetryLines(failing.stderr)[0], /cannot send spans to http:\/\/127\.0\.0\.1:\d+\/v1\/traces \(HTTP 500/);
    // An endpoint of the variables no exporter takes is one line; --otlp with one is refused as the option's value.
    const unusable = await art(runArgs(), { OTEL_EXPORTER_OTLP_ENDPOINT: withCredentials('ftp://collector.example') });
    assert.equal(telemetryLines(unusable.stderr).length, 1, unusable.stderr);
    assert.match(telemetryLines(unusable.stderr)[0], /telemetry: .*ftp:\/\/collector\.example\/v1\/traces /);
    const refused = await art([...runArgs(), '--otlp', withCredentials('ftp://collector.example')]);
    assert.equal(refused.code, 2, refused.stderr);
    for (const r of [failing, unusable, refused])
      for (const s of secrets) assert.ok(!`${r.stdout}${r.stderr}`.includes(s), `${s} was printed: ${r.stderr}`);
  });

  test('without configuration nothing is sent: the receiver listening gets no request', async () => {
    fresh();
    const r = await art(runArgs());
    assert.equal(r.code, 0, r.stderr);
    const e = await art(evalArgs(join(work, 'quiet.jsonl')));
    assert.equal(e.code, 0, e.stderr);
    assert.equal(receiver.requests.length, 0);
  });

  test('a collector that is down, answers 500 or never answers: the same output and exit code, and one line', async () => {
    fresh();
    const plain = await art(runArgs());
    const answer = plain.stdout.match(/^Ans: .*$/m)?.[0];
    assert.ok(answer, plain.stdout);

    const down = await art([...runArgs(), '--otlp', `http://127.0.0.1:${await freePort()}`]);
    receiver.mode = 'error-500';
    const failing = await art([...runArgs(), '--otlp', receiver.baseURL]);
    receiver.mode = 'hang';
    const hanging = await art([...runArgs(), '--otlp', receiver.baseURL]);
    for (const [what, r] of [
      ['down', down],
      ['500', failing],
      ['hang', hanging],
    ] as const) {
      assert.equal(r.code, 0, `${what}: ${r.stderr}`);
      assert.equal(r.stdout.match(/^Ans: .*$/m)?.[0], answer, what);
      assert.equal(telemetryLines(r.stderr).length, 1, `${what}: ${r.stderr}`);
    }
    assert.match(telemetryLines(failing.stderr)[0], /cannot send spans to http:\/\/127\.0\.0\.1:\d+\/v1\/traces \(HTTP 500/);
    assert.match(telemetryLines(hanging.stderr)[0], /took no spans within 1000 ms/);
  });
});
