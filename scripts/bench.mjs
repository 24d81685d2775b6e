// `npm run bench`: bundles bench/main.ts with esbuild (minified, as the shipped server and CLI are) and runs it,
// so the figures are those of production code rather than of a TypeScript loader. Arguments pass through.
import { spawnSync } from 'node:child_process';
import * as esbuild from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
await esbuild.build({
  absWorkingDir: root,
  entryPoints: ['bench/main.ts'],
  bundle: true,
  outfile: '.bench/bench.js',
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // The local model's runtime (node-llama-cpp: an ES module with native binaries) loads from node_modules, as in dist/.
  external: ['node-llama-cpp'],
  minify: true,
  logLevel: 'warning',
  // As scripts/build.mjs: jsonc-parser's UMD main cannot be bundled, its ESM build can (the run benchmarks load the tools).
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
});
const r = spawnSync(process.execPath, ['--expose-gc', '.bench/bench.js', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
process.exit(r.status ?? 1);
