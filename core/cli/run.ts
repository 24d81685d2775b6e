// `art run FILE`: runs a program of a task library (or an agent spec, or replays a trace) in the terminal. The
// program is printed as it grows, then the answer. With --interactive the run pauses after each tool call: the
// tool's output is shown and a line typed in replaces it (an empty line keeps it; "quoted\nJSON" gives several
// lines). The key is read from the environment variable --api-key-env names (default OPENAI_API_KEY).
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { LaunchError, prepareRun, type PreparedRun } from '../runner/launch';
import { StreamedText } from '../runner/streamedText';
import type { PauseReason, RunResult, ToolCall } from '../runner/types';
import { CliError } from './files';
import { typedText } from '../runner/typedText';
import { CONSTRAIN_MODES, type ConstrainMode } from '../runner/constraints';

export const RUN_USAGE = `usage: art run FILE [options]
  FILE                    a task library (.art), an agent spec (.agent), or a run trace (.jsonl) to replay
  --task T                the program (task name or 0-based index) or agent to run; default the first
  --input TEXT            a new input for the program (default its own); the question for an agent
  --mode generate|replay  generate with a model (default), or replay the program's recorded model text
  --base-url U            OpenAI-compatible API, e.g. http://127.0.0.1:8000/v1
  --model M               model name
  --api completions|chat  which API to call (default completions)
  --api-key-env NAME      environment variable holding the API key (default OPENAI_API_KEY)
  --temperature N         sampling temperature
  --max-tokens N          tokens per request
  --tools F               workspace tool file (default .art-tools.json when present)
  --trace F               write the run's trace (JSONL) to F
  --constrain MODE        decoding constraints: auto|off|vllm|vllm-legacy|sglang|llama.cpp (default off)
  --interactive           pause after each tool call and accept an override (empty line keeps the output)
  --quiet                 print only the answer`;

export interface RunIo {
  /** Writes text as it is (no line break added). */
  write: (s: string) => void;
  /** One line to standard error. */
  err: (s: string) => void;
  /** Where --interactive reads overrides. */
  stdin: NodeJS.ReadableStream;
  /** Where --interactive writes its prompts (default: standard error). */
  prompt?: (s: string) => void;
  env?: NodeJS.ProcessEnv;
}

