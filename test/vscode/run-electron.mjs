// Runs the same integration suite with @vscode/test-electron, on a machine that can download VS Code desktop
// (not these build machines: use run-integration.mjs there). Not part of scripts/test-all.mjs.
// Usage: node test/vscode/run-electron.mjs [--vscode-version stable|insiders|1.104.0]
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runTests } from '@vscode/test-electron';
import { buildExtension, copyWorkspace, ROOT } from '../../scripts/code-server.mjs';
import { buildSuite } from './build-suite.mjs';

const { values: opts } = parseArgs({ options: { 'vscode-version': { type: 'string', default: 'stable' } } });
buildExtension();
const extensionTestsPath = await buildSuite();
const workspace = copyWorkspace(join(ROOT, 'test/vscode/workspace'));
try {
  await runTests({
    version: opts['vscode-version'],
    extensionDevelopmentPath: ROOT,
    extensionTestsPath,
    launchArgs: [workspace, '--disable-extensions', '--disable-workspace-trust', '--skip-welcome', '--skip-release-notes'],
  });
} catch (e) {
  console.error(`integration tests failed: ${e instanceof Error ? e.message : e}`);
  process.exit(1);
}
