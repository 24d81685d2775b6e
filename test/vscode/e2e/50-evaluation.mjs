// An evaluation as a person runs one: the workspace's settings point at a model endpoint (the scripted
// OpenAI-compatible server, a process of its own: test/support/arithmeticServer.ts), "ART: Evaluate Task" from the
// palette on the open library asks for the dataset and the task, the progress notification runs, and the results
// view shows the chart of the accuracy per task and the table of examples; an example's link replays its run in
// the debugger.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startArithmeticServer } from './servers.mjs';

export const title = 'evaluation: Evaluate Task on a dataset, the chart and the table, an example replayed';

const ROOT = new URL('../../..', import.meta.url).pathname;
const DIR = 'evaluation-e2e';

export async function run({ page, step, wb, workspace, picture }) {
  // Slow enough (several seconds in all) for the progress notification to be read.
  const { baseURL, child } = await startArithmeticServer({ tokenDelayMs: 200 });
  const settingsFile = join(workspace, '.vscode/settings.json');
  const settings = readFileSync(settingsFile, 'utf8');
  try {
    mkdirSync(join(workspace, DIR), { recursive: true });
    copyFileSync(join(ROOT, 'examples/library.art'), join(workspace, DIR, 'library.art'));
    copyFileSync(join(ROOT, 'examples/data/arithmetic.jsonl'), join(workspace, DIR, 'arithmetic.jsonl'));
    writeFileSync(settingsFile, JSON.stringify({ ...JSON.parse(settings), 'art.model.baseURL': baseURL, 'art.model.name': 'scripted' }, null, 2));
    // The results page: the webview's outer frame, then the page's own.
    const view = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');

    await step('ART: Evaluate Task asks for the dataset and the task, and shows its progress', async () => {
      await page.keyboard.press('Control+Shift+E');
      await wb.ready('clean.art');
      await wb.openFile('library.art');
      await wb.command('ART: Evaluate Task');
      const rows = page.locator('.quick-input-list .monaco-list-row');
      await page.locator('.quick-input-widget', { hasText: 'which dataset' }).waitFor({ timeout: 20_000 });
      await page.keyboard.type('arithmetic');
      await rows.filter({ hasText: 'arithmetic.jsonl' }).first().waitFor();
      await page.keyboard.press('Enter');
      await page.locator('.quick-input-widget', { hasText: 'which task' }).waitFor({ timeout: 20_000 });
      await page.keyboard.type('Elementary Math');
      await rows.filter({ hasText: 'Elementary Math' }).first().waitFor();
      await page.keyboard.press('Enter');
      // The progress notification with the running count and accuracy, and its Cancel button: as a toast, or in the
      // notification center (this workbench announces it without a toast; the center shows it).
      await wb.command('Notifications: Show Notifications');
      const progress = page.locator('.notification-list-item', { hasText: 'evaluating library.art' }).first();
      await progress.filter({ hasText: /[1-5]\/6 done · exact \d\/\d = [\d.]+%/ }).waitFor({ timeout: 60_000 });
      console.log('     progress:', (await progress.innerText()).replace(/\s+/g, ' '));
      await progress.getByRole('button', { name: 'Cancel' }).first().waitFor({ timeout: 5_000 });
      await page.locator('.tab', { hasText: 'Evaluation: library.art on arithmetic.jsonl' }).waitFor({ timeout: 60_000 });
    });

    await step('the results view draws the accuracy per task as a chart and a row per example', async () => {
      const canvas = view.locator('canvas#chart');
      await canvas.waitFor({ timeout: 30_000 });
      const table = view.locator('#examples tbody tr');
      await table.nth(5).waitFor({ timeout: 30_000 });
      if ((await table.count()) !== 6) throw new Error(`${await table.count()} rows, not 6`);
      // Chart.js drew: the canvas has painted pixels (bars, axes, legend).
      const painted = await canvas.evaluate(c => {
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++;
        return n;
      });
      if (painted < 1000) throw new Error(`the chart painted ${painted} pixels`);
      const summary = await view.locator('#summary').innerText();
      if (!/exact match: +5\/6 = 83\.3%/.test(summary)) throw new Error(`summary: ${summary}`);
      const pages = (await table.filter({ hasText: 'pages' }).innerText()).replace(/\s+/g, ' ');
      if (!/pages .* 6 8 ✗ ✗/.test(pages)) throw new Error(`the row of "pages": ${pages}`);
      console.log(`     chart: ${painted} pixels painted; ${summary.split('\n')[0]}`);
      await picture('evaluation');
    });

    await step("an example's link replays its run in the debugger, stopped at its tool call", async () => {
      await view.locator('#examples tbody tr', { hasText: 'pages' }).locator('a.replay').click();
      await page.locator('.debug-toolbar').waitFor({ timeout: 30_000 });
      // Stopped at the calculator call (before it runs: an evaluated example is replayed to be debugged, its input
      // editable): the editor marks the step, the Debug Console shows the program so far.
      await page.locator('.tab', { hasText: 'Replay library-pages' }).first().waitFor({ timeout: 30_000 });
      // The Debug Console (a scenario before may have hidden the panel).
      await wb.command('Debug Console: Focus on Debug Console View');
      await page.locator('.repl', { hasText: '[calculator] 240 / 30' }).waitFor({ timeout: 30_000 });
      // The Run and Debug view (open since the session started; the palette's command shows it, where a click on
      // its activity bar icon would close it): the call stack.
      await wb.command('View: Show Run and Debug');
      const stack = page.locator('.debug-call-stack .monaco-list-row');
      await stack.filter({ hasText: 'calculator' }).first().waitFor({ timeout: 30_000 });
      console.log('     call stack:', await wb.rowTexts(stack));
      await page.locator('.debug-toolbar .action-label[aria-label^="Stop"]').first().click();
      await page.locator('.debug-toolbar').waitFor({ state: 'hidden', timeout: 30_000 });
    });
  } finally {
    writeFileSync(settingsFile, settings);
    child.kill('SIGTERM');
  }
}
