// Fixtures for runner tests (the runs of test/core/engine, launch, evaluation, sampling, ..., and the DAP and CLI
// suites): the arithmetic library of test/fixtures, scripts of what the model writes, small tools.
import { after, before, beforeEach } from 'node:test';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArt } from '../../core/art/parse';
import type { ArtDocument } from '../../core/art/ast';
import { ContinuationScript } from '../../core/replay/script';
import type { Runner } from '../../core/engine/runner';
import type { RunnerEvents } from '../../core/engine/types';
import type { RunResult } from '../../core/engine/types';
import type { ToolLookup } from '../../core/protocols/types';
import { createToolRegistry, type ToolRegistry } from '../../core/tools/registry';
import type { Tool, ToolResult } from '../../core/tools/types';

import { fixturePath } from './fixtures';
import { ScriptedServer } from './scriptedServer';

export { fixturePath };

export function arithmeticLibrary(): ArtDocument {
  return parseArt(readFileSync(fixturePath('programs/arithmetic.art'), 'utf8'));
}

/** Index of the "Elementary Math" program (the eggs sold at the market) in the arithmetic library. */
/** A program of four tool calls whose outputs follow from the previous answer (`[add one]`): a rerun gives the same text. */
export function countingLibrary(): ArtDocument {
  return parseArt(
    [
      'Description: (Counting) add one four times',
      'Input: 3',
      'Q1: [add one] add one to the input',
      '#1: 4',
      'Q2: [add one] add one to #1',
      '#2: 5',
      'Q3: [add one] add one to #2',
      '#3: 6',
      'Q4: [add one] add one to #3',
      '#4: 7',
      'Q5: [EOQ]',
      'Ans: 7',
      '',
    ].join('\n'),
  );
}

export const DUCKS = 1;

export const DUCKS_CODE = [
  'total_eggs = 16',
  'eaten_eggs = 3',
  'baked_eggs = 4',
  'sold_eggs = total_eggs - eaten_eggs - baked_eggs',
  'dollars_per_egg = 2',
  'ans = sold_eggs * dollars_per_egg',
  'print(ans)',
].join('\n');

/**
 * What the model writes after `Q1:` for the eggs task. `⟦...⟧` are the tool answers (what the model would write
 * if nothing stopped it); `⟂` marks where each call is complete (after `\n#`).
 */
export const DUCKS_SCRIPT = ContinuationScript.parse(
  " [generate python code] Write down the arithmetic or algebra equations as python code, storing the answer as 'ans'\n" +
    `#⟂1:⟦\n${DUCKS_CODE}⟧\n` +
    'Q2: [code execute] Execute the python code in #1 and get the value of "ans"\n' +
    '#⟂2:⟦ 18⟧\n' +
    'Q3: [EOQ]\n' +
    'Ans: 18\n----\nDescription: (Another task) the model goes on with another program',
  'Q1:',
);

/** What the model answers to `[generate python code]`'s own prompt. */
export const CODEGEN_SCRIPT = ContinuationScript.parse(`${DUCKS_CODE}\n----\n# another instruction\nPython code:\nx = 1`, 'Python code:\n');

/** The real tools of core/tools (Python really runs), over a small corpus folder. */
export async function realTools(corpusDir?: string): Promise<ToolRegistry> {
  return createToolRegistry({ workspaceRoot: process.cwd(), corpusDir: corpusDir ?? tempCorpus(), trusted: true });
}

/**
 * The fixture of a suite that runs against the scripted server and the real tools: the server starts (with
 * `scripts`) and the tools are made before the suite, the server is reset before each test (`resetEachTest`), and
 * both are closed after the suite even when a test failed. `tools` forwards to the registry made in `before`.
 */
export function scriptedSuite(opts: { scripts?: ContinuationScript[]; resetEachTest?: boolean } = {}): {
  server: ScriptedServer;
  tools: ToolRegistry;
} {
  const server = new ScriptedServer();
  let registry: ToolRegistry | undefined;
  const made = () => {
    if (!registry) throw new Error("the tools are made in the suite's before hook");
    return registry;
  };
  const tools: ToolRegistry = {
    get: name => made().get(name),
    catalog: () => made().catalog(),
    get problems() {
      return made().problems;
    },
    get notes() {
      return made().notes;
    },
    dispose: async () => registry?.dispose(),
  };
  before(async () => {
    await server.start();
    if (opts.scripts) server.setScripts(...opts.scripts);
    registry = await realTools();
  });
  after(async () => {
    await ScriptedServer.closeAll();
    await registry?.dispose();
  });
  if (opts.resetEachTest) {
    beforeEach(() => {
      server.reset();
      server.honourStop = true;
      server.tokenDelayMs = 1;
      server.callPauseMs = 0;
    });
  }
  return { server, tools };
}

