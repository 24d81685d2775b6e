// End-to-end tests as a person would use ART Studio: Playwright drives Debian's Chromium on the code-server
// workbench with the keyboard and the mouse. By default the extension is packaged (`vsce package`) and the VSIX
// installed into code-server, as a user would; --dev loads it from this repository instead.
// Scenarios are the modules in test/vscode/e2e/ (run in name order); each exports `title` and `run(t)`.
// A failed step saves a screenshot to test-results/ and the run continues with the next scenario.
// Usage: node test/vscode/e2e.mjs [--dev] [--no-build] [--only NN|SUBSTRING[,...]] [--pictures] [--repeat N]
// --only: the scenarios whose file name starts with it (`--only 26`) or whose title holds it; several, comma-separated.
// --repeat N: the whole suite N times in a row, each round on a fresh workspace, profile and code-server (the VSIX
// packaged once); every round's figures and time are printed, and the run fails if any round did.
// E2E_KEEP_LOGS=1 keeps the workbench's and the extension's logs in test-results/logs/ after a run that passed too.
// --pictures: also save the README's pictures (images/screenshots/*.png) where the scenarios take them, so the
// pictures show what the suite just saw a person get.
// Every scenario starts from the same workbench (wb.reset(): no editor, dialog, quick input, panel or debug session,
// the Explorer shown) and the same settings files (the workspace's .vscode/, the user's and the machine's settings as
// the round began): none depends on what an earlier one left.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, stripVTControlCharacters } from 'node:util';
import {
  buildExtension,
  codeServerCommand,
  copyWorkspace,
  ensureInstalled,
  EXTENSION_ID,
  launchBrowser,
  remoteUri,
  ROOT,
  startCodeServer,
  workbenchUrl,
  writeUserSettings,
} from '../../scripts/code-server.mjs';
import { packageExtension } from '../../scripts/package.mjs';
import { workbench } from './e2e/workbench.mjs';
import { installTestModels } from './build-suite.mjs';

