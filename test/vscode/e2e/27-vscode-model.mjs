// A live run on a model of VS Code's Language Model API, as a person with Copilot (or any extension's models) would
// make one: the test-only provider extension (test/vscode/lm-provider/, installed beside ART Studio) offers a zoo
// endpoint that wraps its replies (test/support/zooServer.ts) as the model "Zoo Wrapper"; the status bar's run mode
// item lists it under VS Code's language models, choosing it makes runs live on it, F5 stops after the calculator,
// the Debug Console says what the model cannot do (no log-probabilities) and the wrapper once, and F5 finishes.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startZoo, ZOO_LIBRARY } from './servers.mjs';

export const title = 'a VS Code language model: chosen in the status bar, F5 live on it through vscode.lm, stop at the tool, finish';

const FILE = 'vscode-model-e2e.art';

export async function run({ page, step, wb, workspace, picture }) {
  const { baseURL, child } = await startZoo('wrapper');
  const settingsFile = join(workspace, '.vscode/settings.json');
  const settings = readFileSync(settingsFile, 'utf8');
  const rows = page.locator('.debug-variables .monaco-list-row');
  const repl = page.locator('.repl');
  const mode = page.locator('.statusbar-item[id$="art.runMode"]');
  // The Debug Console draws only the lines in view: its filter box brings a line of the run's start into view.
  const filter = page.getByPlaceholder(/^Filter \(e\.g\./).first();
  const filtered = async (text, count) => {
    await filter.fill(text);
    await page.waitForFunction(
      ([t, n]) => [...document.querySelectorAll('.repl .monaco-list-row')].filter(r => r.textContent.includes(t)).length === n,
      [text, count],
      { timeout: 10_000 },
    );
    await filter.fill('');
  };
  try {
    writeFileSync(join(workspace, FILE), ZOO_LIBRARY);
    writeFileSync(
      settingsFile,
      JSON.stringify({ ...JSON.parse(settings), 'artTestModels.endpoints': [{ id: 'zoo-wrapper', name: 'Zoo Wrapper', baseURL }] }, null, 2),
    );

    await step("the run mode item lists VS Code's models; choosing Zoo Wrapper makes runs live on it", async () => {
      await wb.ready('clean.art');
      await wb.openFile(FILE);
      await wb.goToLine(wb.lineOf(FILE, 'Input: Tom has'));
      await mode.filter({ hasText: 'Replay' }).waitFor({ timeout: 20_000 });
      await mode.click();
      await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Live: Zoo Wrapper (art-test)' }).waitFor({ timeout: 15_000 });
      await page.locator('.quick-input-widget', { hasText: "VS Code's language models" }).waitFor({ timeout: 15_000 });
      await picture('vscode-model-choice');
      await wb.pick('Live: Zoo Wrapper (art-test)');
      await mode.filter({ hasText: 'Live (VS Code: zoo-wrapper)' }).waitFor({ timeout: 10_000 });
    });

    await step('F5 generates the program on the model through vscode.lm and stops after [calculator] with 10', async () => {
      await wb.focusEditor();
      await page.keyboard.press('F5');
      await page.locator('.debug-toolbar').waitFor({ timeout: 30_000 });
      await page.keyboard.press('Control+Shift+D');
      await rows
        .filter({ hasText: /output\s*[=:]?\s*10/ })
        .first()
        .waitFor({ timeout: 30_000 });
      await wb.command('Debug Console: Focus on Debug Console View');
      await filtered('Live: vscode-lm:art-test/zoo-wrapper writes', 1);
      await filtered('the model gives no token log-probabilities', 1);
    });

    await step('F5 runs to the answer; the wrapper is said once and is not in the program', async () => {
      await wb.focusEditor();
      await page.keyboard.press('F5');
      await page.locator('.debug-toolbar').waitFor({ state: 'hidden', timeout: 30_000 });
      await wb.command('Debug Console: Focus on Debug Console View');
      await repl.filter({ hasText: 'Answer: 10' }).first().waitFor({ timeout: 15_000 });
      await picture('vscode-model');
      await filtered('unwrapped the continuation from a chat preamble', 1);
      const shown = (await page.locator('.editor-instance .view-lines').allInnerTexts()).join('\n');
      if (/Sure!|```/.test(shown)) throw new Error(`the wrapper is in an editor:\n${shown}`);
    });
  } finally {
    writeFileSync(settingsFile, settings);
    child.kill();
  }
}
