// `art` in the workspace's terminals (client/cliOnPath.ts): the launcher the extension writes runs its own command line
// from any folder, a path with spaces and quotes included, as a terminal with the launcher's folder on its PATH does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { writeCliLauncher } from '../../client/cliOnPath';

const CLI = join(__dirname, '../../dist/cli.js');

test("the launcher runs the extension's art command line from the terminal's PATH", { skip: process.platform === 'win32' }, () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'art-bin-')), "it's a folder");
  writeCliLauncher(dir, CLI, process.execPath);
  const cwd = mkdtempSync(join(tmpdir(), 'art-cwd-'));
  const r = spawnSync('sh', ['-c', 'art --help'], { cwd, encoding: 'utf8', env: { ...process.env, PATH: `${dir}${delimiter}${process.env.PATH}` } });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^usage: art /m);
});
