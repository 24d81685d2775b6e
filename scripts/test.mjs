// Unit and protocol tests: node's own test runner over test/**/*.test.ts, TypeScript through tsx.
// Usage: node scripts/test.mjs [substring filter...]
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const filters = process.argv.slice(2);
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
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=2', ...chosen], { cwd: root, stdio: 'inherit' });
process.exit(r.status ?? 1);
