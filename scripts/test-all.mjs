// Every check of the project in one run: set-up, typecheck, lint, unit tests, the corpus suite (the papers' examples and
// the real ART library, test/corpus), grammar tests, the integration suite inside a real VS Code (code-server) and
// the end-to-end suite on its workbench. Without the corpus beside the checkout (or ART_CORPUS) the corpus step
// fails under CI=true and is reported NOT RUN otherwise (scripts/test.mjs says what is missing in one line). Each suite prints its own results; this script
// adds them up and ends with exactly one line `N passed, N failed` (tests counted across suites; the typecheck and
// the build count as one check each). Exits non-zero on any failure.
// Usage: node scripts/test-all.mjs [--skip-vscode]   (--skip-vscode: no code-server suites, for a quick local run)
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const skipVscode = process.argv.includes('--skip-vscode');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/**
 * Runs a command in its own process group with its output streamed to ours and kept for parsing. A command still
 * running after `limitS` seconds is killed with its whole group (a hung suite must not hang the whole run).
 */
function run(cmd, args, limitS) {
  return new Promise(resolve => {
    const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], detached: true, env: { ...process.env, FORCE_COLOR: '0' } });
    let out = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      out += `\n${cmd} ${args.join(' ')}: still running after ${limitS} s; stopped\n`;
      console.error(`\n!!!!!! time limit of ${limitS} s reached: stopping this step !!!!!!`);
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        /* already gone */
      }
      setTimeout(() => {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          /* already gone */
        }
      }, 5000).unref();
    }, limitS * 1000);
    const stopGroup = () => {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        /* already gone */
      }
    };
    process.once('SIGINT', stopGroup);
    child.stdout.on('data', d => {
      out += d;
      process.stdout.write(d);
    });
    child.stderr.on('data', d => {
      out += d;
      process.stderr.write(d);
    });
    child.on('error', e => {
      clearTimeout(timer);
      resolve({ status: 1, out: `${out}\n${e.message}`, timedOut });
    });
    child.on('close', status => {
      clearTimeout(timer);
      process.removeListener('SIGINT', stopGroup);
      resolve({ status: timedOut ? 124 : (status ?? 1), out, timedOut });
    });
  });
}

/** `NAME: N passed, N failed` (the last such line) as printed by the grammar, integration and e2e suites. */
const summaryLine = name => out => {
  const all = [...out.matchAll(new RegExp(`^${name}: (\\d+) passed, (\\d+) failed$`, 'gm'))];
  const m = all.at(-1);
  return m ? { passed: Number(m[1]), failed: Number(m[2]) } : undefined;
};
/** node --test's closing counts. */
const nodeTestCounts = out => {
  const pass = /^ℹ pass (\d+)$/m.exec(out);
  const fail = /^ℹ fail (\d+)$/m.exec(out);
  return pass && fail ? { passed: Number(pass[1]), failed: Number(fail[1]) } : undefined;
};
/** A step that is a single check: it passes when the command exits 0. */
const single = () => undefined;

