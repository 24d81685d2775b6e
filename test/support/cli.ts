// The `art` command in the tests. runCli calls core/cli/main.ts in this process through its Io (output captured,
// stdin, environment, folder and retry timing given): the way to test what a command prints and returns. runCliProcess
// and spawnCli start the built CLI (dist/cli.js) as users do, for what only a process shows: exit on signals, writes
// to a pipe that closes, the bundles a command loads, the shebang.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { main } from '../../core/cli/main';
import type { RetryPolicy } from '../../core/model/retry';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** The current directory of the command (default: the test's). */
  cwd?: string;
  /** Added to the test's environment; an undefined value removes the variable. */
  env?: NodeJS.ProcessEnv;
  /** Standard input, ended after this text (default: empty). */
  stdin?: string;
}

/** In this process, the model client's retry timing can be given too. */
export interface RunCliOptions extends CliOptions {
  retry?: Partial<RetryPolicy>;
}

/** The built CLI, as `npm install` puts it on the PATH. */
export const CLI = resolve(__dirname, '../../dist/cli.js');

/** Retries a few milliseconds apart: a test of an endpoint that fails does not wait out the real backoff. */
export const FAST_RETRY: Partial<RetryPolicy> = { initialDelayMs: 1, maxDelayMs: 5 };

function environment(extra: NodeJS.ProcessEnv | undefined): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  return env;
}

/** `art ARGS` in this process: what it wrote to stdout and stderr, and its exit code. */
export async function runCli(args: string[], opts: RunCliOptions = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    out: s => (stdout += `${s}\n`),
    err: s => (stderr += `${s}\n`),
    write: s => (stdout += s),
    prompt: s => (stderr += s),
    stdin: Readable.from(opts.stdin ? [opts.stdin] : []),
    env: environment(opts.env),
    cwd: opts.cwd,
    isTTY: false,
    stream: new Writable({
      write(chunk, _encoding, done) {
        stdout += String(chunk);
        done();
      },
    }),
    retry: opts.retry,
  });
  return { code, stdout, stderr };
}

/** The built CLI in a child process, its output collected; kill it (or let it end) through the child. */
export function spawnCli(args: string[], opts: Omit<CliOptions, 'stdin'> & { node?: string[] } = {}): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [...(opts.node ?? []), CLI, ...args], { cwd: opts.cwd, env: environment(opts.env) });
}

/** `art ARGS` as a child process (dist/cli.js): its output, exit code and the signal that ended it, if any. */
export function runCliProcess(
  args: string[],
  opts: CliOptions & { node?: string[]; onStart?: (child: ChildProcessWithoutNullStreams) => void } = {},
): Promise<CliResult & { signal: NodeJS.Signals | null }> {
  return new Promise((done, fail) => {
    const child = spawnCli(args, opts);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', d => (stdout += d));
    child.stderr.on('data', d => (stderr += d));
    child.on('error', fail);
    child.on('close', (code, signal) => done({ code, signal, stdout, stderr }));
    child.stdin.end(opts.stdin ?? '');
    opts.onStart?.(child);
  });
}
