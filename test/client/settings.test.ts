// The extension's settings (client/settings.ts) take their defaults and bounds from the declaration
// (core/settings/settings.ts). client/settings.ts imports `vscode`, which exists only inside VS Code: it is bundled
// here with `vscode` replaced by a configuration that holds what each test sets.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { build } from 'esbuild';
import { settingBounds, settingDefault } from '../../core/settings/settings';
import { TOOLS_FILE_NAME } from '../../core/tools/toolsFile';
import type * as ClientSettings from '../../client/settings';

const root = join(import.meta.dirname, '../..');
/** What the stubbed `vscode.workspace.getConfiguration('art').get(key)` returns. */
const configured = new Map<string, unknown>();
let client: typeof ClientSettings;
const dir = mkdtempSync(join(tmpdir(), 'art-client-settings-'));
after(() => rmSync(dir, { recursive: true, force: true }));

before(async () => {
  (globalThis as { __artSettings?: Map<string, unknown> }).__artSettings = configured;
  const out = await build({
    entryPoints: [join(root, 'client/settings.ts')],
    bundle: true,
    write: false,
    format: 'cjs',
    platform: 'node',
    logLevel: 'silent',
    // As scripts/build.mjs bundles it: jsonc-parser's main entry is a UMD module esbuild cannot follow.
    alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
    // As scripts/build.mjs bundles it: node-llama-cpp is loaded at run time, never bundled.
    external: ['node-llama-cpp'],
    plugins: [
      {
        name: 'vscode-configuration',
        setup(b) {
          b.onResolve({ filter: /^vscode$/ }, () => ({ path: 'vscode', namespace: 'stub' }));
          b.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({
            contents: `export const workspace = { getConfiguration: section => ({
              get: (key, fallback) => { const v = globalThis.__artSettings.get(section + '.' + key); return v === undefined ? fallback : v; },
            }) };`,
            loader: 'js',
          }));
        },
      },
    ],
  });
  const file = join(dir, 'settings.cjs');
  writeFileSync(file, out.outputFiles[0].text);
  client = createRequire(import.meta.url)(file);
});

describe('client settings', () => {
  test('unset settings read as their declared defaults', () => {
    configured.clear();
    const s = client.readSettings();
    assert.equal(s.debounceMs, settingDefault('diagnostics.debounceMs'));
    assert.equal(s.serverTrace, settingDefault('server.trace'));
    assert.equal(s.runsFolder, settingDefault('runs.folder'));
    assert.equal(s.runsGitignore, settingDefault('runs.gitignore'));
    assert.equal(s.toolsFile, TOOLS_FILE_NAME);
    assert.equal(client.readSetting('debug.streamToEditor'), settingDefault('debug.streamToEditor'));
  });

  test('a number past its declared bound is clamped to it, as the server clamps it', () => {
    const { minimum, maximum } = settingBounds('diagnostics.debounceMs');
    configured.set('art.diagnostics.debounceMs', maximum! + 1);
    assert.equal(client.readSettings().debounceMs, maximum);
    configured.set('art.diagnostics.debounceMs', minimum! - 1);
    assert.equal(client.readSettings().debounceMs, minimum);
  });

  test('a value of the wrong type reads as the default; a set value as itself', () => {
    configured.clear();
    configured.set('art.server.trace', 'loud');
    configured.set('art.runs.folder', 'history');
    configured.set('art.debug.streamToEditor', false);
    assert.equal(client.readSettings().serverTrace, 'off');
    assert.equal(client.readSettings().runsFolder, 'history');
    assert.equal(client.readSetting('debug.streamToEditor'), false);
  });
});