// Time limits (seconds) are generous for a loaded 2-core machine; ART_TEST_LIMIT_SCALE multiplies them.
const scale = Number(process.env.ART_TEST_LIMIT_SCALE ?? 1);
const steps = [
  // Debian packages the tests need (python3-sympy and bubblewrap for code execution, wamerican for lookup, chromium
  // and Node 24 + code-server for the real-VS-Code suites): installed when missing, a quick no-op otherwise. (`npm test`
  // installs nothing: a test whose package is missing fails with one line naming it and `npm run setup`.)
  { name: 'setup', cmd: 'bash', args: ['scripts/setup.sh'], counts: single, limit: 1800 },
  // The build first: it generates the grammars' parsers (and their .d.ts) that the typecheck reads.
  { name: 'build', cmd: process.execPath, args: ['scripts/build.mjs'], counts: single, limit: 300 },
  { name: 'typecheck', cmd: 'npm', args: ['run', '--silent', 'typecheck:only'], counts: single, limit: 300 },
  // ESLint and Prettier's check (npm run lint).
  { name: 'lint', cmd: 'npm', args: ['run', '--silent', 'lint'], counts: single, limit: 300 },
  { name: 'unit', cmd: process.execPath, args: ['scripts/test.mjs', '--no-build'], counts: nodeTestCounts, limit: 900 },
  {
    name: 'corpus',
    cmd: process.execPath,
    args: ['scripts/test.mjs', '--no-build', '--corpus'],
    counts: nodeTestCounts,
    limit: 600,
    notRun: /^corpus suite: .*\(not run\)$/m,
  },
  {
    // OpenTelemetry spans read back from a real Arize Phoenix (installed by the setup step): 14 s quiet, 62 s loaded.
    name: 'phoenix',
    cmd: process.execPath,
    args: ['scripts/test.mjs', '--no-build', '--phoenix'],
    counts: nodeTestCounts,
    limit: 600,
    notRun: /^phoenix suite: .*\(not run\)$/m,
  },
  // The real-model tier (test/real): the default local model (provisioned by the setup step) run in-process.
  { name: 'real', cmd: process.execPath, args: ['scripts/test.mjs', '--no-build', '--real'], counts: nodeTestCounts, limit: 900 },
];
if (pkg.scripts?.['test:grammar'])
  steps.push({ name: 'grammar', cmd: 'npm', args: ['run', '--silent', 'test:grammar'], counts: summaryLine('grammar'), limit: 600 });
else console.error('\n!!!!!! WARNING: package.json has no "test:grammar" script: the TextMate grammar tests are NOT run !!!!!!\n');
if (skipVscode) console.error('\n!!!!!! --skip-vscode: the integration and end-to-end suites are NOT run !!!!!!\n');
else
  steps.push(
    {
      name: 'integration',
      cmd: process.execPath,
      args: ['test/vscode/run-integration.mjs', '--no-build'],
      counts: summaryLine('integration'),
      limit: 900,
    },
    { name: 'e2e', cmd: process.execPath, args: ['test/vscode/e2e.mjs'], counts: summaryLine('e2e'), limit: 900 },
  );

const rows = [];
for (const step of steps) {
  console.log(`\n===== ${step.name}: ${[step.cmd === process.execPath ? 'node' : step.cmd, ...step.args].join(' ')}`);
  const t0 = Date.now();
  const { status, out, timedOut } = await run(step.cmd, step.args, step.limit * scale);
  // A suite that could not run here (and says so) is neither a pass nor a failure: it is listed as NOT RUN.
  const notRun = status === 0 && step.notRun?.exec(out);
  if (notRun) {
    rows.push({ name: step.name, passed: 0, failed: 0, seconds: (Date.now() - t0) / 1000, status, notRun: notRun[0] });
    continue;
  }
  let counts = step.counts(out);
  // A suite stopped midway may have printed partial counts; the hang itself is one more failure.
  if (timedOut) counts = { passed: counts?.passed ?? 0, failed: (counts?.failed ?? 0) + 1 };
  if (!counts) counts = status === 0 ? { passed: 1, failed: 0 } : { passed: 0, failed: 1 };
  // A suite that exits non-zero without reporting a failed test still failed (a crash, a timeout, a harness error).
  if (status !== 0 && counts.failed === 0) counts = { ...counts, failed: 1 };
  rows.push({ name: step.name, ...counts, seconds: (Date.now() - t0) / 1000, status });
}

console.log('\n===== summary');
for (const r of rows) {
  if (r.notRun) console.log(`${r.name.padEnd(12)} NOT RUN: ${r.notRun}`);
  else
    console.log(
      `${r.name.padEnd(12)} ${String(r.passed).padStart(5)} passed ${String(r.failed).padStart(4)} failed  (${r.seconds.toFixed(1)} s, exit ${r.status}${r.status === 124 ? ', time limit' : ''})`,
    );
}
for (const r of rows.filter(r => r.notRun)) console.log(`!!!!!! the ${r.name} suite was NOT RUN: its tests are not in the counts below !!!!!!`);
const passed = rows.reduce((n, r) => n + r.passed, 0);
const failed = rows.reduce((n, r) => n + r.failed, 0);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
