// Bundles the integration suite (test/vscode/suite/index.ts and the tests it imports) into one CommonJS file the
// extension host can load: dist/test/vscode/suite.js. `vscode` comes from the host, mocha from node_modules.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { codeServerCommand } from '../../scripts/code-server.mjs';

const root = new URL('../..', import.meta.url).pathname;
export const SUITE_JS = `${root}dist/test/vscode/suite.js`;

export async function buildSuite() {
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: ['test/vscode/suite/index.ts'],
    outfile: SUITE_JS,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    // As scripts/build.mjs: node-llama-cpp is loaded at run time, never bundled (the client's run code imports it).
    external: ['vscode', 'mocha', 'node-llama-cpp'],
    // As scripts/build.mjs: jsonc-parser's main entry is a UMD module whose require() calls esbuild cannot follow
    // (the client modules the suite imports, such as the language client's, bring it in).
    alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  return SUITE_JS;
}

/** The test-only language model provider (test/vscode/lm-provider/): its extension.js, beside its package.json. */
export const TEST_MODELS_DIR = `${root}test/vscode/lm-provider`;

export async function buildTestModels() {
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: ['test/vscode/lm-provider/extension.ts'],
    outfile: `${TEST_MODELS_DIR}/dist/extension.js`,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    external: ['vscode'],
    logLevel: 'warning',
  });
  return TEST_MODELS_DIR;
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(`built ${await buildSuite()}`);

/**
 * Builds, packages and installs the test-only provider into code-server's extensions of `dataDir` (as the e2e suite
 * installs ART Studio's VSIX): the workbench takes one extensionDevelopmentPath, which is ART Studio's.
 */
export async function installTestModels(dataDir) {
  await buildTestModels();
  const vsix = join(dataDir, 'art-test-models.vsix');
  execFileSync(
    join(root, 'node_modules/.bin/vsce'),
    ['package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '--out', vsix],
    {
      cwd: TEST_MODELS_DIR,
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const r = codeServerCommand(['--extensions-dir', join(dataDir, 'ext'), '--user-data-dir', join(dataDir, 'user'), '--install-extension', vsix]);
  if (r.status !== 0) throw new Error(`installing the test models' VSIX failed:\n${r.stdout}\n${r.stderr}`);
}
