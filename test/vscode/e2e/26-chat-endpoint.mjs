// A newcomer's first live run, as issue 30 walked it: a task written the obvious way (`Input: …` then a bare `Q1:`,
// "the model writes from here") gets no Problems entry; the endpoint is a chat-only service (a model zoo endpoint
// whose `/completions` answers 404, test/support/zooServer.ts), set from the status bar's run mode item with
// *Set a Model Endpoint…*: its base URL, its model and *Detect* for the API, which finds the chat API; the item then
// says Live, and F5 generates the program from `Q1:` and runs to the answer. The user settings the command wrote are
// put back at the end.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startZoo, ZOO_LIBRARY } from './servers.mjs';

export const title = 'a chat-only endpoint set from the status bar (its API detected); a task ending at Q1: generated live to the end';

const FILE = 'open-task-e2e.art';

/** The zoo's demonstration, then its task as a person writes it: the input, and `Q1:` for the model to go on from. */
const TASK = `${ZOO_LIBRARY.split('----')[0]}----\nDescription: (Pens) Count the pens.\nInput: Tom has 3 pens and buys 7 more. How many pens does he have?\nQ1:\n`;

export async function run({ page, step, wb, workspace, dataDir }) {
  const { baseURL, child } = await startZoo('plain', { chatOnly: true });
  const settingsFile = join(workspace, '.vscode/settings.json');
  const settings = readFileSync(settingsFile, 'utf8');
  // What Set a Model Endpoint writes (the user's and the machine's settings), kept to put back.
  const userFiles = ['User', 'Machine'].map(d => join(dataDir, 'user', d, 'settings.json'));
  const before = userFiles.map(f => (existsSync(f) ? readFileSync(f, 'utf8') : null));
  const mode = page.locator('.statusbar-item[id$="art.runMode"]');
  const problems = page.locator('.markers-panel .monaco-list-row');
  const repl = page.locator('.repl');
  const input = page.locator('.quick-input-widget input');
  try {
    writeFileSync(join(workspace, FILE), TASK);

    await step('Input: … then a bare Q1: at the end of a task: no Problems entry (an unclosed step in its place has one)', async () => {
      await wb.ready('clean.art');
      await wb.openFile(FILE);
      await wb.command('View: Focus Problems (Errors, Warnings, Infos)');
      await page.locator('.markers-panel').waitFor();
      // The checker has read the file: a step written wrong after Q1: is reported, and once it is bare again nothing is.
      await wb.goToLine(wb.lineOf(FILE, 'Input: Tom') + 1);
      await page.keyboard.press('End');
      await page.keyboard.type(' [calculator');
      await problems.filter({ hasText: FILE }).first().waitFor({ timeout: 20_000 });
      // Back to the bare `Q1:`.
      await page.keyboard.press('Escape');
      await page.keyboard.press('Home');
      await page.keyboard.press('Shift+End');
      await page.keyboard.type('Q1:');
      // Other files of the workspace may have Problems entries: none is this file's.
      await problems.filter({ hasText: FILE }).first().waitFor({ state: 'detached', timeout: 20_000 });
      await wb.command('File: Save');
      await page.locator('.tab.dirty').waitFor({ state: 'detached', timeout: 15_000 });
    });

    await step('the run mode item: Set a Model Endpoint… with Detect finds the chat API; the item says Live (zoo-chat)', async () => {
      await mode.filter({ hasText: 'Replay' }).waitFor({ timeout: 20_000 });
      await mode.click();
      // Not wb.pick: the quick input stays open for the base URL.
      await page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: 'Set a Model Endpoint' }).first().click();
      await page.locator('.quick-input-widget', { hasText: 'base URL' }).waitFor({ timeout: 15_000 });
      await input.fill(baseURL);
      await page.keyboard.press('Enter');
      await page.locator('.quick-input-widget', { hasText: 'model name' }).waitFor({ timeout: 15_000 });
      await input.fill('zoo-chat');
      await page.keyboard.press('Enter');
      await page.locator('.quick-input-widget', { hasText: 'API' }).waitFor({ timeout: 15_000 });
      await wb.pick('Detect');
      // The settings editor shows what was written (the endpoint in the user settings), over the source.
      await page.locator('.tab', { hasText: 'Settings' }).waitFor({ timeout: 30_000 });
      await wb.openFile(FILE);
      await mode.filter({ hasText: 'Live (zoo-chat)' }).waitFor({ timeout: 15_000 });
    });

    await step('F5 generates the task from Q1: on the chat endpoint and runs to the answer', async () => {
      await wb.focusEditor();
      await page.keyboard.press('F5');
      await page.locator('.debug-toolbar').waitFor({ timeout: 30_000 });
      // At the first stop the program streamed beside the source, once; then F5 at each stop until the answer.
      await wb.paused();
      const streamed = page.locator('.tab', { hasText: /\(run \d+\)\.art-run/ });
      await streamed.nth(1).waitFor({ state: 'detached', timeout: 15_000 });
      await page.locator('.tab', { hasText: FILE }).filter({ hasNotText: 'art-run' }).waitFor({ timeout: 15_000 });
      await wb.command('Debug Console: Focus on Debug Console View');
      await repl
        .filter({ hasText: /Live: zoo-chat at http:\/\/127\.0\.0\.1:\d+\/v1 writes/ })
        .first()
        .waitFor({ timeout: 10_000 });
      const cont = page.locator('.debug-toolbar .action-label[aria-label^="Continue"]').first();
      const answer = repl.filter({ hasText: 'Answer: 10' }).first();
      for (let i = 0; i < 6 && !(await answer.isVisible()); i++) {
        await cont.or(answer).first().waitFor({ timeout: 30_000 });
        if (await answer.isVisible()) break;
        await wb.focusEditor();
        await page.keyboard.press('F5');
        // The run goes on: Continue turns into Pause until the next stop.
        await cont.waitFor({ state: 'hidden', timeout: 30_000 });
      }
      await page.locator('.debug-toolbar').waitFor({ state: 'hidden', timeout: 30_000 });
      await wb.command('Debug Console: Focus on Debug Console View');
      await repl.filter({ hasText: 'Answer: 10' }).first().waitFor({ timeout: 15_000 });
      const text = await repl.first().innerText();
      if (/404|run it with a model/.test(text)) throw new Error(`the run says:\n${text}`);
      console.log(
        `     ${text
          .split('\n')
          .filter(l => /Q1:|Answer/.test(l))
          .join(' | ')}`,
      );
    });
  } finally {
    // The user's, the machine's and the workspace's settings as they were (Live and the endpoint were written there).
    userFiles.forEach((f, i) => (before[i] === null ? rmSync(f, { force: true }) : writeFileSync(f, before[i])));
    writeFileSync(settingsFile, settings);
    child.kill();
  }
}
