// Tests that need a Debian package (installed by `npm run setup`, never by `npm test`) call requireDebianPackage
// first: when the package is missing the test fails with one line naming it and the fix, instead of a confusing
// error deep in a tool. Presence is checked by behaviour or by the file the package provides, not by dpkg, so a
// machine that has the same thing another way passes.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { setupError } from './provision';

const onPath = (cmd: string) => (process.env.PATH ?? '').split(delimiter).some(d => d && existsSync(join(d, cmd)));
const pythonImports = (module: string) => spawnSync('/usr/bin/python3', ['-c', `import ${module}`], { stdio: 'ignore' }).status === 0;

/** What each package gives the tests, checked the way the tests use it. */
export type DebianPackage = 'python3-sympy' | 'python3-numpy' | 'wamerican' | 'bubblewrap';

const PROBES: Record<DebianPackage, () => boolean> = {
  'python3-sympy': () => pythonImports('sympy'),
  'python3-numpy': () => pythonImports('numpy'),
  wamerican: () => existsSync('/usr/share/dict/words'),
  bubblewrap: () => onPath('bwrap'),
};

const known = new Map<string, boolean>();

/** True when the package's probe succeeds (cached per process). */
export function hasDebianPackage(pkg: DebianPackage): boolean {
  if (!known.has(pkg)) known.set(pkg, PROBES[pkg]());
  return known.get(pkg)!;
}

/** Throws one line (no stack) naming the missing package and `npm run setup` when the package is not there. */
export function requireDebianPackage(...pkgs: DebianPackage[]): void {
  const missing = pkgs.filter(p => !hasDebianPackage(p));
  if (!missing.length) return;
  throw setupError(
    `this test needs the Debian package${missing.length > 1 ? 's' : ''} ${missing.join(', ')}: run \`npm run setup\` (or sudo apt-get install ${missing.join(' ')})`,
  );
}