/** A corpus folder for Search/Lookup/search (ReACT's Milhouse example). */
export function tempCorpus(): string {
  const dir = mkdtempSync(join(tmpdir(), 'art-corpus-'));
  writeFileSync(
    join(dir, 'milhouse.md'),
    "# Milhouse Van Houten\n\nMilhouse Mussolini Van Houten is a recurring character in the Fox animated television series The Simpsons voiced by Pamela Hayden and created by Matt Groening.\n\nMilhouse is Bart Simpson's best friend. Milhouse was named after U.S. president Richard Nixon, whose middle name was Milhous.\n",
  );
  writeFileSync(join(dir, 'springfield.md'), '# Springfield\n\nSpringfield is the fictional town where The Simpsons live.\n');
  return dir;
}

/** Tools by name, falling back to `base`. */
export function withTools(base: ToolLookup, extra: Record<string, Tool>): ToolLookup {
  return { get: name => extra[name.trim().toLowerCase()] ?? base.get(name) };
}

/** Only the tool `name` of `tools`, failing with `error` (its description kept); no other tool. */
export function failingTool(tools: ToolLookup, name: string, error: string): ToolLookup {
  return {
    get: n => (n.trim().toLowerCase() === name ? { info: tools.get(name)!.info, run: async () => ({ ok: false as const, error }) } : undefined),
  };
}

export function fakeTool(name: string, run: (input: string, signal: AbortSignal) => Promise<ToolResult> | ToolResult): Tool {
  return {
    info: { name, description: `test tool ${name}`, input: 'text', origin: 'user' },
    run: async (input, ctx) => run(input.instruction, ctx.signal),
  };
}

/** A tool that never answers on its own (it only stops when its signal aborts). */
export const hangingTool = (name: string) =>
  fakeTool(
    name,
    (_input, signal) => new Promise<ToolResult>(resolve => signal.addEventListener('abort', () => resolve({ ok: false, error: 'aborted' }))),
  );

/** Records every event of a runner, in order. */
export function record(runner: Runner): { name: keyof RunnerEvents; payload: any }[] {
  const events: { name: keyof RunnerEvents; payload: any }[] = [];
  for (const name of [
    'request',
    'text',
    'cut',
    'correction',
    'step',
    'toolStart',
    'toolEnd',
    'toolDone',
    'paused',
    'resumed',
    'retry',
    'usage',
    'end',
  ] as const) {
    runner.on(name, (payload: any) => events.push({ name, payload }));
  }
  return events;
}

/** Runs `r` to its end, continuing at every pause; each pause as `reason:error` (the tool's error, if any). */
export async function runContinuing(r: Runner): Promise<{ result: RunResult; pauses: string[] }> {
  const pauses: string[] = [];
  r.on('paused', ({ reason, call }) => {
    pauses.push(`${reason}:${call?.error}`);
    r.continue();
  });
  return { result: await r.run(), pauses };
}

/**
 * Runs `r` to its end in a test that continues no pause. A pause there (a tool error pauses even with
 * `pauseAfterTool: false`) would wait for a `continue` that never comes while the scripted server keeps the test
 * process alive: instead the run is stopped and the test fails with what the pause was. `signal` (the test
 * context's) stops the run when the test is cancelled or times out.
 */
export async function runWithoutPauses(r: Runner, signal?: AbortSignal): Promise<RunResult> {
  const pauses: string[] = [];
  r.on('paused', p => {
    pauses.push(p.description);
    r.stop();
  });
  const onAbort = () => r.stop();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const result = await r.run();
    if (pauses.length) throw new Error(`the run paused where nothing continues it: ${pauses.join('; ')}${result.error ? ` (${result.error})` : ''}`);
    return result;
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}
