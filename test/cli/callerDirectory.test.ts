// Relative paths given to `art` start at the caller's folder, however it is started: `node dist/cli.js` from another
// folder, `npm run art --` (npm runs the script in the package's root, so the CLI goes by npm's INIT_CWD), and not
// when some other package's `art` script runs it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { callerDirectory } from '../../core/cli/main';

const ROOT = resolve(__dirname, '../..');
const CLI = join(ROOT, 'dist/cli.js');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** A folder outside the checkout with a copy of the examples' library. */
function outside(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'art-caller-')));
  cpSync(join(ROOT, 'examples/library.art'), join(dir, 'library.art'));
  return dir;
}

const run = (cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) =>
  spawnSync(cmd, args, { cwd, env, encoding: 'utf8', timeout: 120_000 });

test('node dist/cli.js from another folder reads library.art there', () => {
  const r = run(process.execPath, [CLI, 'check', 'library.art'], outside());
  assert.equal(r.stderr, '');
  assert.equal(r.stdout, 'checked 1 file: no problems\n');
  assert.equal(r.status, 0);
});

test('npm run art -- from a folder inside the checkout reads the path there, not in the package root', () => {
  const r = run(npm, ['run', '--silent', '--offline', 'art', '--', 'check', 'library.art'], join(ROOT, 'examples'));
  assert.equal(r.stdout, 'checked 1 file: no problems\n', r.stderr);
  assert.equal(r.status, 0);
});

test('npm --prefix CHECKOUT run art -- from any folder reads the path in that folder; a missing file names it', () => {
  const dir = outside();
  const r = run(npm, ['--prefix', ROOT, 'run', '--silent', '--offline', 'art', '--', 'check', 'library.art'], dir);
  assert.equal(r.stdout, 'checked 1 file: no problems\n', r.stderr);
  assert.equal(r.status, 0);
  const missing = run(npm, ['--prefix', ROOT, 'run', '--silent', '--offline', 'art', '--', 'check', 'nothing.art'], dir);
  assert.match(
    missing.stderr,
    new RegExp(`^nothing\\.art: no such file: check the path \\(relative paths start at ${dir.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\)$`, 'm'),
  );
  assert.equal(missing.status, 2);
});

test("INIT_CWD counts only in this package's own art script", () => {
  const npmScript = { npm_lifecycle_event: 'art', npm_package_name: 'art-studio', INIT_CWD: '/where/npm/was/started' };
  assert.equal(callerDirectory(npmScript, '/checkout'), '/where/npm/was/started');
  assert.equal(callerDirectory({ ...npmScript, npm_package_name: 'my-project' }, '/my-project'), '/my-project');
  assert.equal(callerDirectory({ ...npmScript, npm_lifecycle_event: 'npx' }, '/here'), '/here');
  assert.equal(callerDirectory({ npm_lifecycle_event: 'art', npm_package_name: 'art-studio' }, '/checkout'), '/checkout');
  assert.equal(callerDirectory({}, '/here'), '/here');
});
