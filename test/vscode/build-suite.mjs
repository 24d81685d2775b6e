// Bundles the integration suite (test/vscode/suite/index.ts and the tests it imports) into one CommonJS file the
// extension host can load: dist/test/vscode/suite.js. `vscode` comes from the host, mocha from node_modules.
import * as esbuild from 'esbuild';

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
    external: ['vscode', 'mocha'],
    // As scripts/build.mjs: jsonc-parser's main entry is a UMD module whose require() calls esbuild cannot follow
    // (the client modules the suite imports, such as the language client's, bring it in).
    alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  return SUITE_JS;
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(`built ${await buildSuite()}`);