const { values: opts } = parseArgs({
  options: {
    dev: { type: 'boolean' },
    'no-build': { type: 'boolean' },
    only: { type: 'string' },
    pictures: { type: 'boolean' },
    repeat: { type: 'string', default: '1' },
  },
});
const RESULTS = join(ROOT, 'test-results');
const rounds = Number(opts.repeat);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--repeat ${opts.repeat}: give a whole number of rounds, 1 or more`);

ensureInstalled();
const scenarios = [];
for (const file of readdirSync(join(ROOT, 'test/vscode/e2e'))
  .filter(f => /^\d+-.*\.mjs$/.test(f))
  .sort()) {
  const mod = await import(`./e2e/${file}`);
  const wanted = opts.only?.split(',').filter(Boolean);
  if (!wanted || wanted.some(w => file.startsWith(w) || mod.title.includes(w))) scenarios.push(mod);
}

let vsix;
if (opts.dev) {
  if (!opts['no-build']) buildExtension();
} else {
  // The VSIX for this platform, as npm start installs it: with node-llama-cpp, so local models run. Packaged once for
  // every round.
  const out = mkdtempSync(join(tmpdir(), 'art-e2e-vsix-'));
  vsix = packageExtension({ target: 'host', out: join(out, 'art-studio.vsix'), quiet: true });
}

/** The settings files a scenario may change (and should put back), as the round began; `put back` restores them. */
function settingsFiles(workspace, dataDir) {
  const files = [
    join(workspace, '.vscode/settings.json'),
    join(workspace, '.vscode/launch.json'),
    join(dataDir, 'user/User/settings.json'),
    join(dataDir, 'user/Machine/settings.json'),
  ];
  const was = files.map(f => (existsSync(f) ? readFileSync(f, 'utf8') : null));
  return () => {
    const restored = [];
    files.forEach((f, i) => {
      const now = existsSync(f) ? readFileSync(f, 'utf8') : null;
      if (now === was[i]) return;
      if (was[i] === null) rmSync(f, { force: true });
      else writeFileSync(f, was[i]);
      restored.push(`${f.startsWith(workspace) ? f.slice(workspace.length + 1) : f.slice(dataDir.length + 1)}${changedKeys(was[i], now)}`);
    });
    return restored;
  };
}

/** The keys two JSON texts of settings differ in, as ` (a, b)`; empty when either is not JSON. */
function changedKeys(a, b) {
  try {
    const [x, y] = [JSON.parse(a ?? '{}'), JSON.parse(b ?? '{}')];
    const keys = [...new Set([...Object.keys(x), ...Object.keys(y)])].filter(k => JSON.stringify(x[k]) !== JSON.stringify(y[k]));
    return keys.length ? ` (${keys.join(', ')})` : ' (formatting)';
  } catch {
    return '';
  }
}

/** One round of the whole suite on a fresh workspace, profile and code-server; resolves with its step results. */
async function round(n) {
  const workspace = copyWorkspace(join(ROOT, 'test/vscode/workspace'));
  const dataDir = mkdtempSync(join(tmpdir(), 'art-e2e-'));
  writeUserSettings(dataDir);
  let payload = [['skipWelcome', 'true']];
  if (vsix) {
    const r = codeServerCommand(['--extensions-dir', join(dataDir, 'ext'), '--user-data-dir', join(dataDir, 'user'), '--install-extension', vsix]);
    if (r.status !== 0) throw new Error(`installing the VSIX failed:\n${r.stdout}\n${r.stderr}`);
    console.log(`installed ${EXTENSION_ID} from a freshly packaged VSIX`);
  }
  // The test-only provider of Language Model API models (test/vscode/lm-provider/), installed beside ART Studio.
  await installTestModels(dataDir);
  let putBack;
  const tag = rounds > 1 ? `round${n}-` : '';

  const server = await startCodeServer({ workspace, dataDir });
  const browser = await launchBrowser();
  const results = [];
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on('pageerror', e => console.error(`[page error] ${e.message}`));
    if (opts.dev) payload = [['extensionDevelopmentPath', remoteUri(server, ROOT)], ...payload];
    await page.goto(workbenchUrl(server, workspace, payload));
    const wb = workbench(page, workspace);

    const screenshot = async name => {
      mkdirSync(RESULTS, { recursive: true });
      const shot = join(RESULTS, `e2e-${tag}${name.replace(/\W+/g, '_').slice(0, 80)}.png`);
      await page.screenshot({ path: shot }).catch(() => {});
      return shot;
    };

    /** One named check; on failure a screenshot, then the scenario stops (later scenarios still run). */
    const step = async (name, fn) => {
      const t0 = Date.now();
      try {
        await fn();
        results.push({ name, ok: true });
        console.log(`  ✔ ${name} (${Date.now() - t0} ms)`);
      } catch (e) {
        const shot = await screenshot(name);
        results.push({ name, ok: false });
        // The message's first line, and for a Playwright timeout the element it waited for (its call log's first line);
        // the whole message beside the screenshot.
        const message = stripVTControlCharacters(String(e?.message ?? e));
        writeFileSync(shot.replace(/\.png$/, '.txt'), `${message}\n${e?.stack ?? ''}\n`);
        const lines = message.split('\n');
        const waited = lines.find(l => /^\s*- waiting for /.test(l));
        console.log(`  ✘ ${name}: ${lines[0]}${waited ? ` (${waited.trim().slice(2)})` : ''}\n    screenshot: ${shot.slice(ROOT.length + 1)}`);
        throw Object.assign(e instanceof Error ? e : new Error(String(e)), { reported: true });
      }
    };

    /** A picture for the README (images/screenshots/NAME.png), taken only with --pictures. */
    const picture = async name => {
      if (!opts.pictures) return;
      const dir = join(ROOT, 'images', 'screenshots');
      mkdirSync(dir, { recursive: true });
      // Animations (a quick pick fading in) are finished first: the picture shows what a person sees once it settles.
      await page.screenshot({ path: join(dir, `${name}.png`), animations: 'disabled' });
      console.log(`     picture: images/screenshots/${name}.png`);
    };

    /**
     * The workbench every scenario starts from: the settings files as the round began, then wb.reset(). A reset that
     * fails is counted as a failure (with a screenshot naming what was left); the window is then reloaded (a new
     * workbench and extension host on the same workspace) and reset again, so the next scenario still starts clean.
     */
    const begin = async (before, first) => {
      if (first) {
        await wb.ready('clean.art');
        putBack = settingsFiles(workspace, dataDir);
      }
      const restored = putBack();
      if (restored.length) console.log(`     put back as the round began: ${restored.join(', ')}`);
      try {
        await wb.reset();
      } catch (e) {
        const shot = await screenshot(`reset-before-${before.replace(/\W+/g, '_').slice(0, 60)}`);
        results.push({ name: `reset before: ${before}`, ok: false });
        console.log(`  ✘ resetting the workbench: ${String(e?.message ?? e).split('\n')[0]}\n    screenshot: ${shot.slice(ROOT.length + 1)}`);
        await page.reload();
        await wb.ready('clean.art');
        await wb.reset();
      }
    };

    for (const [i, scenario] of scenarios.entries()) {
      await begin(scenario.title, i === 0);
      console.log(scenario.title);
      try {
        await scenario.run({ page, step, wb, workspace, picture, dataDir });
      } catch (e) {
        if (!e?.reported) {
          results.push({ name: `${scenario.title}: setup`, ok: false });
          console.log(`  ✘ ${e?.message ?? e}`);
        }
      }
    }
    // The last scenario leaves a workbench that resets too.
    await begin('the end of the round', false);
  } finally {
    await browser.close().catch(() => {});
    await server.stop();
    // After a failure, the workbench's and the extension's logs beside the screenshots (test-results/logs/).
    if (process.env.E2E_KEEP_LOGS || results.some(r => !r.ok))
      cpSync(join(dataDir, 'user', 'logs'), join(RESULTS, `${tag}logs`), { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
  return results;
}

const started = Date.now();
const summary = [];
for (let n = 1; n <= rounds; n++) {
  const t0 = Date.now();
  if (rounds > 1) console.log(`\n== e2e round ${n} of ${rounds} (load average ${loadavg()[0].toFixed(2)})`);
  let results;
  try {
    results = await round(n);
  } catch (e) {
    console.log(`  ✘ round ${n} did not run: ${e?.message ?? e}`);
    results = [{ name: `round ${n}`, ok: false }];
  }
  const passed = results.filter(r => r.ok).length;
  const failed = results.length - passed + (scenarios.length === 0 ? 1 : 0);
  const seconds = (Date.now() - t0) / 1000;
  summary.push({ n, passed, failed, seconds, load: loadavg()[0] });
  if (rounds > 1)
    console.log(`== round ${n}: ${passed} passed, ${failed} failed in ${seconds.toFixed(1)} s (load average ${loadavg()[0].toFixed(2)})`);
}
if (rounds > 1) {
  console.log('\nrounds:');
  for (const r of summary)
    console.log(`  round ${r.n}: ${r.passed} passed, ${r.failed} failed, ${r.seconds.toFixed(1)} s, load average ${r.load.toFixed(2)} at its end`);
}
const passed = summary.reduce((k, r) => k + r.passed, 0);
const failed = summary.reduce((k, r) => k + r.failed, 0);
console.log(`e2e finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
console.log(`e2e: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
