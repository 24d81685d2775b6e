// An evaluation another process writes, as a person meets it: `art eval` runs in a terminal (here a process the test
// starts, held still with SIGSTOP between examples so what the view shows can be read), and the results view opened
// from the ART Evaluations view follows its results file: "running" while the process writes it, a row more as each
// line arrives, and done at 6 of 6 when it ends; never "stopped: run ART: Evaluate Task again" of an evaluation still
// running. A second `art eval --new` killed with -9 leaves its lock behind: the view says stopped, not running
// (issue 40, item 5).
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, watch } from 'node:fs';
import { join } from 'node:path';
import { startArithmeticServer } from './servers.mjs';

export const title = 'a CLI evaluation followed by the results view: running while art eval writes, refreshed, done; a killed one stopped';

const ROOT = new URL('../../..', import.meta.url).pathname;
const DIR = 'cli-eval-e2e';

/** Resolves once `file` holds at least `n` lines (each change of its folder checks it), or rejects after `ms`. */
function linesAtLeast(file, n, ms = 60_000) {
  const count = () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0);
  return new Promise((resolve, reject) => {
    const watcher = watch(join(file, '..'), () => check());
    const timer = setTimeout(() => done(new Error(`${file} has ${count()} lines, not ${n}, after ${ms} ms`)), ms);
    const done = e => {
      watcher.close();
      clearTimeout(timer);
      if (e) reject(e);
      else resolve();
    };
    const check = () => count() >= n && done();
    check();
  });
}

export async function run({ page, step, wb, workspace }) {
  const { baseURL, child: server } = await startArithmeticServer({ tokenDelayMs: 2 });
  const dir = join(workspace, DIR);
  mkdirSync(dir, { recursive: true });
  copyFileSync(join(ROOT, 'examples/library.art'), join(dir, 'library.art'));
  // A dataset name of its own: its results files are told apart from other scenarios' in the ART Evaluations view.
  copyFileSync(join(ROOT, 'examples/data/arithmetic.jsonl'), join(dir, 'cli-arithmetic.jsonl'));
  const results = join(dir, 'cli-arithmetic.library.results.jsonl');
  const second = join(dir, 'cli-arithmetic.library-2.results.jsonl');
  /** `art eval` on the dataset, one example at a time, as a person types it in a terminal. */
  const artEval = (...more) =>
    spawn(
      process.execPath,
      [
        join(ROOT, 'dist/cli.js'),
        'eval',
        'library.art',
        '--data',
        'cli-arithmetic.jsonl',
        '--task',
        'Elementary Math',
        '--base-url',
        baseURL,
        '--model',
        'scripted',
        '--concurrency',
        '1',
        '--progress',
        'none',
        ...more,
      ],
      { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
  const evals = [];
  const view = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
  const status = view.locator('#status');
  const pane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'ART Evaluations' }) });
  /** Opens an evaluation's results view from the ART Evaluations view (its entry named by the results file). */
  const openFromView = async file => {
    await wb.command('Run and Debug: Focus on ART Evaluations View');
    const entry = pane.locator('.monaco-list-row', { hasText: file }).first();
    await entry.click({ timeout: 30_000 });
    await page.locator('.tab.active', { hasText: 'Evaluation: ' }).waitFor({ timeout: 30_000 });
  };
  try {
    await step('art eval in another process, held after its first examples: the results view says running, not stopped', async () => {
      await wb.ready('clean.art');
      const first = artEval();
      evals.push(first);
      // The header and two results written: held still there (the process and its lock stay).
      await linesAtLeast(results, 3);
      first.kill('SIGSTOP');
      await openFromView('cli-arithmetic.library.results.jsonl');
      await status.filter({ hasText: new RegExp(`running: process ${first.pid} is writing the results`) }).waitFor({ timeout: 30_000 });
      const said = await status.innerText();
      if (/stopped/.test(said)) throw new Error(`the view says: ${said}`);
      if (!/^[2-5] of 6 examples/.test(said)) throw new Error(`the view says: ${said}`);
      console.log(`     held: ${said}`);
    });

    await step('the evaluation goes on: the view refreshes as lines arrive and says done at 6 of 6 when it ends', async () => {
      const first = evals[0];
      const ended = new Promise(resolve => first.once('exit', code => resolve(code)));
      first.kill('SIGCONT');
      const code = await ended;
      if (code !== 0) throw new Error(`art eval exited with ${code}: ${first.stderr.read() ?? ''}`);
      await view.locator('#examples tbody tr').nth(5).waitFor({ timeout: 30_000 });
      await status.filter({ hasText: /^6 of 6 examples · results in/ }).waitFor({ timeout: 30_000 });
      const said = await status.innerText();
      if (/running|stopped/.test(said)) throw new Error(`the view says: ${said}`);
      console.log(`     ended: ${said}; ${(await view.locator('#summary').innerText()).split('\n')[0]}`);
    });

    await step('art eval --new killed with -9 leaves its lock: the view says stopped, not running', async () => {
      const killed = artEval('--new');
      evals.push(killed);
      await linesAtLeast(second, 2);
      killed.kill('SIGSTOP');
      await openFromView('cli-arithmetic.library-2.results.jsonl');
      await status.filter({ hasText: `running: process ${killed.pid}` }).waitFor({ timeout: 30_000 });
      const gone = new Promise(resolve => killed.once('exit', resolve));
      killed.kill('SIGKILL');
      await gone;
      if (!existsSync(`${second}.lock`)) throw new Error('the killed evaluation left no lock: the case is not the one tested');
      await status.filter({ hasText: 'stopped: run "ART: Evaluate Task" again to resume' }).waitFor({ timeout: 30_000 });
      console.log(`     killed: ${await status.innerText()}`);
    });
  } finally {
    for (const e of evals) if (e.exitCode === null && e.signalCode === null) e.kill('SIGKILL');
    server.kill('SIGTERM');
  }
}
