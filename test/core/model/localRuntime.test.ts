// The local runtime (core/model/localRuntime.ts): one runtime, so one copy of the model in memory, per file and
// settings, nothing loaded by asking for it; and its load path: the hostile files of issue 37 refused in one line
// before llama.cpp or a child process sees them, a context counted in the memory check and refused past the model's
// trained length, a load cancelled while its file is probed, and the GPU choice said once in the loading line.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_LOCAL_SEQUENCES } from '../../../core/model/defaultModel';
import { LocalModel } from '../../../core/model/localModel';
import { checkContext, checkModelFile, disposeLocalRuntimes, localRuntime } from '../../../core/model/localRuntime';
import { hostileModels } from '../../support/hostileGguf';
import { localModelPath } from '../../support/localModel';
import { until } from '../../support/until';

const dir = mkdtempSync(join(tmpdir(), 'art-runtime-'));
const model = localModelPath();
// The probe's verdicts of this file's loads go to a cache folder of its own (once the model is found in the real
// one): the first load of the real model probes.
process.env.XDG_CACHE_HOME = join(dir, 'cache');
after(async () => {
  await disposeLocalRuntimes();
  rmSync(dir, { recursive: true, force: true });
});
const hostile = hostileModels(dir);
const MiB = 2 ** 20;

/** This process's children (Linux): the probe's child while it runs. */
const children = () => readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);

/** A request on a model of `file` that must fail: its error, and the log lines of its load. */
async function failure(file: string, o: { contextSize?: number } = {}): Promise<{ message: string; log: string[] }> {
  const log: string[] = [];
  const m = new LocalModel({ file, ...o, log: l => log.push(l) });
  const e = await m.complete({ prompt: 'x', maxTokens: 1 }).then(
    () => assert.fail('it loaded'),
    (err: Error) => err,
  );
  assert.equal(e.name, 'LocalModelError');
  assert.ok(!e.message.includes('\n'), e.message);
  assert.ok(e.message.startsWith(`${file}: `), e.message);
  return { message: e.message, log };
}

test('the default number of sequences and the same number given are one runtime; another number is another', async () => {
  const file = '/models/none.gguf';
  try {
    assert.equal(localRuntime({ file }), localRuntime({ file, sequences: DEFAULT_LOCAL_SEQUENCES }));
    assert.notEqual(localRuntime({ file }), localRuntime({ file, sequences: 1 }));
    assert.notEqual(localRuntime({ file }), localRuntime({ file, gpu: 'cpu' }));
  } finally {
    await disposeLocalRuntimes();
  }
});

test('the hostile files of issue 37 are each one line naming the file, the field and the fix; nothing loads them', async () => {
  const cases: [string, RegExp][] = [
    [
      hostile.headCount0,
      /gemma3\.attention\.head_count is 0, but block 0 has attention tensors .*: the file is damaged or was altered: download it again/,
    ],
    [hostile.blockCount, /gemma3\.block_count is 4294967295; llama\.cpp needs a whole number from 1 to 512: the file is damaged/],
    [hostile.keys2e62, /metadata count is 4611686018427387904, more than a file of 24 bytes can hold: the file is damaged/],
  ];
  for (const [file, pattern] of cases) {
    const { message, log } = await failure(file);
    assert.match(message, pattern);
    assert.deepEqual(log, [], 'no probe, no load');
  }
});

test('a context of 200000 tokens is refused in one line before llama.cpp allocates it', async () => {
  const { message, log } = await failure(model, { contextSize: 200_000 });
  assert.match(message, /a context of 200000 tokens is longer than the 32768 the model was trained for: set a context size of at most 32768/);
  assert.deepEqual(log, []);
});

test("the memory check counts the context's KV cache, not only the file", () => {
  const file = model;
  const { bytes, shape } = checkModelFile(file);
  // Gemma 3 270M: 18432 bytes of KV cache a token; 8192 tokens x 2 sequences is 288 MiB beside the 241 MiB file.
  const kv = 18432 * 8192 * 2;
  assert.equal(checkContext(file, bytes, shape, { contextSize: 8192, sequences: 2 }, bytes + kv + MiB), 8192);
  assert.throws(
    () => checkContext(file, bytes, shape, { contextSize: 8192, sequences: 2 }, bytes + kv - MiB),
    (e: Error) =>
      /the model \(241 MiB\) and its context of 8192 tokens x 2 sequences \(288 MiB of KV cache\) need 529 MiB, more than the free memory \(528 MiB\): set a smaller context size/.test(
        e.message,
      ),
  );
  // The file alone would have fitted.
  assert.ok(bytes < bytes + kv - MiB);
});

test('Stop while the file is probed ends the load and kills the child', async () => {
  const ac = new AbortController();
  const m = new LocalModel({ file: model, log: l => /checking/.test(l) && ac.abort() });
  await assert.rejects(m.complete({ prompt: 'x', maxTokens: 1, signal: ac.signal }), (e: Error) => e.name === 'AbortError');
  await until(() => children().length === 0, { what: "the probe's child to end" });
});

test('gpu "auto" on a machine without a GPU runs on the CPU and says so once; the second load of the file is not probed', async () => {
  const log: string[] = [];
  const auto = new LocalModel({ file: model, contextSize: 256, log: l => log.push(l) });
  assert.ok((await auto.complete({ prompt: 'Hello', maxTokens: 1, temperature: 0 })).usage!.completionTokens <= 1);
  assert.equal(log.filter(l => /checking .* in a separate process/.test(l)).length, 1, log.join('\n'));
  assert.equal(log.filter(l => /on the CPU \(no GPU that llama\.cpp can use was found\)/.test(l)).length, 1, log.join('\n'));
  // gpu "cpu" is another runtime, on the same backend: the file's verdict is remembered.
  const cpuLog: string[] = [];
  const cpu = new LocalModel({ file: model, contextSize: 256, gpu: 'cpu', log: l => cpuLog.push(l) });
  await cpu.complete({ prompt: 'Hello', maxTokens: 1, temperature: 0 });
  assert.ok(
    cpuLog.some(l => /loading .* on the CPU \(gpu: "cpu"\)/.test(l)),
    cpuLog.join('\n'),
  );
  assert.ok(!cpuLog.some(l => /checking/.test(l)), cpuLog.join('\n'));
});
