// End-to-end tests as a person would use ART Studio: Playwright drives Debian's Chromium on the code-server
// workbench with the keyboard and the mouse. By default the extension is packaged (`vsce package`) and the VSIX
// installed into code-server, as a user would; --dev loads it from this repository instead.
// Scenarios are the modules in test/vscode/e2e/ (run in name order); each exports `title` and `run(t)`.
// A failed step saves a screenshot to test-results/ and the run continues with the next scenario.
// Usage: node test/vscode/e2e.mjs [--dev] [--no-build] [--only SUBSTRING] [--pictures]
// E2E_KEEP_LOGS=1 keeps the workbench's and the extension's logs in test-results/logs/ after a run that passed too.
// --pictures: also save the README's pictures (images/screenshots/*.png) where the scenarios take them, so the
// pictures show what the suite just saw a person get.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
  options: { dev: { type: 'boolean' }, 'no-build': { type: 'boolean' }, only: { type: 'string' }, pictures: { type: 'boolean' } },
});
const RESULTS = join(ROOT, 'test-results');
const started = Date.now();

ensureInstalled();
const workspace = copyWorkspace(join(ROOT, 'test/vscode/workspace'));
const dataDir = mkdtempSync(join(tmpdir(), 'art-e2e-'));
writeUserSettings(dataDir);

let payload = [['skipWelcome', 'true']];
if (opts.dev) {
  if (!opts['no-build']) buildExtension();
} else {
  // The VSIX for this platform, as npm start installs it: with node-llama-cpp, so local models run.
  const vsix = packageExtension({ target: 'host', out: join(dataDir, 'art-studio.vsix'), quiet: true });
  const r = codeServerCommand(['--extensions-dir', join(dataDir, 'ext'), '--user-data-dir', join(dataDir, 'user'), '--install-extension', vsix]);
  if (r.status !== 0) throw new Error(`installing the VSIX failed:\n${r.stdout}\n${r.stderr}`);
  console.log(`installed ${EXTENSION_ID} from a freshly packaged VSIX`);
}

// The test-only provider of Language Model API models (test/vscode/lm-provider/), installed beside ART Studio.
await installTestModels(dataDir);

const scenarios = [];
for (const file of readdirSync(join(ROOT, 'test/vscode/e2e'))
  .filter(f => /^\d+-.*\.mjs$/.test(f))
  .sort()) {
  const mod = await import(`./e2e/${file}`);
  if (!opts.only || mod.title.includes(opts.only)) scenarios.push(mod);
}

const server = await startCodeServer({ workspace, dataDir });
const browser = await launchBrowser();
const results = [];
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('pageerror', e => console.error(`[page error] ${e.message}`));
  if (opts.dev) payload = [['extensionDevelopmentPath', remoteUri(server, ROOT)], ...payload];
  await page.goto(workbenchUrl(server, workspace, payload));
  const wb = workbench(page, workspace);

  /** One named check; on failure a screenshot, then the scenario stops (later scenarios still run). */
  const step = async (name, fn) => {
    const t0 = Date.now();
    try {
      await fn();
      results.push({ name, ok: true });
      console.log(`  ✔ ${name} (${Date.now() - t0} ms)`);
    } catch (e) {
      mkdirSync(RESULTS, { recursive: true });
      const shot = join(RESULTS, `e2e-${name.replace(/\W+/g, '_').slice(0, 80)}.png`);
      await page.screenshot({ path: shot }).catch(() => {});
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

  for (const scenario of scenarios) {
    console.log(scenario.title);
    try {
      await scenario.run({ page, step, wb, workspace, picture, dataDir });
    } catch (e) {
      if (!e?.reported) {
        results.push({ name: `${scenario.title}: setup`, ok: false });
        console.log(`  ✘ ${e?.message ?? e}`);
      }
    }
    // The next scenario starts from a clean workbench: a reset that fails is counted as a failure (with a screenshot).
    await wb.reset().catch(async e => {
      mkdirSync(RESULTS, { recursive: true });
      const shot = join(RESULTS, `e2e-reset-after-${scenario.title.replace(/\W+/g, '_').slice(0, 60)}.png`);
      await page.screenshot({ path: shot }).catch(() => {});
      results.push({ name: `${scenario.title}: reset`, ok: false });
      console.log(`  ✘ resetting the workbench: ${String(e?.message ?? e).split('\n')[0]}\n    screenshot: ${shot.slice(ROOT.length + 1)}`);
    });
  }
} finally {
  await browser.close().catch(() => {});
  await server.stop();
  // After a failure, the workbench's and the extension's logs beside the screenshots (test-results/logs/).
  if (process.env.E2E_KEEP_LOGS || results.some(r => !r.ok))
    cpSync(join(dataDir, 'user', 'logs'), join(RESULTS, 'logs'), { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
}
const passed = results.filter(r => r.ok).length;
const failed = results.length - passed + (scenarios.length === 0 ? 1 : 0);
console.log(`e2e finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
console.log(`e2e: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
