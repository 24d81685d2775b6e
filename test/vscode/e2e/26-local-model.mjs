// Live on the local model, as a new user meets it: no key, no server. The run mode item lists the GGUF file of the
// models folder (provisioned by `npm run setup`: Gemma 3 270M) as Live: Local; chosen, F5 generates the program
// in-process with node-llama-cpp (packaged in the VSIX for this platform) and stops before the model's first tool
// call; F5 runs the tool; Step Back returns before it and F5 runs it again; its output is overridden and the model
// goes on from the override (the streamed program shows it); F5 runs on to the end. A real model writes what it writes: the steps wait for what holds for
// any model (a tool call, its output, an answer or a named end), never its words.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ZOO_LIBRARY } from './servers.mjs';

export const title = 'live on the local model: Live: Local in the status bar, F5 to a tool stop, override, Step Back, finish';

const FILE = 'local-e2e.art';
// Time for a request of the real model on a loaded 2-core machine (loading it takes about 8 s more the first time).
const MODEL_MS = 180_000;

export async function run({ page, step, wb, workspace, picture }) {
  const rows = page.locator('.debug-variables .monaco-list-row');
  const stack = page.locator('.debug-call-stack .monaco-list-row');
  const repl = page.locator('.repl');
  let removeLaunch = () => {};
  // The choice writes the mode and the source into the workspace's settings: restored for the next scenario.
  const settingsFile = join(workspace, '.vscode/settings.json');
  const settings = readFileSync(settingsFile, 'utf8');
  try {
    writeFileSync(join(workspace, FILE), ZOO_LIBRARY);
    removeLaunch = wb.writeLaunch([
      {
        type: 'art',
        request: 'launch',
        name: 'ART: debug the program at the cursor (replay or live, as the status bar says)',
        program: '${file}',
        pauseBeforeTool: true,
        temperature: 0,
        maxTokens: 96,
      },
    ]);

    await step('the run mode item lists the local model; choosing it makes the status bar say Live (Local: …)', async () => {
      await wb.ready('clean.art');
      await wb.openFile(FILE);
      await wb.goToLine(wb.lineOf(FILE, 'Input: Tom has'));
      const mode = page.locator('.statusbar-item[id$="art.runMode"]');
      await mode.filter({ hasText: /Replay|Live/ }).waitFor({ timeout: 20_000 });
      await mode.click();
      await page
        .locator('.quick-input-widget .monaco-list-row', { hasText: 'Live: Local: gemma-3-270m-q4_k_m.gguf' })
        .first()
        .waitFor({ timeout: 20_000 });
      await picture('local-model-choice');
      await wb.pick('Live: Local: gemma-3-270m-q4_k_m.gguf');
      await mode.filter({ hasText: 'Live (Local: gemma-3-270m-q4_k_m.gguf)' }).waitFor({ timeout: 10_000 });
    });

    await step("F5 loads the model and stops before the model's first tool call", async () => {
      await wb.focusEditor();
      await page.keyboard.press('F5');
      await page.locator('.debug-toolbar').waitFor({ timeout: 30_000 });
      await page.keyboard.press('Control+Shift+D');
      await wb.variable(/duration\s*[=:]?\s*\(not run yet\)/).waitFor({ timeout: MODEL_MS });
      await stack
        .filter({ hasText: /\(run \d+\)\.art-run/ })
        .first()
        .waitFor({ timeout: 10_000 });
      await wb.command('Debug Console: Focus on Debug Console View');
      await repl
        .filter({ hasText: /local model: gemma-3-270m-q4_k_m\.gguf loaded/ })
        .first()
        .waitFor({ timeout: 10_000 });
    });

    await step('F5 runs the tool: its output is in the Tool call scope', async () => {
      await page.keyboard.press('Control+Shift+D');
      await wb.continueTo(/output\s*[=:]/, MODEL_MS);
      console.log('     variables:', await wb.rowTexts(rows));
      await wb.command('Debug Console: Focus on Debug Console View');
      await page.keyboard.press('Control+Shift+D');
      await picture('live-local');
    });

    await step('Step Back returns before the tool; F5 runs it again', async () => {
      await wb.stepBack();
      await wb.continueTo(/output\s*[=:]/, MODEL_MS);
    });

    await step('Set Value on output, then F5: the model goes on from the override, shown in the streamed program', async () => {
      await wb.setValueEditor('output');
      await wb.enterValue('output', '4242');
      await wb.focusEditor();
      await page.keyboard.press('F5');
      await page.locator('.editor-group-container .view-lines').filter({ hasText: '#1: 4242' }).first().waitFor({ timeout: MODEL_MS });
    });

    await step('F5 runs on to an answer or a named end', async () => {
      // Each F5 runs to the next stop (another tool call: the Variables view shows another state) or to the end
      // (the debug toolbar goes).
      const toolbar = page.locator('.debug-toolbar');
      const variablesText = () =>
        page.evaluate(() => [...document.querySelectorAll('.debug-variables .monaco-list-row')].map(r => r.textContent).join('|'));
      const stoppedOrEnded = before =>
        page.waitForFunction(
          prev => {
            const bar = document.querySelector('.debug-toolbar');
            if (!bar || bar.getBoundingClientRect().height === 0) return true;
            const now = [...document.querySelectorAll('.debug-variables .monaco-list-row')].map(r => r.textContent).join('|');
            return now !== '' && now !== prev;
          },
          before,
          { timeout: MODEL_MS, polling: 250 },
        );
      // The F5 above is still running the model: wait for its stop or end first.
      await stoppedOrEnded(await variablesText());
      for (let i = 0; i < 12 && (await toolbar.isVisible()); i++) {
        const before = await variablesText();
        await wb.focusEditor();
        await page.keyboard.press('F5');
        await stoppedOrEnded(before);
      }
      await toolbar.waitFor({ state: 'hidden', timeout: MODEL_MS });
      await wb.command('Debug Console: Focus on Debug Console View');
      await repl
        .filter({ hasText: /Answer: |the run ended \(/ })
        .first()
        .waitFor({ timeout: 15_000 });
    });
  } finally {
    writeFileSync(settingsFile, settings);
    removeLaunch();
  }
}
