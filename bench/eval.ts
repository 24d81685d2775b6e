// `art eval` throughput against the scripted server answering every request after a fixed delay (a busy endpoint):
// examples per second at concurrency 1, 4, 16 and 64, and the speed-up over concurrency 1. The endpoint is where
// the work scales; the client must keep it busy, so the speed-up should stay close to the concurrency.
//
// The endpoint runs in a process of its own (this bundle started with `--endpoint`), as a real one runs elsewhere:
// in one process the server's own request handling would take CPU from the client being measured. The client's CPU
// time per example is reported too: it is what bounds throughput once the endpoint is fast enough.
import { fork, type ChildProcess } from 'node:child_process';
import { parseArt } from '../core/art/parse';
import { RequestLimiter } from '../core/model/limiter';
import { OpenAIModel } from '../core/model/openai';
import { ContinuationScript } from '../core/replay/script';
import { createArtRunner } from '../core/launch/create';
import { runEval } from '../core/evaluation/eval';
import { ScriptedServer } from '../test/support/bench';

/**
 * Two endpoints: 1 s per request, about what a served model takes for one step of a program (the figure the speed-up
 * target is about), and 100 ms, a fast endpoint, where the client's own CPU time per example becomes the bound on
 * this 2-core machine (the rows say how much that is).
 */
const DELAYS_MS = [1000, 100];
/** Examples per run: waves of the concurrency (8 at 100 ms, 4 at 1 s), so start-up and the last wave weigh little. */
const examplesAt = (c: number, delay: number) => (delay >= 1000 ? 4 : 8) * Math.max(2, c);
const LIBRARY = parseArt('Description: (Echo) Say the number.\nInput: 1\nQ1: [EOQ]\nAns: 1\n');

/** In the endpoint process: serve the scripted model and tell the parent where. */
export async function serveEndpoint(delayMs: number): Promise<void> {
  const server = await new ScriptedServer({ tokenDelayMs: 0, requestDelayMs: delayMs }).start();
  server.setScripts(ContinuationScript.parse(' [EOQ]\nAns: 7\n----', 'Q1:'));
  process.send!({ baseURL: server.baseURL });
  process.on('disconnect', () => void server.close().then(() => process.exit(0)));
}

function startEndpoint(delayMs: number): Promise<{ child: ChildProcess; baseURL: string }> {
  const child = fork(process.argv[1], ['--endpoint', String(delayMs)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', m => resolve({ child, baseURL: (m as { baseURL: string }).baseURL }));
    child.once('exit', code => reject(new Error(`bench eval: the endpoint process exited (${code})`)));
  });
}

export async function benchEval(): Promise<Record<string, string | number>> {
  const out: Record<string, string | number> = {};
  for (const delay of DELAYS_MS) Object.assign(out, await atDelay(delay));
  return out;
}

async function atDelay(delay: number): Promise<Record<string, string | number>> {
  const { child, baseURL } = await startEndpoint(delay);
  const examples = Array.from({ length: examplesAt(64, delay) }, (_, i) => ({ id: String(i), input: `number ${i}`, target: '7', line: i + 1 }));
  const out: Record<string, string | number> = {};
  const at = `at ${delay} ms per request,`;
  try {
    let base = 0;
    // One SDK client, a sibling model per run, as `art eval` has them (core/launch/launch.ts).
    const endpoint = new OpenAIModel({ baseURL, model: 'scripted' });
    for (const c of [1, 4, 16, 64]) {
      const limiter = new RequestLimiter(c);
      const n = examplesAt(c, delay);
      let right = 0;
      const t = performance.now();
      const cpu = process.cpuUsage();
      await runEval({
        examples: examples.slice(0, n),
        concurrency: c,
        makeRunner: ex =>
          createArtRunner(
            { library: LIBRARY, task: { description: 'Say the number.', input: ex.input } },
            {
              model: limiter.wrap(endpoint.sibling()),
              tools: { get: () => undefined },
              pauseAfterTool: false,
            },
          ),
        onResult: r => (right += r.exact ? 1 : 0),
      });
      const rate = n / ((performance.now() - t) / 1000);
      const used = process.cpuUsage(cpu);
      if (right !== n) throw new Error(`bench eval: ${n - right} of ${n} examples wrong at concurrency ${c}`);
      if (c === 1) base = rate;
      out[`eval ${at} concurrency ${c}: examples/s`] = rate.toFixed(1);
      out[`eval ${at} concurrency ${c}: speed-up (ideal ${c})`] = (rate / base).toFixed(1);
      out[`eval ${at} concurrency ${c}: client CPU per example (ms)`] = ((used.user + used.system) / 1000 / n).toFixed(2);
    }
    return out;
  } finally {
    child.disconnect();
  }
}
