// What checking a model file in a child process costs at load (core/model/modelProbe.ts): for the default model and
// Qwen2.5-Coder-1.5B-Instruct (from the models folder; a model that is not there is skipped with a line saying so),
// the first load of a file (the header checks, the probe's child, then the load in this process) against its second
// (the verdict remembered: the checks and the load only), interleaved, the median of ROUNDS of each. The verdicts go
// to a cache folder of the benchmark's own, emptied before each first load.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { GEMMA_3_270M, QWEN_CODER_15B } from '../core/model/catalog';
import { LocalModel } from '../core/model/localModel';
import { disposeLocalRuntimes } from '../core/model/localRuntime';

const ROUNDS = 3;
const FOLDER = join(homedir(), '.cache/art-studio/models');

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function loadMs(file: string): Promise<number> {
  await disposeLocalRuntimes();
  const t = performance.now();
  await new LocalModel({ file }).load();
  const ms = performance.now() - t;
  await disposeLocalRuntimes();
  return ms;
}

export async function benchModelLoad(): Promise<Record<string, string | number>> {
  const out: Record<string, string | number> = { 'model load: load average at start': loadavg()[0].toFixed(1) };
  const cacheHome = process.env.XDG_CACHE_HOME;
  try {
    for (const m of [GEMMA_3_270M, QWEN_CODER_15B]) {
      const file = join(FOLDER, m.file);
      if (!existsSync(file)) {
        out[`model load: ${m.name}`] = `skipped: no ${file} (node --import tsx scripts/model.mjs ${m.id} provisions it)`;
        continue;
      }
      const first: number[] = [];
      const second: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        const cache = mkdtempSync(join(tmpdir(), 'art-bench-probe-'));
        process.env.XDG_CACHE_HOME = cache;
        first.push(await loadMs(file));
        second.push(await loadMs(file));
        rmSync(cache, { recursive: true, force: true });
      }
      out[`model load: ${m.name}, first load, probed (ms)`] = median(first).toFixed(0);
      out[`model load: ${m.name}, second load, verdict remembered (ms)`] = median(second).toFixed(0);
    }
  } finally {
    if (cacheHome === undefined) delete process.env.XDG_CACHE_HOME;
    else process.env.XDG_CACHE_HOME = cacheHome;
  }
  out['model load: load average at end'] = loadavg()[0].toFixed(1);
  return out;
}
