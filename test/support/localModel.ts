// Every test that needs the real local model finds it here: the default model (core/model/defaultModel.ts) in the
// models folder outside the checkout, provisioned by scripts/model.mjs when missing (once per machine: a second run
// fetches nothing). `npm run setup` provisions it too, so the test line never downloads in the middle of a suite.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The checkout's root, found upwards from here (test/support under tsx, dist/test/vscode in a bundled suite). */
const root = (() => {
  for (let d = __dirname; ; d = dirname(d)) {
    if (existsSync(join(d, 'scripts/model.mjs'))) return d;
    if (dirname(d) === d) throw new Error(`scripts/model.mjs not found above ${__dirname}`);
  }
})();
let known: string | undefined;

/** The path of the default local model's GGUF file; throws one line naming the fix when it cannot be provisioned. */
export function localModelPath(): string {
  if (known) return known;
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'scripts/model.mjs')], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const path = r.stdout.trim().split('\n').at(-1);
  if (r.status !== 0 || !path) {
    const msg = `this test needs the local model: \`node --import tsx scripts/model.mjs\` failed (exit ${r.status ?? r.signal}); run it to see why`;
    const e = new Error(msg);
    e.stack = msg;
    throw e;
  }
  return (known = path);
}
