// What a test needs that the machine may lack (a Debian package, the local model, llama-server, Phoenix, the corpus):
// the error that says so in one line naming the fix, and the paths the provisioning scripts print.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** An error that reports as its one line (no stack): what is missing and the command that installs it. */
export function setupError(line: string): Error {
  const e = new Error(line);
  e.stack = line;
  return e;
}

const provisioned = new Map<string, string>();

/**
 * The path `node [...nodeArgs] script` prints on its last line (a provisioning script of scripts/: it installs once
 * per machine, then only prints), run once per process; a setup error naming `what` and the fix when it fails.
 */
export function provisionedPath(script: string, nodeArgs: readonly string[], what: string, fix: string): string {
  const known = provisioned.get(script);
  if (known) return known;
  // The checkout's root, found upwards from here (test/support under tsx, dist/test/vscode in a bundled suite).
  let root = __dirname;
  while (!existsSync(join(root, script))) {
    if (dirname(root) === root) throw new Error(`${script} not found above ${__dirname}`);
    root = dirname(root);
  }
  const r = spawnSync(process.execPath, [...nodeArgs, join(root, script)], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const path = r.stdout.trim().split('\n').at(-1);
  if (r.status !== 0 || !path)
    throw setupError(`this test needs ${what}: \`${['node', ...nodeArgs, script].join(' ')}\` failed (exit ${r.status ?? r.signal}); ${fix}`);
  provisioned.set(script, path);
  return path;
}
