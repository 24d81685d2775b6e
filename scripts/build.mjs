// Build: compile every core/**/*.peggy grammar with peggy, then bundle the shells with esbuild.
// Usage: node scripts/build.mjs [--grammars-only] [--watch] [--dev]
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import * as esbuild from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
const args = new Set(process.argv.slice(2));

function* walk(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* walk(p);
    else yield p;
  }
}

// Grammars: foo.peggy -> foo.parser.js (+ .d.ts). Typed parse() through --dts and returnTypes in the grammar's
// sibling foo.peggy.json (optional).
for (const file of walk(join(root, 'core'))) {
  if (!file.endsWith('.peggy')) continue;
  const out = file.replace(/\.peggy$/, '.parser.js');
  const returnTypes = file.replace(/\.peggy$/, '.peggy.json');
  const sources = [file, ...(existsSync(returnTypes) ? [returnTypes] : [])];
  const upToDate = existsSync(out) && sources.every(s => statSync(out).mtimeMs >= statSync(s).mtimeMs);
  if (upToDate) continue;
  const extra = [];
  if (existsSync(returnTypes)) extra.push('--extra-options-file', returnTypes);
  execFileSync(join(root, 'node_modules/.bin/peggy'), ['--format', 'commonjs', '--dts', ...extra, '-o', out, file], { stdio: 'inherit' });
  console.log(`peggy  ${relative(root, file)} -> ${relative(root, out)}`);
}
if (args.has('--grammars-only')) process.exit(0);

// Bundles. Each entry is built only when its source exists, so a partial checkout still builds what it has.
const entries = {
  client: 'client/extension.ts',
  server: 'server/main.ts',
  cli: 'core/cli/main.ts',
  'cli-run': 'core/cli/commands.ts',
  debugAdapter: 'client/debugAdapter/main.ts',
  runnerServices: 'client/runnerServices.ts',
};
const entryPoints = Object.fromEntries(Object.entries(entries).filter(([, src]) => existsSync(join(root, src))));
const dev = args.has('--dev');
/**
 * `art run` and `art test` are a bundle of their own (core/cli/commands.ts): core/cli/main.ts loads it with `await import('./commands')`, which this plugin
 * turns into a require of dist/cli-run.js, so the commands that do not run anything (check, parse, monitor,
 * constrain) neither load nor compile the runner, the model client, mathjs, MiniSearch and the MCP SDK.
 */
const lazyCliRun = {
  name: 'lazy-cli-run',
  setup(build) {
    build.onResolve({ filter: /^\.\/commands$/ }, a =>
      a.kind === 'dynamic-import' && a.importer.endsWith(join('core', 'cli', 'main.ts')) ? { path: './cli-run.js', external: true } : undefined,
    );
  },
};
/**
 * The OpenTelemetry packages (core/telemetry/otlp.ts) from their ES module builds ("module" in their package.json):
 * their CommonJS builds cannot be tree-shaken and brought 320 KB (the whole semantic conventions, the metrics SDK)
 * into every bundle that runs programs; the ES modules bring 100 KB.
 */
const openTelemetryEsm = {
  name: 'opentelemetry-esm',
  setup(build) {
    build.onResolve({ filter: /^@opentelemetry\/[^/]+$/ }, a => {
      for (let d = a.resolveDir; ; d = dirname(d)) {
        const manifest = join(d, 'node_modules', a.path, 'package.json');
        if (existsSync(manifest)) {
          const { module } = JSON.parse(readFileSync(manifest, 'utf8'));
          return module ? { path: join(dirname(manifest), module) } : undefined;
        }
        if (dirname(d) === d) return undefined;
      }
    });
  },
};
const options = {
  absWorkingDir: root,
  entryPoints,
  bundle: true,
  outdir: 'dist',
  platform: 'node',
  target: 'node18',
  format: 'cjs',
  // node-llama-cpp (local models) is an ES module with native binaries: loaded from node_modules (dist/node_modules in
  // a platform VSIX) by a real dynamic import, never bundled.
  external: ['vscode', 'node-llama-cpp'],
  // jsonc-parser's main entry is a UMD module whose require() calls esbuild cannot follow; its ESM build bundles.
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
  minify: !dev,
  sourcemap: dev ? 'inline' : false,
  logLevel: 'warning',
  banner: { js: '' },
  plugins: [lazyCliRun, openTelemetryEsm],
};
/**
 * The pages of webviews, bundled for the browser: the evaluation results view draws its chart with Chart.js, which
 * is bundled here (the VSIX has no node_modules) and loaded only by that page, never by the extension host.
 */
const webviews = { evalView: 'client/webview/evalView.ts', compareView: 'client/webview/compareView.ts' };
const webviewOptions = {
  absWorkingDir: root,
  entryPoints: Object.fromEntries(Object.entries(webviews).filter(([, src]) => existsSync(join(root, src)))),
  bundle: true,
  outdir: 'dist',
  platform: 'browser',
  target: 'es2022',
  format: 'iife',
  minify: !dev,
  sourcemap: dev ? 'inline' : false,
  logLevel: 'warning',
};
if (args.has('--watch')) {
  const ctx = await esbuild.context(options);
  await ctx.watch();
  await (await esbuild.context(webviewOptions)).watch();
  console.log('esbuild watching');
} else {
  await Promise.all([esbuild.build(options), esbuild.build(webviewOptions)]);
  console.log(`esbuild ${[...Object.keys(entryPoints), ...Object.keys(webviewOptions.entryPoints)].map(e => `dist/${e}.js`).join(', ')}`);
}
