// Replaying a long recorded run (issue 20 item 14): a program whose one answer is about `ART_BENCH_REPLAY_CHUNKS`
// characters (default 500,000) of 80-character lines, recorded and then rewritten as one chunk record per character,
// run again with `art run PROGRAM --from TRACE` (every request answered from the trace) and `art run TRACE` (the
// trace replayed), each the built CLI (dist/cli.js, as `npm install` ships it) in a process of its own, spawn to exit.
// Each is timed at n and at n/4 chunks: a cost linear in the chunks gives a ratio near 4, the square of it near 16.
// `npm run bench -- replay` (after `npm run build`).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const CLI = resolve(__dirname, '../dist/cli.js');

const LINE = 'The quick brown fox jumps over the lazy dog and keeps running along the river bank.';

/** A library of two programs; the second, `Long essay`, has one answer of about `chars` characters. */
function library(chars: number): string {
  const lines: string[] = [];
  for (let n = 0; n < chars; n += LINE.length + 1) lines.push(LINE);
  return [
    'Description: (Short) Write one line.',
    'Input: fox',
    'Q1: [write] Write it.',
    '#1: a fox',
    'Q2: [EOQ]',
    'Ans: done',
    '----',
    'Description: (Long essay) Write a long text.',
    'Input: fox',
    'Q1: [write] Write the essay.',
    `#1:\n${lines.join('\n')}`,
    'Q2: [EOQ]',
    'Ans: done',
    '',
  ].join('\n');
}

/** The trace with every chunk record split into one record per character; how many chunk records it has. */
function oneCharacterChunks(trace: string): { text: string; chunks: number } {
  const out: string[] = [];
  let chunks = 0;
  for (const line of trace.split('\n')) {
    if (!line) continue;
    const r = JSON.parse(line) as { t: string; text?: string };
    if (r.t !== 'chunk') {
      out.push(line);
      continue;
    }
    for (const c of r.text ?? '') {
      out.push(JSON.stringify({ ...r, text: c }));
      chunks++;
    }
  }
  return { text: `${out.join('\n')}\n`, chunks };
}

/** `art ARGS` in a process of its own: milliseconds from spawn to exit. */
function art(args: string[], cwd: string): number {
  const t = performance.now();
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const ms = performance.now() - t;
  if (r.status !== 0 || !r.stdout.includes('Answer: done')) throw new Error(`art ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

/** A trace of about `chars` one-character chunks and the time of each way of running it again. */
function measure(dir: string, chars: number): { chunks: number; fromMs: number; traceMs: number } {
  const program = join(dir, `long-${chars}.art`);
  writeFileSync(program, library(chars));
  const recorded = join(dir, `recorded-${chars}.jsonl`);
  // One request writes the whole answer (the default max tokens would take over 64 requests, the runner's bound).
  const once = ['--max-tokens', '1000000'];
  art(['run', program, '--task', 'Long essay', '--mode', 'replay', ...once, '--trace', recorded, '--quiet'], dir);
  const { text, chunks } = oneCharacterChunks(readFileSync(recorded, 'utf8'));
  const trace = join(dir, `chunks-${chars}.jsonl`);
  writeFileSync(trace, text);
  const fromMs = art(['run', program, '--task', 'Long essay', ...once, '--from', trace, '--quiet'], dir);
  const traceMs = art(['run', trace, '--quiet'], dir);
  return { chunks, fromMs, traceMs };
}

export function benchReplay(): Record<string, string | number> {
  const n = Number(process.env.ART_BENCH_REPLAY_CHUNKS ?? 500_000);
  const dir = mkdtempSync(join(tmpdir(), 'art-bench-replay-'));
  try {
    const quarter = measure(dir, Math.round(n / 4));
    const whole = measure(dir, n);
    const s = (ms: number) => (ms / 1000).toFixed(2);
    const us = (ms: number, chunks: number) => ((ms * 1000) / chunks).toFixed(2);
    return {
      'replay: one-character chunks in the trace (n, n/4)': `${whole.chunks} / ${quarter.chunks}`,
      'replay: art run --from, n chunks (s)': s(whole.fromMs),
      'replay: art run --from, per chunk (µs)': us(whole.fromMs, whole.chunks),
      'replay: art run --from, time n / time n/4 (4 = linear)': (whole.fromMs / quarter.fromMs).toFixed(2),
      'replay: art run TRACE, n chunks (s)': s(whole.traceMs),
      'replay: art run TRACE, time n / time n/4 (4 = linear)': (whole.traceMs / quarter.traceMs).toFixed(2),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
