// Runner benchmarks against the local scripted OpenAI-compatible server (real HTTP, real `openai` client):
//   - overhead per step: from the last token of a request that ends at a tool call (written by the server) to the
//     tool starting, and from the tool returning to the next request arriving at the server (target < 5 ms each),
//     median and p90 over the tool calls of repeated runs; the tools answer at once, so only the runner, the client
//     and loopback HTTP are measured (server and runner share one process, so the figures include the server);
//   - tokens the model generated for every corpus program (../shared/corpus/programs) with this runner's
//     stop-and-resume scheme, against the ART reference's regenerate-after-each-tool scheme (first the whole
//     program, then the whole suffix again after each tool), and their ratio.
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArt } from '../core/art/parse';
import type { ArtDocument, Program } from '../core/art/ast';
import { ToolCatalog } from '../core/art/knownTools';
import { OpenAIModel } from '../core/model/openai';
import { artProgramParts } from '../core/replay/programReplay';
import { ContinuationScript } from '../core/replay/script';
import { createArtRunner } from '../core/launch/create';
import type { ToolLookup } from '../core/protocols/types';
import type { Tool } from '../core/tools/types';
import { ScriptedServer } from '../test/support/bench';

const CORPUS = process.env.ART_CORPUS ?? resolve(__dirname, '../../shared/corpus');
const catalog = new ToolCatalog();
const isTool = (name: string) => catalog.has(name);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.9))];
const ms = (x: number) => x.toFixed(2);

/** Tools that answer at once with the answer the program recorded for their step. */
function recordedTools(p: Program): ToolLookup {
  const tool = (name: string): Tool => ({
    info: { name, description: 'recorded answer', input: '', origin: 'user' },
    run: async input => {
      const step = p.steps.find(
        s => s.name !== null && catalog.get(s.name)?.name === catalog.get(name)?.name && s.instruction.trim() === input.instruction.trim(),
      );
      return { ok: true, output: step?.answer?.text ?? '' };
    },
  });
  return { get: name => (isTool(name) ? tool(name) : undefined) };
}

function corpusPrograms(): { file: string; doc: ArtDocument; index: number; program: Program }[] {
  const dir = join(CORPUS, 'programs');
  const out: { file: string; doc: ArtDocument; index: number; program: Program }[] = [];
  for (const file of readdirSync(dir)
    .filter(f => f.endsWith('.art'))
    .sort()) {
    const doc = parseArt(readFileSync(join(dir, file), 'utf8'));
    doc.programs.forEach((program, index) => {
      if (!program.template && program.input && program.ans && program.steps.length) out.push({ file, doc, index, program });
    });
  }
  return out;
}

async function overhead(
  server: ScriptedServer,
  runs: number,
): Promise<{ toStart: number[]; ownToStart: number[]; toRequest: number[]; runnerToRequest: number[] }> {
  const { doc, index, program } = corpusPrograms().find(c => c.file === 'arithmetic.art' && c.program.description?.taskName === 'Elementary Math')!;
  server.setScripts(new ContinuationScript('Q1:', artProgramParts(doc.text, program, isTool)));
  server.tokenDelayMs = 0;
  const model = new OpenAIModel({ baseURL: server.baseURL, model: 'scripted' });
  const toStart: number[] = [];
  const ownToStart: number[] = [];
  const toRequest: number[] = [];
  const runnerToRequest: number[] = [];
  for (let i = 0; i < runs + 2; i++) {
    server.reset();
    const r = createArtRunner({ library: doc, program: index }, { model, tools: recordedTools(program), pauseAfterTool: false });
    const starts: number[] = [];
    const ends: number[] = [];
    const sent: number[] = [];
    const lastChunk: number[] = [];
    let chunkAt = 0;
    r.on('text', () => (chunkAt = performance.now()));
    r.on('toolStart', e => {
      starts.push(e.at);
      lastChunk.push(chunkAt);
    });
    r.on('toolEnd', e => ends.push(e.at));
    r.on('request', e => sent.push(e.at));
    const result = await r.run();
    if (result.reason !== 'finished') throw new Error(`bench run ended ${result.reason}: ${result.error}`);
    await server.settled();
    if (i < 2) continue; // warm-up: JIT, the SDK's first connection
    const reqs = server.requests;
    starts.forEach((at, k) => {
      toStart.push(at - reqs[k].lastTokenAt!);
      ownToStart.push(at - lastChunk[k]);
      toRequest.push(reqs[k + 1].receivedAt - ends[k]);
      runnerToRequest.push(sent[k + 1] - ends[k]);
    });
  }
  return { toStart, ownToStart, toRequest, runnerToRequest };
}

/** Tokens generated for all corpus programs: this runner (stop and resume) vs regenerating after each tool. */
async function tokens(server: ScriptedServer): Promise<{ programs: number; calls: number; ours: number; reference: number; afterCall: number }> {
  server.tokenDelayMs = 0;
  const model = new OpenAIModel({ baseURL: server.baseURL, model: 'scripted', maxTokens: 4096 });
  let ours = 0;
  let reference = 0;
  let calls = 0;
  let afterCall = 0;
  const programs = corpusPrograms();
  for (const { doc, index, program } of programs) {
    server.setScripts(new ContinuationScript('Q1:', artProgramParts(doc.text, program, isTool)));
    server.reset();
    const r = createArtRunner({ library: doc, program: index }, { model, tools: recordedTools(program), pauseAfterTool: false, maxTokens: 4096 });
    // The text after each tool's output: where the reference scheme asks for the whole suffix again.
    const resumePoints: string[] = [];
    r.on('toolDone', () => resumePoints.push(r.fullText));
    const result = await r.run();
    if (result.reason !== 'finished') throw new Error(`${index} ended ${result.reason}: ${result.error}`);
    await server.settled();
    ours += server.tokensStreamed;
    afterCall += server.tokensAfterCall;
    calls += resumePoints.length;

    // The ART reference: generate the whole program (no stop at tools), then after each tool the whole rest.
    server.reset();
    for (const p of [r.protocol.prompt, ...resumePoints]) await model.complete({ prompt: p, maxTokens: 4096 });
    await server.settled();
    reference += server.tokensStreamed;
  }
  return { programs: programs.length, calls, ours, reference, afterCall };
}

export async function benchRunner(): Promise<Record<string, string | number>> {
  const server = await new ScriptedServer({ tokenDelayMs: 0 }).start();
  try {
    const o = await overhead(server, 15);
    const t = await tokens(server);
    return {
      'runner: tool calls measured': o.toStart.length,
      'runner: last token -> tool start (ms, median), target < 5': ms(median(o.toStart)),
      'runner: last token -> tool start (ms, p90)': ms(p90(o.toStart)),
      'runner: last chunk received -> tool start, runner only (ms, median)': ms(median(o.ownToStart)),
      'runner: tool return -> next request at the server (ms, median), target < 5': ms(median(o.toRequest)),
      'runner: tool return -> next request at the server (ms, p90)': ms(p90(o.toRequest)),
      'runner: tool return -> request handed to the client (ms, median)': ms(median(o.runnerToRequest)),
      'runner: corpus programs / tool calls': `${t.programs} / ${t.calls}`,
      'runner: tokens generated, stop-and-resume': t.ours,
      'runner: tokens generated, regenerate after each tool (ART reference)': t.reference,
      'runner: token ratio stop-and-resume / regenerate': (t.ours / t.reference).toFixed(3),
      'runner: tokens streamed past a tool call (stop sequences)': t.afterCall,
    };
  } finally {
    await server.close();
  }
}
