// Debugging a program as a person would: F5 on a task library (no launch.json) replays the program at the cursor
// (no model needed), the run stops after each tool call, the Variables view shows the call, F2 overrides the
// output of [code execute], F5 continues, the Debug Console and the streamed program show the result.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const title = 'debugging a program: stop at a tool call, override its output, continue';

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

export async function run({ page, step, wb, workspace }) {
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
    // The Run and Debug view (Call Stack, Variables).
    await page.keyboard.press('Control+Shift+D');
    await page.locator('.debug-call-stack', { hasText: 'generate python code' }).waitFor({ timeout: 30_000 });
    // The stopped line is the program's own `Q1:` line.
    await page.locator('.editor-group-container .debug-top-stack-frame-line').first().waitFor({ timeout: 10_000 });
  });

  await step('F5 continues to the stop after [code execute]; the Variables view shows the call', async () => {
    await wb.focusEditor();
    await page.keyboard.press('F5');
    await page.locator('.debug-call-stack', { hasText: 'code execute' }).waitFor({ timeout: 30_000 });
    await rows.filter({ hasText: 'Tool call' }).first().waitFor({ timeout: 15_000 });
    const output = rows.filter({ hasText: /^\s*output\b/ }).first();
    if (!(await output.isVisible())) await rows.filter({ hasText: 'Tool call' }).first().click();
    await rows.filter({ hasText: /output\s*[=:]?\s*210/ }).first().waitFor({ timeout: 15_000 });
    console.log('     variables:', await wb.rowTexts(rows));
  });

  await step('Set Value on output (the Variables view context menu, F2) sets it to 42', async () => {
    // Set Value from the row's context menu (the Variables view's F2 command).
    await rows.filter({ hasText: /^\s*output\b/ }).first().click({ button: 'right' });
    await page.locator('.monaco-menu .action-item', { hasText: 'Set Value' }).first().click();
    await page.locator('.debug-variables input').waitFor({ timeout: 10_000 });
    await page.keyboard.press('Control+A');
    await page.keyboard.type('42');
    await page.keyboard.press('Enter');
    await rows.filter({ hasText: /output\s*[=:]?\s*42/ }).first().waitFor({ timeout: 10_000 });
  });

  await step('F5 runs to the end: the session ends and the program shows the override and the answer', async () => {
    await wb.focusEditor();
    await page.keyboard.press('F5');
    await page.locator('.debug-toolbar').waitFor({ state: 'hidden', timeout: 30_000 });
    // The streamed program (an untitled editor beside the source) and the Debug Console.
    await page.locator('.monaco-editor .view-lines', { hasText: '#2: 42' }).first().waitFor({ timeout: 15_000 });
    await wb.command('Debug Console: Focus on Debug Console View');
    await page.locator('.repl', { hasText: 'Answer: 210' }).first().waitFor({ timeout: 15_000 });
  });
}