export async function runCommand(argv: string[], io: RunIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      task: { type: 'string' },
      input: { type: 'string' },
      mode: { type: 'string' },
      'base-url': { type: 'string' },
      model: { type: 'string' },
      api: { type: 'string' },
      'api-key-env': { type: 'string' },
      temperature: { type: 'string' },
      'max-tokens': { type: 'string' },
      tools: { type: 'string' },
      trace: { type: 'string' },
      constrain: { type: 'string' },
      interactive: { type: 'boolean' },
      quiet: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.write(`${RUN_USAGE}\n`);
    return 0;
  }
  if (positionals.length !== 1) throw new CliError(`art run: give exactly one file to run\n${RUN_USAGE}`);
  const mode = values.mode ?? 'generate';
  if (mode !== 'generate' && mode !== 'replay') throw new CliError(`art run: --mode must be generate or replay, not "${mode}"`);
  const api = values.api;
  if (api !== undefined && api !== 'completions' && api !== 'chat') throw new CliError(`art run: --api must be completions or chat, not "${api}"`);
  const constrain = values.constrain;
  if (constrain !== undefined && !(CONSTRAIN_MODES as readonly string[]).includes(constrain)) throw new CliError(`art run: --constrain must be one of ${CONSTRAIN_MODES.join(', ')}, not "${constrain}"`);
  const env = io.env ?? process.env;
  const keyEnv = values['api-key-env'] ?? 'OPENAI_API_KEY';
  const interactive = !!values.interactive;

  let run: PreparedRun;
  try {
    run = await prepareRun({
      program: positionals[0],
      task: values.task,
      input: values.input,
      mode,
      baseURL: values['base-url'],
      model: values.model,
      api,
      apiKey: mode === 'generate' ? env[keyEnv] || undefined : undefined,
      temperature: numberOption('--temperature', values.temperature),
      maxTokens: numberOption('--max-tokens', values['max-tokens']),
      toolsFile: values.tools,
      trusted: true,
      pauseAfterTool: interactive,
      pauseOnToolError: interactive,
      tracePath: values.trace,
      constrain: constrain as ConstrainMode | undefined,
      log: line => io.err(`[art] ${line}`),
    });
  } catch (e) {
    if (e instanceof LaunchError) throw new CliError(`art run: ${e.message}`);
    throw e;
  }

  for (const p of run.toolProblems) io.err(`[art] tools: ${p}`);
  const printed = new StreamedText(s => {
    if (!values.quiet) io.write(s);
  });
  const runner = run.runner;
  runner.on('text', ({ text }) => printed.update(text));
  runner.on('correction', c => {
    printed.update(runner.text, true);
    io.err(`\n[art] monitor: off-spec at offset ${c.offset} (expected ${c.expected.join(' or ')}); inserted ${JSON.stringify(c.inserted)}`);
  });
  runner.on('retry', i => io.err(`[art] retry ${i.attempt} in ${i.delayMs} ms: ${i.reason}`));

  const ask = interactive ? overridePrompter(io) : undefined;
  if (ask) {
    runner.on('paused', ({ reason, call }) => {
      printed.update(runner.text, true);
      void ask.pauseAt(reason, call).then(answer => {
        if (answer !== undefined && call) {
          try {
            runner.setToolOutput(answer);
          } catch (e) {
            io.err(`[art] ${(e as Error).message}`);
          }
        }
        runner.continue();
      });
    });
  }

  const onSigint = () => runner.stop();
  process.once('SIGINT', onSigint);
  let result: RunResult;
  try {
    result = await runner.run();
  } finally {
    process.removeListener('SIGINT', onSigint);
    ask?.close();
    await run.dispose();
  }
  printed.update(runner.text, true);
  if (!values.quiet && !printed.text.endsWith('\n')) io.write('\n');
  const s = result.snapshot;
  if (result.reason === 'finished') {
    io.write(`${values.quiet ? '' : '\n'}Answer: ${result.answer ?? '(none)'}\n`);
    const checked = `${s.constrainedRequests} constrained, ${s.corrections} monitor correction(s)`;
    if (!values.quiet) io.err(`[art] ${s.requests} request(s) (${checked}), ${s.usage.promptTokens} prompt + ${s.usage.completionTokens} completion tokens${run.tracePath ? `; trace: ${run.tracePath}` : ''}`);
    return 0;
  }
  io.err(`art run: the run ended (${result.reason})${result.error ? `: ${result.error}` : ''}${result.answer ? `; answer so far: ${result.answer}` : ''}`);
  return 1;
}

function numberOption(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new CliError(`art run: ${name} needs a number, not "${v}"`);
  return n;
}

/** Reads one override line per pause from stdin (lines typed ahead are kept for the next pauses). */
function overridePrompter(io: RunIo) {
  const prompt = io.prompt ?? ((s: string) => process.stderr.write(s));
  const rl = createInterface({ input: io.stdin, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  let ended = false;
  return {
    async pauseAt(reason: PauseReason, call: ToolCall | undefined): Promise<string | undefined> {
      if (!call) return undefined;
      const shown = call.error !== undefined ? `failed: ${call.error}` : `returned${call.durationMs !== undefined ? ` in ${call.durationMs} ms` : ''}:\n${call.output ?? ''}`;
      const keep = call.error !== undefined ? 'empty line: the model writes the output' : 'empty line keeps it';
      prompt(`\n── [${call.tool}] ${shown}\n── override (${keep}; "JSON string" for several lines)> `);
      if (ended) {
        prompt('\n');
        return undefined;
      }
      const next = await lines.next();
      if (next.done) {
        ended = true;
        prompt('\n');
        return undefined;
      }
      const line = String(next.value);
      return line.trim() === '' ? undefined : typedText(line);
    },
    close: () => rl.close(),
  };
}
