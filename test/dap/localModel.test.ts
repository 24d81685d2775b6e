// The standalone debug adapter (dist/debugAdapter.js over stdio) with a local model file: a hostile GGUF file
// (test/support/hostileGguf.ts, issue 37 item 2) ends the session with one line, and the adapter lives on to take
// another launch (in VS Code the adapter runs inside the extension host: an abort there would end the editor's
// extensions); the launch attribute gpu reaches the runtime.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { hostileModels } from '../support/hostileGguf';
import { localModelPath } from '../support/localModel';
import { until } from '../support/until';
import { ArtDebugClient } from './adapter';

const ws = mkdtempSync(join(tmpdir(), 'art-dap-local-'));
const LIBRARY = join(ws, 'library.art');
writeFileSync(LIBRARY, readFileSync(resolve(__dirname, '../../examples/library.art'), 'utf8'));
const model = localModelPath();
// The probe's verdicts go to a cache folder of this file's own (the model was found in the real one above).
const cache = join(ws, '.cache');
mkdirSync(cache);
const hostile = hostileModels(ws);
after(async () => {
  await ArtDebugClient.closeAll();
  rmSync(ws, { recursive: true, force: true });
});

const LAUNCH = { program: LIBRARY, task: 'Elementary Math', input: 'Add 21 and 3.', mode: 'generate', modelSource: 'local' };

/** Launches, continues to the end of the session; resolves once it terminated. */
async function session(c: ArtDebugClient, extra: Record<string, unknown>): Promise<void> {
  const terminated = c.waitForEvent('terminated');
  await c.launchWith({ ...LAUNCH, ...extra });
  await c.continueRequest({ threadId: 1 }).catch(() => undefined);
  await terminated;
}

describe('debug adapter over stdio: a local model file', () => {
  test('a hostile file ends the session with one line; the adapter takes another launch', async () => {
    const c = await ArtDebugClient.start({ cwd: ws, env: { XDG_CACHE_HOME: cache } });
    const cases: [string, RegExp][] = [
      [hostile.headCount0, /: gemma3\.attention\.head_count is 0, but block 0 has attention tensors .*: the file is damaged or was altered/],
      [
        hostile.duplicateToken,
        /: llama\.cpp aborted loading it \(llama-vocab\.cpp:\d+: GGML_ASSERT\(.*\) failed\) in the separate process that checks a model file/,
      ],
    ];
    for (const [file, pattern] of cases) {
      await session(c, { modelFile: file });
      const said = c
        .output()
        .split('\n')
        .find(l => l.includes(`${file}: `));
      assert.ok(said, c.output());
      assert.match(said, pattern);
    }
  });

  test('the launch attribute gpu "cpu" reaches the runtime: the loading line says so', async () => {
    const c = await ArtDebugClient.start({ cwd: ws, env: { XDG_CACHE_HOME: cache } });
    await c.launchWith({ ...LAUNCH, modelFile: model, gpu: 'cpu', maxRequests: 1, maxTokens: 4 });
    await c.continueRequest({ threadId: 1 }).catch(() => undefined);
    // Its generation is not the point: the session is closed once the loading line is there.
    await until(() => / loaded in /.test(c.output()), { what: 'the model to load', timeoutMs: 120_000 });
    assert.match(c.output(), /local model: loading .* on the CPU \(gpu: "cpu"\)/);
  });
});
