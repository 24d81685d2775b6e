// Unit and protocol tests: node's own test runner over test/**/*.test.ts, TypeScript through tsx.
// Usage: node scripts/test.mjs [--no-build] [substring filter...]
//
// The bundles in dist/ (debug adapter, CLI, language server) are built once, before any test file starts, so every
// file tests the same, current sources; the test files themselves must not rebuild dist/ under each other's feet
// (ART_TEST_DIST_BUILT tells them it is done). --no-build: use dist/ as it is.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * No test file may run longer than this: a hung test (a run paused with nobody to continue it, a server left
 * listening) fails its file by name instead of hanging the whole run. Generous for a loaded 2-core machine (the
 * slowest file takes about 15 s there when idle); ART_TEST_LIMIT_SCALE multiplies it, as in test-all.mjs.
 */
const FILE_TIMEOUT_MS = 300_000 * Number(process.env.ART_TEST_LIMIT_SCALE ?? 1);

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const build = !args.includes('--no-build');
const filters = args.filter(a => a !== '--no-build');
const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (name === 'node_modules' || name === 'vscode') continue; // test/vscode runs inside code-server, not here
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith('.test.ts')) files.push(relative(root, p));
  }
})(join(root, 'test'));
const chosen = filters.length ? files.filter(f => filters.some(s => f.includes(s))) : files;
if (!chosen.length) { console.error('no test files match'); process.exit(1); }
const env = { ...process.env };
if (build) {
  const b = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
  if (b.status !== 0) { console.error('the build failed: no tests run'); process.exit(b.status ?? 1); }
  env.ART_TEST_DIST_BUILT = '1';
}
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=2', `--test-timeout=${FILE_TIMEOUT_MS}`, ...chosen], { cwd: root, stdio: 'inherit', env });
process.exit(r.status ?? 1);
