// The CLI's output through a pipe: all of it reaches a slow reader (writes to a pipe are asynchronous, and the CLI
// used to exit before they drained, at 64 KB), and a reader that stops early ends the CLI quietly.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fixturePath } from '../support/fixtures';
import { CLI, spawnCli } from '../support/cli';
const tmp = mkdtempSync(join(tmpdir(), 'art-pipe-'));
const big = join(tmp, 'big.art');
// 2,000 programs with a step out of order each: over 600 KB of --json diagnostics, far over what a pipe holds.
writeFileSync(
  big,
  Array.from({ length: 2000 }, (_, i) => `Input: q${i}\nQ1: [calculator] 1 + ${i}\n#1: ${i + 1}\nQ3: [EOQ]\nAns: ${i + 1}\n----\n`).join(''),
);

/** The output written straight to a file (synchronous writes: nothing can be lost). */
function direct(args: string[]): { bytes: Buffer; code: number | null } {
  const out = join(tmp, 'direct.out');
  const fd = openSync(out, 'w');
  try {
    const r = spawnSync(process.execPath, [CLI, ...args], { stdio: ['ignore', fd, 'pipe'] });
    return { bytes: readFileSync(out), code: r.status };
  } finally {
    closeSync(fd);
  }
}

/** Runs the CLI with stdout on a pipe that a slow reader reads. */
function throughSlowPipe(args: string[], delayMs: number): Promise<{ bytes: Buffer; code: number | null; err: string }> {
  return new Promise((done, fail) => {
    const child = spawnCli(args);
    child.stdin.end();
    const chunks: Buffer[] = [];
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    // Reading starts at once (an unread pipe is drained and dropped by node when the child exits), but pauses
    // `delayMs` after the first chunk and a little after every other one.
    child.stdout.on('data', (c: Buffer) => {
      chunks.push(c);
      child.stdout.pause();
      setTimeout(() => child.stdout.resume(), chunks.length === 1 ? delayMs : 2);
    });
    child.on('error', fail);
    child.on('close', code => {
      done({ bytes: Buffer.concat(chunks), code, err });
    });
  });
}

describe('art output through a pipe', () => {
  for (const command of ['check', 'parse'] as const) {
    test(`art ${command} --json: a slow reader gets every byte`, async () => {
      const expected = direct([command, '--json', big]);
      assert.ok(expected.bytes.length > 600_000, `${expected.bytes.length} bytes`);
      const piped = await throughSlowPipe([command, '--json', big], 300);
      assert.equal(piped.err, '');
      assert.equal(piped.bytes.length, expected.bytes.length);
      assert.ok(piped.bytes.equals(expected.bytes));
      assert.equal(piped.code, expected.code);
      JSON.parse(piped.bytes.toString('utf8'));
    });
  }

  test('a reader that closes early (| head -c 1): the CLI ends quietly, no EPIPE stack trace', async () => {
    const child = spawnCli(['check', '--json', big]);
    child.stdin.end();
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const first = await new Promise<Buffer>(res => child.stdout.once('data', res));
    assert.equal(first.subarray(0, 1).toString(), '[');
    child.stdout.destroy();
    const code = await new Promise<number | null>(res => child.on('close', c => res(c)));
    assert.equal(err, '');
    assert.equal(code, 1);
  });

  test('a reader that closes while a run is still writing (art run | head): the run ends quietly', async () => {
    // Paused at its first tool call (--interactive), the reader of stdout goes away; continuing writes the program's
    // next lines into the closed pipe.
    const program = fixturePath('programs/arithmetic.art');
    const child = spawnCli(['run', '--interactive', '--mode', 'replay', program]);
    let err = '';
    child.stdout.resume();
    child.stderr.on('data', (c: Buffer) => {
      err += c.toString();
      if (/override .*> $/.test(err) && !child.stdout.destroyed) {
        // Once our end of the pipe is closed, the run goes on and writes into it.
        child.stdout.once('close', () => child.stdin.end('\n'.repeat(20)));
        child.stdout.destroy();
      }
    });
    const code = await new Promise<number | null>(res => child.on('close', c => res(c)));
    assert.doesNotMatch(err, /EPIPE| {4}at /);
    assert.equal(code, 0);
  });
});
