// OpenTelemetry export (core/telemetry): what a span costs, and what a collector that is down, failing or silent
// costs a run. Per span: the mapping from trace records alone, the mapping with the SDK's span creation and queueing
// (the part a run's process pays when the run ends), and the export to a local OTLP receiver (batched protobuf over
// HTTP, in the background). Then `art run` (in process, against the scripted server) without telemetry and with a
// collector that is down (a closed port), answers 500, or never answers: the run's time (to its summary line) and the
// command's (with the bounded wait for the last spans at its end), medians.
import type { TraceRecord } from '../core/trace/schema';
import { runSpans, type RunInfo } from '../core/telemetry/spans';
import { Telemetry } from '../core/telemetry/otlp';
import { Readable } from 'node:stream';
import { runCommand } from '../core/cli/run';
import { endTelemetry } from '../core/launch/session';
import { OtlpReceiver, freePort, NO_OTEL, ScriptedServer, ARITHMETIC_LIBRARY, arithmeticExamples, arithmeticScripts } from '../test/support/bench';

const INFO: RunInfo = { title: 'bench', mode: 'generate', api: 'completions', provider: 'openai', model: 'm' };

/** A run of `calls` tool calls, each after a request, then a last request: 2 * calls + 2 spans. */
function syntheticRun(calls: number): TraceRecord[] {
  const prompt = 'x'.repeat(4000);
  const out: TraceRecord[] = [{ t: 'run', at: 0, kind: 'art', model: 'm', honoursStop: true, prompt, header: 'Q1:', config: {}, options: {} }];
  let at = 1;
  for (let n = 1; n <= calls + 1; n++) {
    out.push({ t: 'request', at: at++, n, prompt, stop: ['\n#'], maxTokens: 512, temperature: 0 });
    for (let k = 0; k < 10; k++) out.push({ t: 'chunk', at: at++, n, text: ' token' });
    out.push({ t: 'completion', at: at++, n, text: ' token'.repeat(10), finishReason: 'stop', usage: { promptTokens: 1000, completionTokens: 10 } });
    if (n <= calls) out.push({ t: 'tool', at: at++, call: { id: n, tool: 'calculator', input: '1 + 1', step: n, output: '2', durationMs: 1 } });
  }
  out.push({ t: 'end', at: at++, reason: 'finished', answer: '2', text: '', usage: { promptTokens: 0, completionTokens: 0 }, requests: calls + 1 });
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function perSpan(receiver: OtlpReceiver): Promise<Record<string, string>> {
  const calls = 200;
  const records = syntheticRun(calls);
  const spans = 2 * calls + 2;
  const out: Record<string, string> = {};
  for (const content of [false, true]) {
    const opts = { content, redact: (s: string) => s };
    const label = content ? ', with content' : '';
    for (let i = 0; i < 5; i++) runSpans(records, INFO, opts); // warm up
    const reps = 50;
    let t = performance.now();
    for (let i = 0; i < reps; i++) runSpans(records, INFO, opts);
    out[`otel: spans of a run mapped from its records${label} (us per span)`] = (((performance.now() - t) * 1000) / (reps * spans)).toFixed(2);

    const telemetry = new Telemetry({ url: `${receiver.baseURL}/v1/traces`, headers: {}, serviceName: 'bench', content });
    const runs = 10;
    let ending = 0;
    let exporting = 0;
    for (let i = 0; i < runs + 2; i++) {
      const answered = receiver.answered;
      const sink = telemetry.runSink(INFO, []);
      for (const r of records.slice(0, -1)) sink.write(r);
      t = performance.now();
      sink.write(records.at(-1)!); // the end: the spans are made, queued and their export started
      const ended = performance.now();
      await receiver.waitForAnswered(answered + 1);
      if (i < 2) continue; // warm up
      ending += ended - t;
      exporting += performance.now() - ended;
    }
    receiver.clear();
    await telemetry.shutdown();
    out[`otel: at the run end, in its thread: mapped, made with the SDK, queued, serialized${label} (us per span)`] = (
      (ending * 1000) /
      (runs * spans)
    ).toFixed(2);
    out[`otel: then sent to a local collector over HTTP, in the background${label} (us per span)`] = ((exporting * 1000) / (runs * spans)).toFixed(2);
  }
  return out;
}

async function runTimes(receiver: OtlpReceiver): Promise<Record<string, string>> {
  const server = await new ScriptedServer({ tokenDelayMs: 0 }).start();
  server.setScripts(...arithmeticScripts());
  const eggs = arithmeticExamples()[0];
  const dead = `http://127.0.0.1:${await freePort()}`;
  const env = { ...process.env, ...NO_OTEL };
  const once = async (otlp: string[]): Promise<[number, number]> => {
    let runEnd = 0;
    const t = performance.now();
    // As `art run` is: the command, then the wait for its last spans (core/cli/main.ts).
    const code = await runCommand(
      [
        ARITHMETIC_LIBRARY,
        '--task',
        'Elementary Math',
        '--input',
        eggs.input,
        '--base-url',
        server.baseURL,
        '--model',
        'scripted',
        '--quiet',
        ...otlp,
      ],
      {
        err: () => undefined,
        write: s => {
          if (s.includes('Answer: ')) runEnd = performance.now();
        },
        stdin: Readable.from([]),
        env,
      },
    ).finally(endTelemetry);
    if (code !== 0) throw new Error(`bench otel: art run exited ${code}`);
    return [runEnd - t, performance.now() - t];
  };
  const cases: [string, () => void, string[]][] = [
    ['no telemetry', () => undefined, []],
    ['a local collector', () => (receiver.mode = 'ok'), ['--otlp', receiver.baseURL]],
    ['a collector that is down', () => undefined, ['--otlp', dead]],
    ['a collector answering 500', () => (receiver.mode = 'error-500'), ['--otlp', receiver.baseURL]],
    ['a collector that never answers', () => (receiver.mode = 'hang'), ['--otlp', receiver.baseURL]],
  ];
  const out: Record<string, string> = {};
  try {
    await once([]); // warm up
    for (const [what, set, otlp] of cases) {
      set();
      const runs: number[] = [];
      const commands: number[] = [];
      for (let i = 0; i < 15; i++) {
        const [run, command] = await once(otlp);
        runs.push(run);
        commands.push(command);
      }
      out[`otel: art run with ${what}: the run (ms, median of 15)`] = median(runs).toFixed(1);
      out[`otel: art run with ${what}: the command, with its last spans (ms, median of 15)`] = median(commands).toFixed(1);
    }
  } finally {
    receiver.mode = 'ok';
    await server.close();
  }
  return out;
}

export async function benchOtel(): Promise<Record<string, string>> {
  const receiver = await new OtlpReceiver().start();
  try {
    return { ...(await perSpan(receiver)), ...(await runTimes(receiver)) };
  } finally {
    await receiver.close();
  }
}
