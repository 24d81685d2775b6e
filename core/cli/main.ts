#!/usr/bin/env node
// The `art` command line: check, parse, monitor and compare (and run, see run.ts) over the core, for terminals and CI.
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { checkFiles, checkSummary, formatDiagnostic, UNREADABLE_FILE } from '../agentTools/check';
import { compareCommand } from './compare';
import { constrainCommand } from './constrain';
import { CliError, isCliError } from './files';
import { monitorCommand } from './monitor';
import { parseTree } from './parseTree';
import type { RetryPolicy } from '../model/retry';
import { terminalJson, visibleControls } from '../common/terminalText';
import { isOwnedFileError } from '../common/ownedFiles';
import { version as VERSION } from '../../package.json';

const USAGE = `usage: art <command> [options]

commands:
  check FILE...                 report problems, then a one-line summary; exit 1 when any error is found
                                [--json] [--quiet: no summary]
  parse FILE                    print the syntax tree                              [--json]
  monitor SPEC TRACE            check a trace against an agent spec; exit 1 when off-spec  [--agent NAME] [--json]
  constrain SPEC                print the decoding constraint of an agent from a state (default: the start of a run)
                                [--agent NAME] [--state S] [--format regex|gbnf]
  diff TRACE_A TRACE_B          compare two runs step by step (tool inputs, outputs, answers); exit 0
  run FILE                      run a program or agent, printing it as it grows; exit 1 unless it finishes
                                (art run --help lists its options)
  test LIBRARY...               replay every demonstration program and compare its tools' outputs and answer with
                                the recording; ends with "N passed, N failed", exit 1 on a failure  (art test --help)
  prompt FILE                   print the exact prompt a run sends, with the demonstrations and why each was chosen,
                                without running it; or the prompt a run trace (.jsonl) recorded  (art prompt --help)
  eval LIBRARY --data DATA.jsonl
                                run every example of a dataset, write the results JSONL and print the accuracy;
                                resumes from the results file; --new starts a new one beside it (art eval --help)
  improve LIBRARY --data TRAIN.jsonl --dev DEV.jsonl --test TEST.jsonl
                                add demonstrations bootstrapped from the training runs, chosen on dev, the gain proven
                                on test (McNemar); writes LIBRARY.improved.art, never the library (art improve --help)
  compare A.results.jsonl B.results.jsonl
                                pair two evaluations by example id: each side's accuracy, the difference, the examples
                                fixed and broken, McNemar's exact p-value; exit 0  [--json] [--metric exact|substring]
  model pull [URI] | list       download a local GGUF model (default: the one npm start uses) into the models folder
                                outside any workspace, or list them; run one with --model-file  (art model --help)
  mcp                           a Model Context Protocol server over stdio: these commands as tools for MCP clients
                                (VS Code, Claude Code, ...), with stepping sessions  (art mcp --help; docs/mcp.md)
  version                       the version of art (also --version, -v)
  help                          this text

Diagnostics print as path:line:col: severity: message [code] (1-based); --json prints LSP-style 0-based ranges.
art run replays the recorded program unless a model endpoint is given (--base-url and --model) or --mode generate.`;

/**
 * What a command sees of the world: its output, and (for the commands that run programs) its input, environment,
 * folder and the model client's retry timing. Left out, each is the process's own; the tests run the CLI in-process
 * through it (test/support/cli.ts).
 */
export interface CliIo {
  /** One line to standard output. */
  out: (s: string) => void;
  /** One line to standard error. */
  err: (s: string) => void;
  /** Text to standard output as it is (no line break added). */
  write?: (s: string) => void;
  /** Where `art run --interactive` reads overrides and writes its prompts. */
  stdin?: NodeJS.ReadableStream;
  prompt?: (s: string) => void;
  env?: NodeJS.ProcessEnv;
  /** The folder relative paths of run, test, prompt and eval start at (and their default --cwd). */
  cwd?: string;
  /** Whether standard output is a terminal (art eval's progress bar), and the stream the bar draws on. */
  isTTY?: boolean;
  stream?: NodeJS.WritableStream;
  /** How long the model client waits before retrying (default DEFAULT_RETRY, core/model/retry.ts). */
  retry?: Partial<RetryPolicy>;
}

