// Runs the integration suite (mocha inside the extension host) in a real VS Code: code-server with the
// smoke-test driver, which loads the extension from this repository (extensionDevelopmentPath) and runs
// dist/test/vscode/suite.js (extensionTestsPath); Playwright's Chromium opens the workbench and receives the
// host's log and exit code through codeAutomationLog / codeAutomationExit.
// Usage: node test/vscode/run-integration.mjs [--no-build] [--grep PATTERN] [--timeout SECONDS] [--verbose]
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { format, parseArgs } from 'node:util';
import {
  buildExtension,
  copyWorkspace,
  ensureInstalled,
  isWorkbenchNoise,
  launchBrowser,
  remoteUri,
  ROOT,
  startCodeServer,
  workbenchUrl,
  writeUserSettings,
} from '../../scripts/code-server.mjs';
import { buildSuite, installTestModels } from './build-suite.mjs';

const { values: opts } = parseArgs({
  options: { 'no-build': { type: 'boolean' }, grep: { type: 'string' }, timeout: { type: 'string', default: '240' }, verbose: { type: 'boolean' } },
});
const RESULTS = join(ROOT, 'test-results');
const SUMMARY = /^integration: (\d+) passed, (\d+) failed$/m;

ensureInstalled();
if (!opts['no-build']) buildExtension();
const suite = await buildSuite();
const workspace = copyWorkspace(join(ROOT, 'test/vscode/workspace'));
const dataDir = mkdtempSync(join(tmpdir(), 'art-cs-'));
writeUserSettings(dataDir);
// The test-only provider of Language Model API models (test/vscode/lm-provider/), installed as a user would.
await installTestModels(dataDir);
if (opts.grep) process.env.ART_TEST_GREP = opts.grep; // read by the suite inside the extension host

const started = Date.now();
const server = await startCodeServer({ workspace, dataDir });
const browser = await launchBrowser();
let summary;
let suiteStarted = false;
const SUITE_START = 'ART Studio integration suite';
let exitCode = 1;
try {
  const page = await browser.newPage();
  page.on('pageerror', e => console.error(`[page error] ${e.message}`));
  const exited = new Promise(resolve => void page.exposeFunction('codeAutomationExit', code => resolve(code)));
  await page.exposeFunction('codeAutomationLog', (type, args) => {
    const line = format(...(Array.isArray(args) ? args : [args]));
    const m = SUMMARY.exec(line);
    if (m) summary = { passed: Number(m[1]), failed: Number(m[2]) };
    if (line.startsWith(SUITE_START)) suiteStarted = true;
    // Before the suite starts the workbench logs its own start-up; keep only what concerns this extension.
    if (!opts.verbose && (isWorkbenchNoise(line) || (!suiteStarted && !/art-studio|ART Studio/i.test(line)))) return;
    (type === 'error' ? process.stderr : process.stdout).write(`${line}\n`);
  });
  const payload = [
    ['extensionDevelopmentPath', remoteUri(server, ROOT)],
    ['extensionTestsPath', remoteUri(server, suite)],
    ['skipWelcome', 'true'],
  ];
  await page.goto(workbenchUrl(server, workspace, payload));
  let timer;
  const timedOut = new Promise(resolve => {
    timer = setTimeout(() => resolve('timeout'), Number(opts.timeout) * 1000);
  });
  const result = await Promise.race([exited, timedOut]);
  clearTimeout(timer);
  if (result === 'timeout') {
    mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({ path: join(RESULTS, 'integration-timeout.png') }).catch(() => {});
    console.error(`integration suite timed out after ${opts.timeout} s (screenshot: test-results/integration-timeout.png)`);
  } else {
    exitCode = Number(result);
  }
} finally {
  await browser.close().catch(() => {});
  await server.stop();
}
// No summary means the suite never ran to the end (the host crashed, run() threw early, or time ran out).
if (!summary) {
  console.error('integration: the suite did not report results; code-server output tail:\n' + server.output.slice(-20).join(''));
  summary = { passed: 0, failed: 1 };
}
if (summary.failed > 0) exitCode ||= 1;
console.log(`integration suite finished in ${((Date.now() - started) / 1000).toFixed(1)} s (exit code ${exitCode})`);
console.log(`integration: ${summary.passed} passed, ${summary.failed} failed`);
process.exit(exitCode);
