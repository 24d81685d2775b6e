// Going back in a run as a person would: F5 replays a program to its second tool call, the Step Back button returns
// to the first (nothing is generated again), Stop ends the run, and the ART Runs view lists the run with the future
// the step back left as a branch of it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { applesProgram } from './workbench.mjs';

export const title = 'time travel: step back to an earlier tool call; the run in the Runs view';

const FILE = 'time-travel-e2e.art';
const LIBRARY = applesProgram('Elementary Math');

export async function run({ page, step, wb, workspace, picture }) {
  writeFileSync(join(workspace, FILE), LIBRARY);
  const stack = page.locator('.debug-call-stack .monaco-list-row');

  await step('F5 replays the program to its second tool call', async () => {
    // The scenario before leaves the Run and Debug view in the side bar: show the Explorer, as a person would.
    await page.keyboard.press('Control+Shift+E');
    await wb.ready('clean.art');
    await wb.openFile(FILE);
    await wb.goToLine(wb.lineOf(FILE, 'Input: A farmer'));
    await page.keyboard.press('F5');
    await page.locator('.debug-toolbar').waitFor({ timeout: 30_000 });
    await page.keyboard.press('Control+Shift+D');
    await stack.filter({ hasText: 'generate python code' }).first().waitFor({ timeout: 30_000 });
    await wb.focusEditor();
    await wb.paused();
    await page.keyboard.press('F5');
    await stack.first().filter({ hasText: 'code execute' }).waitFor({ timeout: 30_000 });
    // One frame per step: the second call sits above the first.
    console.log('     call stack:', await wb.rowTexts(stack));
  });

  await step('the Step Back button returns to the first tool call', async () => {
    const back = page.locator('.debug-toolbar .action-label[aria-label^="Step Back"]');
    await back.waitFor({ timeout: 10_000 });
    await back.click();
    await stack.first().filter({ hasText: 'generate python code' }).waitFor({ timeout: 30_000 });
    console.log('     call stack after Step Back:', await wb.rowTexts(stack));
    await picture('step-back');
  });

  await step('Stop ends the run; the ART Runs view lists it', async () => {
    await page.keyboard.press('Shift+F5');
    await page.locator('.debug-toolbar').waitFor({ state: 'hidden', timeout: 30_000 });
    await wb.command('Run and Debug: Focus on ART Runs View');
    const runs = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'ART Runs' }) }).locator('.monaco-list-row');
    await runs.filter({ hasText: 'time-travel-e2e' }).first().waitFor({ timeout: 20_000 });
    console.log('     runs:', (await wb.rowTexts(runs)).slice(0, 4));
    await picture('runs-view');
  });

  await step('the future Step Back left is kept: the run opens onto it as a branch', async () => {
    const runs = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'ART Runs' }) }).locator('.monaco-list-row');
    // The run is the row under its program's group; its twistie expands it, as in any tree.
    const texts = await wb.rowTexts(runs);
    const group = texts.findIndex(t => t.includes('time-travel-e2e'));
    if (group < 0 || group + 1 >= texts.length) throw new Error(`no run under time-travel-e2e.art: ${texts.join(' | ')}`);
    // The run's twistie, clicked until the row says it is expanded (a click on the row itself opens the run's trace,
    // which takes the keyboard focus an arrow key needs; a click on a row the view is redrawing is lost).
    // By its place in the list (data-index): the page holds a list's rows in any order.
    const at = await runs.filter({ hasText: 'time-travel-e2e' }).first().getAttribute('data-index');
    const run = runs.and(page.locator(`[data-index="${Number(at) + 1}"]`));
    for (let attempt = 1; (await run.getAttribute('aria-expanded')) !== 'true'; attempt++) {
      if (attempt > 3) throw new Error(`the run row does not expand: ${(await run.innerText()).replace(/\s+/g, ' ')}`);
      await run.locator('.monaco-tl-twistie').click();
      await run
        .and(page.locator('[aria-expanded="true"]'))
        .waitFor({ timeout: 5_000 })
        .catch(() => {});
    }
    const branch = runs.filter({ hasText: 'branch at' }).first();
    await branch.waitFor({ timeout: 10_000 });
    console.log('     branch:', (await branch.innerText()).replace(/\s+/g, ' '));
  });
}