export async function main(
  argv: string[],
  given: CliIo = { out: s => process.stdout.write(s + '\n'), err: s => process.stderr.write(s + '\n') },
): Promise<number> {
  const io = terminalIo(given);
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'check': {
        const { values, positionals } = parseArgs({
          args: rest,
          options: { json: { type: 'boolean' }, quiet: { type: 'boolean', short: 'q' } },
          allowPositionals: true,
        });
        if (!positionals.length) throw new CliError('art check: give at least one .art or .agent file');
        // A file that cannot be read is one line on stderr (and an `unreadable-file` entry in --json); the others
        // are still checked, and the exit code is 2.
        // Each file once, however often it is named (a.art and ./a.art are one file).
        const files = positionals.filter((p, i) => positionals.findIndex(q => resolve(q) === resolve(p)) === i);
        const { diagnostics, unreadable } = checkFiles(files);
        for (const line of unreadable) io.err(line);
        if (values.json) io.out(terminalJson(diagnostics, 2));
        else {
          for (const d of diagnostics) if (d.code !== UNREADABLE_FILE) io.out(formatDiagnostic(d));
          if (!values.quiet) io.out(checkSummary(files.length, diagnostics));
        }
        return unreadable.length ? 2 : diagnostics.some(d => d.severity === 'error') ? 1 : 0;
      }
      case 'parse': {
        const { positionals } = parseArgs({ args: rest, options: { json: { type: 'boolean' } }, allowPositionals: true });
        if (positionals.length !== 1) throw new CliError('art parse: give exactly one .art or .agent file');
        io.out(terminalJson(parseTree(positionals[0]), 2));
        return 0;
      }
      case 'monitor': {
        const { values, positionals } = parseArgs({
          args: rest,
          options: { json: { type: 'boolean' }, agent: { type: 'string' } },
          allowPositionals: true,
        });
        if (positionals.length !== 2) throw new CliError('art monitor: give a spec (.agent) and a trace file: art monitor SPEC TRACE');
        return monitorCommand(positionals[0], positionals[1], { agent: values.agent, json: !!values.json }, io);
      }
      case 'constrain': {
        const { values, positionals } = parseArgs({
          args: rest,
          options: { agent: { type: 'string' }, state: { type: 'string' }, format: { type: 'string' } },
          allowPositionals: true,
        });
        if (positionals.length !== 1)
          throw new CliError('art constrain: give one agent spec: art constrain SPEC [--agent NAME] [--state S] [--format regex|gbnf]');
        return constrainCommand(positionals[0], values, io);
      }
      case 'diff': {
        const { positionals } = parseArgs({ args: rest, options: {}, allowPositionals: true });
        if (positionals.length !== 2) throw new CliError('art diff: give two run traces: art diff TRACE_A TRACE_B');
        const { diffCommand } = await import('./commands');
        return diffCommand(positionals[0], positionals[1], io);
      }
      case 'compare':
        return compareCommand(rest, io);
      case 'run': {
        // The runner brings the model client, mathjs, MiniSearch and the MCP SDK: loaded only for `run` (the build
        // makes it a bundle of its own, dist/cli-run.js, so `check` and `parse` do not even compile it).
        const { runCommand, endTelemetry } = await import('./commands');
        try {
          return await runCommand(rest, { ...io, stdin: io.stdin ?? process.stdin });
        } finally {
          await endTelemetry();
        }
      }
      case 'test': {
        const { testCommand } = await import('./commands');
        return await testCommand(rest, io);
      }
      case 'prompt': {
        const { promptCommand } = await import('./commands');
        return await promptCommand(rest, io);
      }
      case 'eval': {
        const { evalCommand, endTelemetry } = await import('./commands');
        try {
          return await evalCommand(rest, io);
        } finally {
          await endTelemetry();
        }
      }
      case 'model': {
        const { modelCommand } = await import('./model');
        return await modelCommand(rest, io);
      }
      case 'improve': {
        const { improveCommand } = await import('./commands');
        return await improveCommand(rest, { ...io, write: io.write ?? (s => process.stdout.write(s)) });
      }
      case 'mcp': {
        // stdout carries the protocol: everything else goes to stderr.
        const { mcpCommand, endTelemetry } = await import('./commands');
        try {
          return await mcpCommand(rest, { out: io.out, err: io.err });
        } finally {
          await endTelemetry();
        }
      }
      case 'version':
      case '--version':
      case '-v':
        io.out(`art ${VERSION}`);
        return 0;
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.out(USAGE);
        return command === undefined ? 2 : 0;
      default:
        throw new CliError(`art: unknown command '${command}': run 'art help' for the commands`);
    }
  } catch (e) {
    if (isCliError(e)) {
      io.err(e.message);
      return e.exitCode;
    }
    // A write refused (a link where ART writes, core/common/ownedFiles.ts): one line naming it and the fix.
    if (isOwnedFileError(e)) {
      io.err(`art ${command}: ${e.message}`);
      return 1;
    }
    // Option errors from parseArgs are user errors too: one line, exit 2.
    if (e instanceof TypeError && (e as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
      io.err(`art ${command}: ${e.message}`);
      return 2;
    }
    throw e;
  }
}

