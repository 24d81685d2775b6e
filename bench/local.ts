// The local model (core/model/localModel.ts) on the default model file (core/model/defaultModel.ts, provisioned by
// scripts/model.mjs; skipped with a line saying so when it is not there), CPU only, two threads:
//   - load time; prompt and generated tokens per second;
//   - an ART program run live (examples/library.art, Word Unscramble, temperature 0): milliseconds per request with
//     prefix reuse (the KV cache kept between requests) and without, and the tokens the run evaluated ÷ the tokens
//     of its final text, prompts and generated tokens both (1.0 when each token of the final text is evaluated once);
//   - the decoding constraint's cost per generated token (the ART step grammar against none);
//   - two runs at once: sequences of one context against a queue (one sequence).
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { DEFAULT_LOCAL_MODEL } from '../core/model/defaultModel';
import { LocalModel } from '../core/model/localModel';
import { disposeLocalRuntimes, localRuntime } from '../core/model/localRuntime';
import { prepareRun } from '../core/launch/launch';
import { artStepConstraint } from '../core/protocols/constraints';
import type { PauseInfo } from '../core/engine/types';
import type { CompletionRequest, CompletionResult } from '../core/model/types';
import { recordingModel } from '../test/support/bench';

const FILE = process.env.ART_LOCAL_MODEL ?? join(homedir(), '.cache/art-studio/models', DEFAULT_LOCAL_MODEL.file);
const ROOT = resolve(__dirname, '..');
const PROMPT = `${'The quick brown fox jumps over the lazy dog. '.repeat(40)}\nOnce upon a time`;

const perSecond = (n: number, ms: number) => ((n * 1000) / ms).toFixed(1);

async function timed<T>(f: () => Promise<T>): Promise<[T, number]> {
  const t = performance.now();
  const r = await f();
  return [r, performance.now() - t];
}

/** The tokens of a run's final text: its last request's prompt and what that request generated. */
const finalTokens = (last: CompletionResult | undefined) => (last?.usage?.promptTokens ?? 0) + (last?.usage?.completionTokens ?? 0);

/**
 * One live ART run, the model loaded first: ms per request, and the tokens evaluated in the run (prompt and generated) ÷ the tokens of
 * its final text (the last request's prompt and what it generated: few-shot prefix, task and program).
 */
async function artRun(prefixReuse: boolean): Promise<{ msPerRequest: number; ratio: number; requests: number }> {
  await new LocalModel({ file: FILE }).load();
  const rt = localRuntime({ file: FILE });
  // Every token the model evaluated: the prompts' (those not reused) and the ones it generated.
  const evaluated = () => rt.totals.evaluatedPromptTokens + rt.totals.generatedTokens;
  const before = evaluated();
  const requests: CompletionRequest[] = [];
  const results: CompletionResult[] = [];
  const run = await prepareRun({
    program: join(ROOT, 'examples/library.art'),
    task: 'Word Unscramble',
    input: 'odg',
    mode: 'generate',
    modelSource: 'local',
    modelFile: FILE,
    maxTokens: 48,
    maxRequests: 8,
    temperature: 0,
    trusted: true,
    cwd: ROOT,
    wrapModel: m => {
      // The baseline evaluates every prompt whole.
      if (m instanceof LocalModel) m.prefixReuse = prefixReuse;
      return recordingModel(m, requests, results);
    },
  });
  run.runner.on('paused', (_p: PauseInfo) => run.runner.continue());
  const [, ms] = await timed(() => run.runner.run());
  await run.dispose();
  return {
    msPerRequest: ms / Math.max(1, requests.length),
    ratio: (evaluated() - before) / Math.max(1, finalTokens(results.at(-1))),
    requests: requests.length,
  };
}

export async function benchLocal(): Promise<Record<string, string | number>> {
  if (!existsSync(FILE)) return { 'local: skipped': `no model at ${FILE} (node --import tsx scripts/model.mjs provisions it)` };
  await disposeLocalRuntimes();
  const model = new LocalModel({ file: FILE, sequences: 1 });
  const [, loadMs] = await timed(() => model.load());
  const [p, promptMs] = await timed(() => model.complete({ prompt: PROMPT, maxTokens: 1, temperature: 0 }));
  const [g, genMs] = await timed(() => model.complete({ prompt: 'Once upon a time', maxTokens: 64, temperature: 0 }));
  // The constraint's cost: the same continuation length with the ART step grammar and without.
  const step = artStepConstraint(2, false).gbnf;
  const free = await timed(() => model.complete({ prompt: 'Q1: [search] dogs\n#1: Dogs bark.\n', maxTokens: 24, temperature: 0, stop: ['\n#'] }));
  const constrained = await timed(() =>
    model.complete({ prompt: 'Q1: [search] dogs\n#1: Dogs bark.\n', maxTokens: 24, temperature: 0, stop: ['\n#'], extraBody: { grammar: step } }),
  );
  const perToken = (r: [{ usage?: { completionTokens: number } }, number]) => r[1] / Math.max(1, r[0].usage?.completionTokens ?? 1);
  await disposeLocalRuntimes();
  const reuse = await artRun(true);
  const noReuse = await artRun(false);
  await disposeLocalRuntimes();
  // Two requests at once: two sequences of one context, or one sequence (a queue).
  const both = async (sequences: number) => {
    const a = new LocalModel({ file: FILE, sequences });
    await a.load();
    const b = new LocalModel({ file: FILE, sequences });
    const [, ms] = await timed(() =>
      Promise.all([
        a.complete({ prompt: 'The first story begins', maxTokens: 32, temperature: 0 }),
        b.complete({ prompt: 'A second, different tale starts', maxTokens: 32, temperature: 0 }),
      ]),
    );
    await disposeLocalRuntimes();
    return ms;
  };
  const twoSequences = await both(2);
  const queue = await both(1);
  return {
    'local: model': DEFAULT_LOCAL_MODEL.name,
    'local: load (ms)': loadMs.toFixed(0),
    'local: prompt tokens/s': perSecond(p.usage!.promptTokens, promptMs),
    'local: generated tokens/s': perSecond(g.usage!.completionTokens, genMs),
    'local: ART request, prefix reuse (ms)': reuse.msPerRequest.toFixed(0),
    'local: ART request, no prefix reuse (ms)': noReuse.msPerRequest.toFixed(0),
    'local: tokens evaluated / final text tokens, reuse': reuse.ratio.toFixed(2),
    'local: tokens evaluated / final text tokens, no reuse': noReuse.ratio.toFixed(2),
    'local: ART requests in the run': reuse.requests,
    'local: ms per token, unconstrained': perToken(free).toFixed(1),
    'local: ms per token, ART step grammar': perToken(constrained).toFixed(1),
    'local: two requests at once, 2 sequences (ms)': twoSequences.toFixed(0),
    'local: two requests at once, queue (ms)': queue.toFixed(0),
  };
}
