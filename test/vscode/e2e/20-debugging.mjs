// Debugging a program as a person would: F5 on a task library (no launch.json) replays the program at the cursor
// (no model needed), the run stops after each tool call, the Variables view shows the call, Set Value overrides the
// output of [code execute], F5 continues: with no model the replay stops where it left its recording and says so,
// and the run leaves no dirty editor and no Problems entry behind.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const title = 'debugging a program: stop at a tool call, override its output, continue, no mess left';

const FILE = 'debug-e2e.art';
const LIBRARY = `In these examples, you are given a task description and an input. Break the input down into subtasks in order to solve the task.

Description: (Elementary Math) Solve the following middle-school arithmetic problems, writing out intermediate arithmetic calculations as python code. Store your result as a variable named 'ans'.
Input: A baker makes 12 loaves a day. She keeps 2 for her family and sells the rest for $3 each. How much money does she make in a week?
Q1: [generate python code] Write down the arithmetic as python code, storing the answer as 'ans'
#1:
loaves_per_day = 12
kept = 2
price = 3
days = 7
ans = (loaves_per_day - kept) * price * days
print(ans)
Q2: [code execute] Execute the python code in #1 and get the value of "ans"
#2: 210
Q3: [EOQ]
Ans: 210
----
Description: %s
Input: %s
Q1:
`;

export async function run({ page, step, wb, workspace, picture }) {
  writeFileSync(join(workspace, FILE), LIBRARY);
  const rows = page.locator('.debug-variables .monaco-list-row');

  await step('the workbench opens the program', async () => {
    await wb.ready('clean.art');
    await wb.openFile(FILE);
    await wb.goToLine(wb.lineOf(FILE, 'Input: A baker'));
  });

  await step('F5 starts a debug session that stops after [generate python code]', async () => {
    await page.keyboard.press('F5');
    await page.locator('.debug-toolbar').waitFor({ timeout: 30_000 });
    // The Run and Debug view (Call Stack, Variables) opens by itself, as a person sees it.
    await page.locator('.debug-call-stack', { hasText: 'generate python code' }).waitFor({ timeout: 30_000 });
    // The stopped line is the program's own `Q1:` line.
    await page.locator('.editor-group-container .debug-top-stack-frame-line').first().waitFor({ timeout: 10_000 });
    // The Tool call scope is open at the first stop without a click (issue 30 item 11: it was collapsed there).
    await rows
      .filter({ hasText: /tool\s*[=:]?\s*"?generate python code/ })
      .first()
      .waitFor({ timeout: 15_000 });
  });

  await step('F5 continues to the stop after [code execute]; the Variables view shows the call', async () => {
    await wb.focusEditor();
    await wb.paused();
    await page.keyboard.press('F5');
    await page.locator('.debug-call-stack', { hasText: 'code execute' }).waitFor({ timeout: 30_000 });
    // VS Code expands the first scope by itself at every stop: no click.
    await rows
      .filter({ hasText: /output\s*[=:]?\s*210/ })
      .first()
      .waitFor({ timeout: 15_000 });
    console.log('     variables:', await wb.rowTexts(rows));
    await picture('tool-call-stop');
  });

  await step('Set Value on output in the Variables view sets it to 42', async () => {
    await wb.setValueEditor('output');
    await wb.enterValue('output', '42');
  });

  await step('F5 after the override: the replay stops where it left its recording and says why', async () => {
    await wb.focusEditor();
    // F5 continues only from a pause (otherwise it would start another session): the toolbar offers Continue.
    await wb.paused();
    await page.keyboard.press('F5');
    await page.locator('.debug-toolbar').waitFor({ state: 'hidden', timeout: 60_000 });
    // The streamed program (a read-only document beside the source) ends at the override: nothing replayed after it.
    await page.locator('.monaco-editor .view-lines', { hasText: '#2: 42' }).first().waitFor({ timeout: 15_000 });
    await wb.command('Debug Console: Focus on Debug Console View');
    await page.locator('.repl', { hasText: 'departs from its recording here' }).first().waitFor({ timeout: 15_000 });
    // A notification offers to set a model endpoint (the recording cannot say what follows 42): in the toasts, or
    // in the notification center when the toast was already put away.
    await wb.command('Notifications: Show Notifications');
    const notice = page.locator('.notifications-center, .notifications-toasts', { hasText: 'departed from its recording' }).first();
    await notice.waitFor({ timeout: 15_000 });
    await notice.locator('.monaco-button', { hasText: 'Set a Model Endpoint' }).first().waitFor({ timeout: 5_000 });
  });

  await step('the run leaves no mess: no dirty editor, no Problems entry from the run', async () => {
    // A dirty editor shows a dot on its tab; the streamed program is read-only and never dirty.
    const dirty = await page.locator('.tabs-container .tab.dirty').count();
    if (dirty) throw new Error(`${dirty} dirty editor(s) after the run`);
    await wb.command('View: Close All Editors');
    // Close All would ask to save a dirty editor: the editors close with no dialog (whichever comes first shows).
    await page.locator('.monaco-dialog-box').or(page.locator('.editor-group-container:not(:has(.tab))')).first().waitFor({ timeout: 15_000 });
    if (await page.locator('.monaco-dialog-box').count()) throw new Error('closing the editors asked to save something');
    if (await page.locator('.tabs-container .tab').count()) throw new Error('Close All Editors left an editor open');
    await wb.command('View: Focus Problems (Errors, Warnings, Infos)');
    const fromRun = await page.locator('.markers-panel .monaco-list-row', { hasText: /art-run|\(run \d+\)/ }).count();
    if (fromRun) throw new Error(`${fromRun} Problems entries from the streamed program`);
  });
}
