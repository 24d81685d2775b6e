// `npm run package [-- --target T]`: the VSIX. Without --target, the universal VSIX: the bundles and no native code,
// so a local model cannot run from it (choosing one says to install the platform's VSIX). With --target (VS Code's
// platform names: linux-x64, linux-arm64, linux-armhf, darwin-x64, darwin-arm64, win32-x64, win32-arm64), the VSIX
// for that platform also carries node-llama-cpp (local models) in dist/node_modules: its JavaScript, its runtime
// dependencies and the one prebuilt CPU binary package of the target (as rust-analyzer ships one server binary per
// platform). The llama.cpp source bundle node-llama-cpp carries for building from source is left out: a VSIX never
// builds. A binary package not installed here (another OS's) is fetched with `npm pack` into a cache outside the
// checkout. dist/node_modules is removed again afterwards, so the checkout's own runs are unchanged.
// Usage: node scripts/package.mjs [--target linux-x64|host] [--out FILE.vsix]   (host: this machine's platform)
// npm start and the end-to-end suite package for the host (packageExtension, hostTarget).
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = new URL('..', import.meta.url).pathname.replace(/\/$/, '');

/** VS Code's platform name -> node-llama-cpp's prebuilt CPU binary package (the GPU ones are documented, not shipped). */
export const BINARY_PACKAGES = {
  'linux-x64': '@node-llama-cpp/linux-x64',
  'linux-arm64': '@node-llama-cpp/linux-arm64',
  'linux-armhf': '@node-llama-cpp/linux-armv7l',
  'darwin-x64': '@node-llama-cpp/mac-x64',
  'darwin-arm64': '@node-llama-cpp/mac-arm64-metal',
  'win32-x64': '@node-llama-cpp/win-x64',
  'win32-arm64': '@node-llama-cpp/win-arm64',
};

const staged = join(ROOT, 'dist/node_modules');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const vsce = join(ROOT, 'node_modules/.bin/vsce');

function fail(msg) {
  throw new Error(`npm run package: ${msg}`);
}

/** VS Code's platform name of this machine (a VSIX target). */
export function hostTarget() {
  const os = { linux: 'linux', darwin: 'darwin', win32: 'win32' }[process.platform];
  const arch = { x64: 'x64', arm64: 'arm64', arm: 'armhf' }[process.arch];
  const target = os && arch ? `${os}-${arch}` : undefined;
  if (!target || !BINARY_PACKAGES[target]) fail(`no local model runtime is packaged for ${process.platform}-${process.arch}`);
  return target;
}

/** The folder Node would load `name` from when required from `from` (node_modules upwards), or undefined. */
function locate(name, from) {
  for (let d = from; ; d = dirname(d)) {
    const p = join(d, 'node_modules', name);
    if (existsSync(join(p, 'package.json'))) return p;
    if (d === ROOT || dirname(d) === d) return undefined;
  }
}

/** node-llama-cpp and what it needs at run time (its dependencies, recursively; no optional platform packages). */
function runtimeClosure() {
  const found = new Set();
  const visit = dir => {
    if (found.has(dir)) return;
    found.add(dir);
    const deps = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).dependencies ?? {};
    for (const name of Object.keys(deps)) {
      const at = locate(name, dir);
      if (!at) fail(`${name}, a dependency of ${relative(ROOT, dir)}, is not installed: run npm ci`);
      visit(at);
    }
  };
  const top = locate('node-llama-cpp', ROOT);
  if (!top) fail('node-llama-cpp is not installed: run npm ci');
  visit(top);
  return [...found];
}

