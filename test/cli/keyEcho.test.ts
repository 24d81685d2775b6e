// An endpoint that echoes the key: the scripted model's answer holds the key whole, without its `sk-` prefix, as its
// body and masked, streamed one token a chunk (so the key is cut across chunks). `art run` and `art eval`, run as a
// user runs them (dist/cli.js in a child process), must have it in no output, trace, run summary or results file.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContinuationScript } from '../../core/replay/script';
import { ScriptedServer } from '../support/scriptedServer';
import { ARITHMETIC_DATA, ARITHMETIC_LIBRARY, arithmeticExamples } from '../support/arithmeticModel';

const CLI = join(__dirname, '../../dist/cli.js');
const KEY = 'sk-test-Zq8fK2mWp4Lx9Rb7Tn3V1234567890';
const ECHOED = `${KEY} or ${KEY.slice(3)} or ${KEY.slice(8)} or sk-tes...7890`;
const work = mkdtempSync(join(tmpdir(), 'art-key-echo-'));

/** The forms of the key found in a text, and any run of 8 of its characters. */
function leaks(text: string): string[] {
  const found = [KEY, KEY.slice(3), KEY.slice(8), 'sk-tes...7890'].filter(f => text.includes(f));
  for (let i = 8; i + 8 <= KEY.length; i++) if (text.includes(KEY.slice(i, i + 8))) return [...found, KEY.slice(i, i + 8)];
  return found;
}

describe('a key the endpoint echoes', () => {
  let server: ScriptedServer;
  before(async () => {
    assert.ok(existsSync(CLI), 'build first: node scripts/build.mjs (dist/cli.js)');
    server = await new ScriptedServer({ tokenDelayMs: 0, tokensPerChunk: 1 }).start();
    server.setScripts(
      ...arithmeticExamples().map(e => ContinuationScript.parse(` [EOQ]\nAns: ${ECHOED}\n----\nDescription: more`, `Input: ${e.input}\nQ1:`)),
    );
  });
  after(() => ScriptedServer.closeAll());

  // Asynchronous: the scripted server answers from this process.
  const art = (args: string[]) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [CLI, ...args], { cwd: work, env: { ...process.env, OPENAI_API_KEY: KEY } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', d => (stdout += d));
      child.stderr.on('data', d => (stderr += d));
      child.on('error', reject);
      child.on('close', status => resolve({ status, stdout, stderr }));
    });
  const base = () => [ARITHMETIC_LIBRARY, '--task', 'Elementary Math', '--base-url', server.baseURL, '--model', 'scripted'];

  test('art run: not on stdout or stderr, and in no trace record (the key cut across chunks)', async () => {
    const input = arithmeticExamples()[0].input;
    const trace = join(work, 'run.jsonl');
    const r = await art(['run', ...base(), '--input', input, '--trace', trace]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^Ans: \*\*\* or test-\*\*\* or \*\*\* or \*\*\*$/m);
    assert.ok(server.requests.at(-1)!.tokensSent > 20, 'the answer came in many chunks');
    const text = readFileSync(trace, 'utf8');
    const chunks = text
      .split('\n')
      .filter(Boolean)
      .map(l => JSON.parse(l))
      .filter(rec => rec.t === 'chunk');
    assert.ok(chunks.length > 5, 'chunk records');
    assert.deepEqual(leaks(chunks.map(c => c.text).join('')), [], 'the chunks assembled');
    for (const [where, t] of [
      ['stdout', r.stdout],
      ['stderr', r.stderr],
      ['trace', text],
    ])
      assert.deepEqual(leaks(t), [], where);
  });

  test('art eval: not in the results file, the progress lines, or any trace or summary of the run history', async () => {
    const out = join(work, 'results.jsonl');
    const runs = join(work, 'eval-runs');
    const r = await art(['eval', ...base(), '--data', ARITHMETIC_DATA, '--out', out, '--runs', runs, '--progress', 'lines']);
    assert.equal(r.status, 0, r.stderr);
    const results = readFileSync(out, 'utf8');
    // Its header (what produced it), then one line per example.
    assert.equal(results.trim().split('\n').length, 1 + arithmeticExamples().length);
    assert.match(results, /"answer":"\*\*\* or test-\*\*\* or \*\*\* or \*\*\*"/);
    for (const [where, text] of [
      ['stdout', r.stdout],
      ['stderr', r.stderr],
      ['results', results],
      ...readdirSync(runs).map(f => [f, readFileSync(join(runs, f), 'utf8')]),
    ])
      assert.deepEqual(leaks(text), [], where);
  });
});
