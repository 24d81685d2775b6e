// The live debugger as a person uses it: the workspace's settings point at a model zoo endpoint that wraps its
// reasoning in <think> (test/support/zooServer.ts, a process of its own), the status bar says Replay for a recorded
// program and a click chooses Live on the endpoint, F5 generates the program and stops at the tool call in the streamed
// document (its current line shown: the frame's line lies inside it; the document open once, beside the source), the Variables view shows the call and the
// model's reasoning, the output is overridden, Step Back returns before the tool, F5 runs to the answer, and the
// run leaves no Problems entry.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startZoo, ZOO_LIBRARY } from './servers.mjs';

export const title = 'live debugging: Replay/Live in the status bar, F5 live to a tool stop, override, Step Back, finish';

const FILE = 'live-e2e.art';

export async function run({ page, step, wb, workspace, picture }) {
  const { baseURL, child } = await startZoo('think');
  const settingsFile = join(workspace, '.vscode/settings.json');
  let removeLaunch = () => {};
  const settings = readFileSync(settingsFile, 'utf8');
  const rows = page.locator('.debug-variables .monaco-list-row');
  const stack = page.locator('.debug-call-stack .monaco-list-row');
  const repl = page.locator('.repl');
  /** F5 from the editor, to the stop after the calculator ran (output 10). */
  const continueToOutput = () => wb.continueTo(/output\s*[=:]?\s*10/);
  try {
    writeFileSync(join(workspace, FILE), ZOO_LIBRARY);
    writeFileSync(settingsFile, JSON.stringify({ ...JSON.parse(settings), 'art.model.baseURL': baseURL, 'art.model.name': 'zoo-think' }, null, 2));
    // The zoo is a chat endpoint: a launch configuration says so (the mode is left to the status bar).
    removeLaunch = wb.writeLaunch([
      {
        type: 'art',
        request: 'launch',
        name: 'ART: debug the program at the cursor with the chat API (replay or live, as the status bar says)',
        program: '${file}',
        api: 'chat',
        pauseBeforeTool: true,
      },
    ]);

    await step('the status bar says Replay for a recorded program; its choice of Live on the endpoint (zoo-think) switches it', async () => {
      await wb.ready('clean.art');
      await wb.openFile(FILE);
      await wb.goToLine(wb.lineOf(FILE, 'Input: Tom has'));
      // The mode's own item (its id ends in art.runMode): the debug item beside it names a launch configuration whose
      // name also holds the word "replay".
      const mode = page.locator('.statusbar-item[id$="art.runMode"]');
      await mode.filter({ hasText: 'Replay' }).waitFor({ timeout: 20_000 });
      await mode.click();
      await wb.pick('Live: zoo-think');
      await mode.filter({ hasText: 'Live (zoo-think)' }).waitFor({ timeout: 10_000 });
    });

    await step(
      'F5 generates the program live and stops before [calculator], on a line of the streamed document, open once beside the source',
      async () => {
        await wb.focusEditor();
        await page.keyboard.press('F5');
        await page.locator('.debug-toolbar').waitFor({ timeout: 30_000 });
        await page.keyboard.press('Control+Shift+D');
        await stack.filter({ hasText: 'calculator' }).first().waitFor({ timeout: 30_000 });
        // The frame names the streamed program (`… (run N).art-run`), whose current line is shown: VS Code draws it
        // only for a line inside the document.
        await stack
          .filter({ hasText: /\(run \d+\)\.art-run/ })
          .first()
          .waitFor({ timeout: 10_000 });
        await page.locator('.editor-group-container .debug-top-stack-frame-line').first().waitFor({ timeout: 15_000 });
        // The streamed program opens once, beside the source, which stays shown in its own group.
        const streamed = page.locator('.tab', { hasText: /\(run \d+\)\.art-run/ });
        await streamed.nth(1).waitFor({ state: 'detached', timeout: 15_000 });
        if ((await streamed.count()) !== 1) throw new Error(`the streamed program has ${await streamed.count()} tabs`);
        const groups = page.locator('.editor-group-container');
        await groups.filter({ has: page.locator('.tab.active', { hasText: FILE }) }).waitFor({ timeout: 15_000 });
        await groups.filter({ has: page.locator('.tab.active', { hasText: /\(run \d+\)\.art-run/ }) }).waitFor({ timeout: 15_000 });
        await wb.command('Debug Console: Focus on Debug Console View');
        await repl
          .filter({ hasText: /Live: zoo-think at http:\/\/127\.0\.0\.1:\d+\/v1 writes/ })
          .first()
          .waitFor({ timeout: 10_000 });
      },
    );

    await step("F5 runs the tool: the Tool call scope is open with output 10 and the model's reasoning", async () => {
      await page.keyboard.press('Control+Shift+D');
      await continueToOutput();
      await rows
        .filter({ hasText: /reasoning\s*[=:]?\s*"?The question asks for 3 \+ 7/ })
        .first()
        .waitFor({ timeout: 10_000 });
      console.log('     variables:', await wb.rowTexts(rows));
      await picture('live-tool-stop');
    });

    await step('Set Value (a double-click) on the selected output row edits output; 42 is set', async () => {
      // Not F2: VS Code's debug.setVariable edits the variable whose row last drew its inline actions (or was last
      // right-clicked), not the focused one; here it opens on `tool`. docs/running.md says to double-click instead.
      const editor = await wb.setValueEditor('output');
      const value = await editor.inputValue();
      if (value !== '10') throw new Error(`the double-click edits the value "${value}", not output's 10`);
      await wb.enterValue('output', '42');
    });

    await step('Step Back returns before the tool; F5 twice runs to the answer', async () => {
      await wb.stepBack();
      await continueToOutput();
      await wb.focusEditor();
      await page.keyboard.press('F5');
      await page.locator('.debug-toolbar').waitFor({ state: 'hidden', timeout: 30_000 });
      await wb.command('Debug Console: Focus on Debug Console View');
      await repl.filter({ hasText: 'Answer: 10' }).first().waitFor({ timeout: 15_000 });
      const text = await repl.first().innerText();
      const repairs = text.match(/the chat reply was repaired/g) ?? [];
      console.log(`     repairs said: ${repairs.length}`);
      if (repairs.length !== 1) throw new Error(`the <think> repair was said ${repairs.length} times`);
      await picture('live-finished');
    });

    await step('the run leaves no Problems entry and the streamed document is not checked', async () => {
      await wb.command('View: Focus Problems (Errors, Warnings, Infos)');
      await page.locator('.markers-panel').waitFor();
      const fromRun = await page.locator('.markers-panel .monaco-list-row', { hasText: /art-run|\(run \d+\)|generated|missing-/ }).count();
      if (fromRun) throw new Error(`${fromRun} Problems entries from the run`);
    });
  } finally {
    writeFileSync(settingsFile, settings);
    removeLaunch();
    child.kill();
  }
}
