// The extension manifest's contract: activation only on ART files (and the extension's own commands), every
// setting under `art.` with a default and none that could hold a secret, limited support in untrusted workspaces,
// a VSIX that ships bundles, not sources, and launch attributes, settings and language model tools generated from the
// one declaration of the run options (core/launch/options.ts), the one of the other settings (core/settings/settings.ts)
// and the agent tools' (core/agentTools/catalog.ts).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { optionSettings, RUN_OPTIONS } from '../../core/launch/options';
import { editorSettings, SETTINGS } from '../../core/settings/settings';
import { AGENT_TOOLS, editorToolName, languageModelTools } from '../../core/agentTools/catalog';
import { CLI_ENTRY } from '../../client/cliOnPath';

const root = join(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const extensionSource = readFileSync(join(root, 'client/extension.ts'), 'utf8');

describe('package.json manifest', () => {
  test('activates only on the art and art-agent languages, its own commands and its own debug type', () => {
    const events: string[] = pkg.activationEvents;
    assert.ok(events.includes('onLanguage:art') && events.includes('onLanguage:art-agent'));
    for (const e of events) {
      assert.match(
        e,
        /^(onLanguage:(art|art-agent)|onCommand:art\.[\w.]+|onDebugResolve:art|onDebugDynamicConfigurations:art)$/,
        `unexpected activation event ${e}`,
      );
      if (e.startsWith('onCommand:')) assert.ok(extensionSource.includes(`'${e.slice('onCommand:'.length)}'`), `${e} is never registered`);
    }
  });

  test('the languages it activates on are contributed with their file extensions', () => {
    const langs = new Map<string, string[]>((pkg.contributes.languages ?? []).map((l: { id: string; extensions: string[] }) => [l.id, l.extensions]));
    assert.deepEqual(langs.get('art'), ['.art']);
    assert.deepEqual(langs.get('art-agent'), ['.agent']);
  });

  test("the debugger answers F5 in a run's read-only document too (VS Code would offer the Marketplace for its language)", () => {
    const languages: string[] = pkg.contributes.debuggers[0].languages;
    assert.deepEqual(languages, ['art', 'art-agent', 'art-run']);
    assert.ok((pkg.contributes.languages ?? []).some((l: { id: string }) => l.id === 'art-run'));
  });

  test('every setting is under art., typed, documented and has a default', () => {
    const props: Record<string, { type?: string; default?: unknown; description?: string; markdownDescription?: string }> =
      pkg.contributes.configuration.properties;
    assert.ok(Object.keys(props).length >= 10);
    for (const [key, p] of Object.entries(props)) {
      assert.match(key, /^art\./, key);
      assert.ok(p.type, `${key} has no type`);
      assert.ok('default' in p, `${key} has no default`);
      assert.ok(p.description || p.markdownDescription, `${key} is undocumented`);
    }
    for (const key of [
      'art.server.trace',
      'art.diagnostics.debounceMs',
      'art.model.baseURL',
      'art.model.name',
      'art.model.apiKeyEnv',
      'art.model.temperature',
      'art.model.maxTokens',
      'art.python.path',
      'art.tools.file',
      'art.search.corpus',
    ])
      assert.ok(props[key], `${key} missing`);
    assert.equal(props['art.python.path'].default, '/usr/bin/python3');
  });

  test('no setting can hold an API key or other secret', () => {
    for (const key of Object.keys(pkg.contributes.configuration.properties)) {
      // `art.model.apiKeyEnv` names an environment variable; it is not the key.
      assert.doesNotMatch(
        key.replace(/apiKeyEnv$/, ''),
        /apikey|secret|password|credential|(auth|access|bearer)token|\.(key|token)$/i,
        `${key} looks like a secret`,
      );
    }
  });

  test('untrusted workspaces get limited support, and executable paths are not taken from them', () => {
    const u = pkg.capabilities.untrustedWorkspaces;
    assert.equal(u.supported, 'limited');
    assert.ok(u.description.length > 20);
    for (const key of ['art.python.path', 'art.tools.file', 'art.model.baseURL']) assert.ok(u.restrictedConfigurations.includes(key), key);
  });

  test('the VSIX keeps sources, tests, node_modules and corpus data out', () => {
    const lines = readFileSync(join(root, '.vscodeignore'), 'utf8')
      .split('\n')
      .map(l => l.trim())
      .filter(l => l && !l.startsWith('#'));
    assert.equal(lines[0], '**', 'everything is excluded first, then the shipped files are listed');
    const included = lines.filter(l => l.startsWith('!')).map(l => l.slice(1));
    for (const p of included) assert.doesNotMatch(p, /^(client|server|core|test|node_modules|examples|scripts)\/|\.ts$/, `${p} should not ship`);
    for (const p of ['package.json', 'dist/client.js', 'dist/server.js', 'dist/runnerServices.js']) assert.ok(included.includes(p), `${p} must ship`);
    assert.equal(pkg.main, './dist/client.js');
    // The bundles carry every dependency but node-llama-cpp, which only a platform VSIX carries (dist/node_modules,
    // staged by scripts/package.mjs): vsce itself adds no node_modules.
    assert.equal(pkg.scripts.package, 'node scripts/package.mjs');
    assert.match(readFileSync(join(root, 'scripts/package.mjs'), 'utf8'), /\['package', '--no-dependencies'\]/);
    assert.deepEqual(
      included.filter(p => p.includes('node_modules')),
      ['dist/node_modules/**'],
    );
  });

  test("the VSIX carries the art command line the terminals' PATH runs, and every bundle it loads", () => {
    const included = readFileSync(join(root, '.vscodeignore'), 'utf8')
      .split('\n')
      .filter(l => l.startsWith('!'))
      .map(l => l.slice(1).trim());
    // The launcher (client/cliOnPath.ts) runs CLI_ENTRY; it loads its sibling bundles by relative import (dist/cli-run.js).
    const needed = new Set([CLI_ENTRY]);
    for (const file of needed) {
      const text = readFileSync(join(root, file), 'utf8');
      for (const m of text.matchAll(/(?:require|import)\("\.\/([^"]+)"\)/g)) needed.add(join('dist', m[1]));
    }
    assert.ok(needed.size > 1, `${CLI_ENTRY} loads no bundle of its own: ${[...needed].join(', ')}`);
    for (const file of needed)
      assert.ok(included.includes(file), `${file} is left out of the VSIX (.vscodeignore), yet \`art\` in a terminal runs it`);
  });

  const generator = join(root, 'scripts/gen-manifest.mjs');
  const check = (...extra: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', generator, '--check', ...extra], { cwd: root, encoding: 'utf8' });

  test('the launch attributes and every setting are generated from core/launch/options.ts and core/settings/settings.ts', () => {
    const r = check();
    assert.equal(r.status, 0, r.stderr);
  });

  test('the freshness check fails on a manifest that lags the declaration', () => {
    const dir = mkdtempSync(join(tmpdir(), 'art-manifest-'));
    const stale = structuredClone(pkg);
    const launch = stale.contributes.debuggers[0].configurationAttributes.launch.properties;
    launch.temperature.maximum = 3;
    const file = join(dir, 'package.json');
    writeFileSync(file, JSON.stringify(stale, null, 2) + '\n');
    const r = check(`--package=${file}`);
    assert.equal(r.status, 1);
    assert.match(
      r.stderr,
      /package\.json is out of date with the run options \(core\/launch\/options\.ts\), the settings \(core\/settings\/settings\.ts\) or the agent tools \(core\/agentTools\/catalog\.ts\): run npm run gen:manifest/,
    );
    type Props = Record<string, Record<string, unknown>>;
    const stages: [string, (props: Props) => void][] = [
      ['a missing run option setting', props => delete props['art.search.rerank']],
      ['a bound that differs from the settings declaration', props => (props['art.diagnostics.debounceMs'].maximum = 10_000)],
      ['a missing setting', props => delete props['art.runs.folder']],
      ['a setting declared nowhere', props => (props['art.runs.keep'] = { type: 'number', default: 10, description: 'Runs to keep.' })],
    ];
    for (const [what, spoil] of stages) {
      const copy = structuredClone(pkg);
      spoil(copy.contributes.configuration.properties);
      writeFileSync(file, JSON.stringify(copy, null, 2) + '\n');
      assert.equal(check(`--package=${file}`).status, 1, `${what} is stale`);
    }
    type Tools = { name: string; modelDescription: string; inputSchema: { properties: Record<string, unknown> } }[];
    const toolStages: [string, (tools: Tools) => void][] = [
      ['a tool declared nowhere', tools => tools.push({ ...tools[0], name: 'art_gone' })],
      ['a tool missing', tools => tools.pop()],
      ['a description that lags', tools => (tools[0].modelDescription += ' More.')],
      ['an input that lags', tools => delete tools[1].inputSchema.properties.temperature],
    ];
    for (const [what, spoil] of toolStages) {
      const copy = structuredClone(pkg);
      spoil(copy.contributes.languageModelTools);
      writeFileSync(file, JSON.stringify(copy, null, 2) + '\n');
      assert.equal(check(`--package=${file}`).status, 1, `${what} is stale`);
    }
  });

  test('every setting is declared exactly once, as a run option setting or in core/settings/settings.ts', () => {
    const options = Object.keys(optionSettings());
    const others = Object.keys(editorSettings());
    assert.deepEqual(
      options.filter(k => others.includes(k)),
      [],
    );
    assert.deepEqual(Object.keys(pkg.contributes.configuration.properties).sort(), [...options, ...others].sort());
    for (const key of Object.keys(SETTINGS)) assert.ok(pkg.contributes.configuration.properties[`art.${key}`], `art.${key}`);
  });

  test('every run option is a launch attribute (except those declared otherwise) and every option setting exists', () => {
    const launch = pkg.contributes.debuggers[0].configurationAttributes.launch;
    const declared = Object.entries(RUN_OPTIONS)
      .filter(([, o]) => (o as { launch?: boolean }).launch !== false)
      .map(([k]) => k);
    assert.deepEqual(Object.keys(launch.properties), declared);
    assert.deepEqual(launch.required, ['program']);
    for (const k of ['rerank', 'pythonTimeoutMs', 'pythonMemoryMb', 'pythonCpuSeconds', 'pythonMaxOutputBytes', 'wordList'])
      assert.ok(launch.properties[k], k);
    const props = pkg.contributes.configuration.properties;
    for (const o of Object.values(RUN_OPTIONS) as { setting?: { key: string } }[])
      if (o.setting) assert.ok(props[`art.${o.setting.key}`], `art.${o.setting.key}`);
    for (const key of ['art.search.rerank', 'art.python.timeoutMs', 'art.python.memoryMb', 'art.lookup.wordList']) assert.ok(props[key], key);
  });

  test('declares a language model tool per agent tool, each only in a trusted workspace, with its schema', () => {
    const tools: { name: string; toolReferenceName: string; when: string; modelDescription: string; inputSchema: { type: string } }[] =
      pkg.contributes.languageModelTools;
    assert.deepEqual(
      tools.map(t => t.name),
      AGENT_TOOLS.map(editorToolName),
    );
    assert.deepEqual(tools, languageModelTools());
    for (const t of tools) {
      assert.equal(t.when, 'isWorkspaceTrusted', `${t.name}: no tool acts in an untrusted workspace`);
      assert.equal(t.inputSchema.type, 'object', t.name);
      assert.match(t.toolReferenceName, /^art[A-Z]\w+$/, t.name);
      assert.ok(t.modelDescription.length > 80, `${t.name}: the model reads its description to choose it`);
    }
    assert.equal(new Set(tools.map(t => t.toolReferenceName)).size, tools.length, 'reference names are unique');
  });
});
