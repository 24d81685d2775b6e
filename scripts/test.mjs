// Unit and protocol tests: node's own test runner over test/**/*.test.ts, TypeScript through tsx.
// Usage: node scripts/test.mjs [--no-build] [--corpus | --phoenix | --real] [substring filter...]
//
// test/real (the real-model tier: the default local model, core/model/defaultModel.ts, run in-process through
// test/support/localModel.ts, which provisions it once) runs only with --real, one file at a time (one model in memory).
//
// test/corpus (the papers' examples and the real ART library, in shared/corpus beside the checkout or ART_CORPUS)
// runs only with --corpus (`npm run test:corpus`; the full test line runs it as its own step), and then alone. When
// the corpus is not there the suite prints one line `corpus suite: ...` saying what is missing and where it looked,
// and is not run: that fails under CI=true (CI must have the corpus) and exits 0 on a developer machine, where
// scripts/test-all.mjs reports the step as NOT RUN (never as passed).
//
// test/phoenix (OpenTelemetry spans read back from a real Arize Phoenix, which its test starts and stops: about 15 s,
// most of it Phoenix starting) runs only with --phoenix (`npm run test:phoenix`, its own step of the full test line),
// the same way: without Phoenix installed (`npm run setup` puts it in ~/.cache/art-studio/phoenix-venv) one line
// `phoenix suite: ...`, failed under CI=true, NOT RUN on a developer machine.
//
// The bundles in dist/ (debug adapter, CLI, language server) are built once, before any test file starts, so every
// file tests the same, current sources; the test files themselves must not rebuild dist/ under each other's feet
// (ART_TEST_DIST_BUILT tells them it is done). --no-build: use dist/ as it is.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * No test file may run longer than this: a hung test (a run paused with nobody to continue it, a server left
 * listening) fails its file by name instead of hanging the whole run. Generous for a loaded 2-core machine (the
 * slowest file takes about 15 s there when idle); ART_TEST_LIMIT_SCALE multiplies it, as in test-all.mjs.
 */
const FILE_TIMEOUT_MS = 300_000 * Number(process.env.ART_TEST_LIMIT_SCALE ?? 1);

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const build = !args.includes('--no-build');
const corpus = args.includes('--corpus');
const phoenix = args.includes('--phoenix');
const real = args.includes('--real');
const filters = args.filter(a => a !== '--no-build' && a !== '--corpus' && a !== '--phoenix' && a !== '--real');
const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (name === 'node_modules' || name === 'vscode') continue; // test/vscode runs inside code-server, not here
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith('.test.ts')) files.push(relative(root, p));
  }
})(join(root, 'test'));
const inSuite = name => f => f.startsWith(join('test', name) + '/');
const suiteName = corpus ? 'corpus' : phoenix ? 'phoenix' : real ? 'real' : undefined;
const suite = suiteName ? files.filter(inSuite(suiteName)) : files.filter(f => !['corpus', 'phoenix', 'real'].some(n => inSuite(n)(f)));
const chosen = filters.length ? suite.filter(f => filters.some(s => f.includes(s))) : suite;
if (!chosen.length) {
  console.error(
    `no test files match${suiteName ? ` in test/${suiteName}` : ' (test/corpus runs with --corpus, test/phoenix with --phoenix, test/real with --real)'}`,
  );
  process.exit(1);
}
if (suiteName && suiteName !== 'real') {
  // The same check the suite's files make (test/support/corpus.ts, phoenix.ts), asked once so the line is printed once.
  const check = corpus ? "require('./test/support/corpus.ts').corpusMissing()" : "require('./test/support/phoenix.ts').phoenixMissing()";
  const probe = spawnSync(process.execPath, ['--import', 'tsx', '-e', `process.stdout.write(${check} ?? '')`], {
    cwd: root,
    encoding: 'utf8',
  });
  if (probe.status !== 0) {
    console.error(probe.stderr.trim());
    process.exit(1);
  }
  if (probe.stdout) {
    console.log(`${probe.stdout} (not run${process.env.CI === 'true' ? '; CI=true: failed' : ''})`);
    process.exit(process.env.CI === 'true' ? 1 : 0);
  }
}
const env = { ...process.env };
if (build) {
  const b = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
  if (b.status !== 0) {
    console.error('the build failed: no tests run');
    process.exit(b.status ?? 1);
  }
  env.ART_TEST_DIST_BUILT = '1';
}
const r = spawnSync(
  process.execPath,
  // A real-model file decodes on two CPU threads, one file at a time: three times the limit.
  [
    '--import',
    'tsx',
    '--test',
    '--test-reporter=spec',
    `--test-concurrency=${real ? 1 : 2}`,
    `--test-timeout=${FILE_TIMEOUT_MS * (real ? 3 : 1)}`,
    ...chosen,
  ],
  { cwd: root, stdio: 'inherit', env },
);
process.exit(r.status ?? 1);