/** The binary package's folder: installed here, or fetched once with npm pack into ~/.cache/art-studio/npm-pack. */
function binaryPackage(name, version) {
  const here = locate(name, join(ROOT, 'node_modules/node-llama-cpp'));
  if (here && JSON.parse(readFileSync(join(here, 'package.json'), 'utf8')).version === version) return here;
  const cache = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'art-studio', 'npm-pack', `${name.replace('/', '+')}@${version}`);
  if (!existsSync(join(cache, 'package/package.json'))) {
    mkdirSync(cache, { recursive: true });
    console.log(`Fetching ${name}@${version} (npm pack)...`);
    const file = execFileSync('npm', ['pack', `${name}@${version}`, '--silent', '--pack-destination', cache], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .at(-1);
    execFileSync('tar', ['-xzf', join(cache, file), '-C', cache]);
    rmSync(join(cache, file));
  }
  return join(cache, 'package');
}

/**
 * vsce with its output shown (its file listing only when not `quiet`), but for its "you should bundle your extension"
 * warning: the extension's own code is bundled (dist/*.js); the JavaScript files it counts are node-llama-cpp's in
 * dist/node_modules, loaded only when a local model runs, as that package ships them. One line says so instead.
 */
function runVsce(args, quiet) {
  const r = spawnSync(vsce, args, { cwd: ROOT, encoding: 'utf8' });
  const shown = text =>
    text
      .split('\n')
      .filter(line => !/you should bundle your extension/.test(line))
      .join('\n');
  if (!quiet) process.stdout.write(shown(r.stdout ?? ''));
  process.stderr.write(shown(r.stderr ?? ''));
  if (r.status !== 0) fail(`vsce ${args.join(' ')} failed (exit ${r.status ?? r.signal})`);
  if (/you should bundle your extension/.test(`${r.stdout}${r.stderr}`) && !quiet)
    console.log("vsce counts node-llama-cpp's JavaScript files in dist/node_modules (local models): ART Studio's own code is bundled.");
}

/**
 * Builds and packages the VSIX: universal without `target`, else for that platform with node-llama-cpp. Returns the
 * VSIX's path. `quiet` keeps vsce's listing off the console.
 */
export function packageExtension({ target, out, quiet = false } = {}) {
  if (target === 'host') target = hostTarget();
  rmSync(staged, { recursive: true, force: true });
  const args = ['package', '--no-dependencies'];
  const stdio = quiet ? ['ignore', 'ignore', 'inherit'] : 'inherit';
  try {
    if (target) {
      const binary = BINARY_PACKAGES[target];
      if (!binary) fail(`--target ${target}: one of ${Object.keys(BINARY_PACKAGES).join(', ')}`);
      const version = JSON.parse(readFileSync(join(locate('node-llama-cpp', ROOT), 'package.json'), 'utf8')).version;
      execFileSync(process.execPath, [join(ROOT, 'scripts/build.mjs')], { stdio });
      for (const dir of runtimeClosure())
        cpSync(dir, join(staged, relative(join(ROOT, 'node_modules'), dir)), {
          recursive: true,
          // Only the package itself: its nested node_modules are in the closure on their own when needed.
          filter: src => !relative(dir, src).split('/').includes('node_modules') && !/\/llama\/(gitRelease\.bundle|llama\.cpp)(\/|$)/.test(src),
        });
      cpSync(binaryPackage(binary, version), join(staged, binary), { recursive: true });
      args.push('--target', target);
    }
    out ??= join(ROOT, `${pkg.name}-${target ? `${target}-` : ''}${pkg.version}.vsix`);
    args.push('--out', out);
    runVsce(args, quiet);
    if (!quiet)
      console.log(
        `${relative(process.cwd(), out) || out}: ${(statSync(out).size / 1e6).toFixed(1)} MB${target ? ` (${target}, local models with ${BINARY_PACKAGES[target]})` : ' (universal: no local model runtime)'}`,
      );
    return out;
  } finally {
    rmSync(staged, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { target: { type: 'string' }, out: { type: 'string' } } });
  try {
    packageExtension(values);
  } catch (e) {
    console.error(e instanceof Error ? e.message : String(e));
    process.exit(1);
  }
}