/**
 * What every command prints goes through here: a control character in text the CLI did not write itself (model text,
 * tool output, traces, results headers, inputs) is shown as its escape, never sent to the terminal raw
 * (core/common/terminalText.ts). The CLI's own lines hold none, so the whole of each line is passed through.
 */
export function terminalIo(io: CliIo): CliIo & Required<Pick<CliIo, 'write' | 'prompt'>> {
  const write = io.write ?? (s => process.stdout.write(s));
  const prompt = io.prompt ?? (s => process.stderr.write(s));
  return {
    ...io,
    out: s => io.out(visibleControls(s)),
    err: s => io.err(visibleControls(s)),
    write: s => write(visibleControls(s)),
    prompt: s => prompt(visibleControls(s)),
  };
}

/**
 * Ends the process with `code` once what was written to stdout and stderr has reached the reader: writes to a pipe
 * are asynchronous, and exiting at once cut `art check --json big.art | jq` at 64 KB. Every exit of the CLI goes
 * through here.
 */
export function exitWhenFlushed(code: number): void {
  process.exitCode = code;
  let pending = 2;
  const done = () => {
    if (--pending === 0) process.exit(code);
  };
  for (const stream of [process.stdout, process.stderr]) {
    if (stream.writableLength === 0 || stream.destroyed) done();
    else stream.write('', () => done());
  }
}

/**
 * A reader that stops early (`art check --json big.art | head`) closes the pipe: the rest of the output has nobody
 * to read it, so the CLI ends quietly, with the exit code it has so far, instead of printing an EPIPE stack trace.
 */
function endQuietlyOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
}

/**
 * The folder relative paths start at: the caller's. `npm run art -- run library.art` runs the CLI in the package's
 * root wherever npm was invoked, so there the folder npm was started in (npm's INIT_CWD) is the caller's; anywhere
 * else (`art`, `npx art`, `node dist/cli.js`, another package's script) it is the process's own.
 */
export function callerDirectory(env: NodeJS.ProcessEnv, cwd: string): string {
  const ourNpmScript = env.npm_lifecycle_event === 'art' && env.npm_package_name === 'art-studio';
  return ourNpmScript && env.INIT_CWD ? env.INIT_CWD : cwd;
}

if (require.main === module) {
  process.chdir(callerDirectory(process.env, process.cwd()));
  endQuietlyOnClosedPipe(process.stdout);
  endQuietlyOnClosedPipe(process.stderr);
  main(process.argv.slice(2)).then(exitWhenFlushed, e => {
    process.stderr.write(`art: internal error: ${(e as Error).stack ?? e}\n`);
    exitWhenFlushed(3);
  });
}
