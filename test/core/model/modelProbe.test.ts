// The probe (core/model/modelProbe.ts): a model file loaded in a child process before this one loads it. On the real
// default model it passes and is remembered (the second load starts no child); a file that makes llama.cpp abort ends
// the child, not this process, and is one line; the time limit, the memory limit and a cancel each end the child.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { probeModelFile, verdictOf, type ProbeOptions } from '../../../core/model/modelProbe';
import { hostileModels } from '../../support/hostileGguf';
import { localModelPath } from '../../support/localModel';
import { until } from '../../support/until';

const dir = mkdtempSync(join(tmpdir(), 'art-probe-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const hostile = hostileModels(dir);
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Probes with a verdicts file of the test's own; counts the children started. */
function prober(store = join(mkdtempSync(join(dir, 'store-')), 'checks.json')) {
  const pids: (number | undefined)[] = [];
  return {
    store,
    pids,
    probe: (file: string, o: Partial<ProbeOptions> = {}) => probeModelFile(file, { gpu: false, store, onStart: pid => pids.push(pid), ...o }),
  };
}

test('the real model passes; its verdict is remembered, so the second load starts no child', async () => {
  const p = prober();
  assert.deepEqual(await p.probe(localModelPath()), { ok: true, cached: false });
  assert.equal(p.pids.length, 1);
  assert.deepEqual(await p.probe(localModelPath()), { ok: true, cached: true });
  assert.equal(p.pids.length, 1, 'no second child');
  // Another backend is another verdict.
  assert.match(readFileSync(p.store, 'utf8'), /"3\.21\.1\|cpu\|/);
});

test('a file that makes llama.cpp abort ends the child, not this process: one line with its assertion, remembered', async () => {
  const p = prober();
  const v = await p.probe(hostile.duplicateToken);
  assert.equal(v.ok, false);
  if (v.ok) return;
  assert.equal(v.kind, 'aborted');
  assert.match(v.reason, /^llama-vocab\.cpp:\d+: GGML_ASSERT\(id_to_token\.size\(\) == token_to_id\.size\(\)\) failed$/);
  // This process is here to say so; the verdict is kept, with no second child.
  assert.deepEqual(await p.probe(hostile.duplicateToken), { ...v, cached: true });
  assert.equal(p.pids.length, 1);
});

test("llama.cpp's own asserts on hyper-parameters end only the child (the checks before it refuse these files first)", async () => {
  const p = prober();
  for (const file of [hostile.headCount0, hostile.blockCount]) {
    const v = await p.probe(file);
    assert.ok(!v.ok && v.kind === 'aborted' && /GGML_ASSERT/.test(v.reason), JSON.stringify(v));
  }
});

test('the time limit and the memory limit end the child; their verdicts are not remembered (the machine may be busy)', async () => {
  const p = prober();
  const slow = await p.probe(localModelPath(), { timeoutMs: 1 });
  assert.ok(!slow.ok && slow.kind === 'time', JSON.stringify(slow));
  const big = await p.probe(localModelPath(), { memoryLimitBytes: 1 });
  assert.ok(!big.ok && big.kind === 'memory' && /took \d+ MiB/.test(big.reason), JSON.stringify(big));
  assert.equal(p.pids.length, 2);
  for (const pid of p.pids) assert.ok(!alive(pid!), 'the child is gone');
  // Nothing was kept: the next probe starts a child again.
  await p.probe(localModelPath(), { timeoutMs: 1 });
  assert.equal(p.pids.length, 3);
});

test('a cancel rejects at once and kills the child', async () => {
  const p = prober();
  const ac = new AbortController();
  const probing = p.probe(localModelPath(), { signal: ac.signal, onStart: pid => (p.pids.push(pid), ac.abort()) });
  await assert.rejects(probing, (e: Error) => e.name === 'AbortError');
  const pid = p.pids[0]!;
  await until(() => !alive(pid), { what: `the probe's child ${pid} to end` });
  // Cancelled is no verdict: the next probe starts a child.
  await p.probe(localModelPath(), { timeoutMs: 1 });
  assert.equal(p.pids.length, 2);
});

test('two loads of one file wait for one probe; one of them cancelling leaves the other its verdict', async () => {
  const p = prober();
  const ac = new AbortController();
  const first = p.probe(localModelPath(), { signal: ac.signal });
  const second = p.probe(localModelPath());
  ac.abort();
  await assert.rejects(first, (e: Error) => e.name === 'AbortError');
  assert.deepEqual(await second, { ok: true, cached: false });
  assert.equal(p.pids.length, 1);
});

test('a verdicts file that is not JSON is no verdict', async () => {
  const p = prober();
  writeFileSync(p.store, '{ not json');
  assert.deepEqual(await p.probe(localModelPath(), { timeoutMs: 1 }).then(v => v.ok), false);
  assert.equal(p.pids.length, 1);
});

test("a child's end read: an abort, an error of llama.cpp's, a crash", () => {
  const assertion = '/home/runner/work/x/llama.cpp/src/llama-model.cpp:1226: GGML_ASSERT(hparams.n_layer_all > 0) failed\n';
  assert.deepEqual(verdictOf(null, 'SIGABRT', '', assertion), {
    ok: false,
    cached: false,
    kind: 'aborted',
    reason: 'llama-model.cpp:1226: GGML_ASSERT(hparams.n_layer_all > 0) failed',
  });
  assert.deepEqual(verdictOf(2, null, '{"ok":false,"message":"Failed to load model","errors":["unknown model architecture: \'x\'"]}\n', ''), {
    ok: false,
    cached: false,
    kind: 'refused',
    reason: "unknown model architecture: 'x' Failed to load model",
  });
  assert.deepEqual(verdictOf(null, 'SIGSEGV', '', ''), { ok: false, cached: false, kind: 'crashed', reason: 'it ended on SIGSEGV' });
});
