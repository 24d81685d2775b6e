// `art eval` throughput against the scripted server answering every request after a fixed delay (a busy endpoint):
// examples per second at concurrency 1, 4, 16 and 64, and the speed-up over concurrency 1. The endpoint is where
// the work scales; the client must keep it busy, so the speed-up should stay close to the concurrency.
import { parseArt } from '../core/art/parse';
import { RequestLimiter } from '../core/model/limiter';
import { OpenAIModel } from '../core/model/openai';
import { ContinuationScript } from '../core/model/script';
import { createArtRunner } from '../core/runner/create';
import { runEval } from '../core/runner/eval';
import { ScriptedServer } from '../test/support/scriptedServer';

const DELAY_MS = 100;
/** Examples per run: 8 waves of the concurrency (at least 16), so start-up and the last wave weigh little. */
const examplesAt = (c: number) => Math.max(16, 8 * c);
const LIBRARY = parseArt('Description: (Echo) Say the number.\nInput: 1\nQ1: [EOQ]\nAns: 1\n');

export async function benchEval(): Promise<Record<string, string | number>> {
  const server = await new ScriptedServer({ tokenDelayMs: 0, requestDelayMs: DELAY_MS }).start();
  server.setScripts(ContinuationScript.parse(' [EOQ]\nAns: 7\n----', 'Q1:'));
  const examples = Array.from({ length: examplesAt(64) }, (_, i) => ({ id: String(i), input: `number ${i}`, target: '7', line: i + 1 }));
  const out: Record<string, string | number> = { 'eval: per-request delay at the server (ms)': DELAY_MS };
  try {
    let base = 0;
    for (const c of [1, 4, 16, 64]) {
      server.reset();
      const limiter = new RequestLimiter(c);
      const n = examplesAt(c);
      let right = 0;
      const t = performance.now();
      await runEval({
        examples: examples.slice(0, n),
        concurrency: c,
        makeRunner: ex =>
          createArtRunner(
            { library: LIBRARY, task: { description: 'Say the number.', input: ex.input } },
            {
              model: limiter.wrap(new OpenAIModel({ baseURL: server.baseURL, model: 'scripted' })),
              tools: { get: () => undefined },
              pauseAfterTool: false,
            },
          ),
        onResult: r => (right += r.exact ? 1 : 0),
      });
      const rate = n / ((performance.now() - t) / 1000);
      if (right !== n) throw new Error(`bench eval: ${n - right} of ${n} examples wrong at concurrency ${c}`);
      if (c === 1) base = rate;
      out[`eval: examples/s at concurrency ${c}`] = rate.toFixed(1);
      out[`eval: speed-up at concurrency ${c} (ideal ${c})`] = (rate / base).toFixed(1);
    }
    return out;
  } finally {
    await server.close();
  }
}
