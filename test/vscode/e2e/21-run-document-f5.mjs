// F5 after a run, with the keyboard in the run's read-only document (scheme art-run, language "ART Run
// (read-only)"): it starts the program that document came from again, as F5 in the source does, and so does the Run
// and Debug view's start button; VS Code never offers the Marketplace for the document's language (issue 40, item 4).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { applesProgram } from './workbench.mjs';

export const title = "F5 in a finished run's read-only document runs its program again (no Marketplace dialog)";

const FILE = 'run-document-e2e.art';

export async function run({ page, step, wb, workspace }) {
  writeFileSync(join(workspace, FILE), applesProgram('Run Document Apples'));
  const toolbar = page.locator('.debug-toolbar');
  const dialog = page.locator('.monaco-dialog-box');
  const runTab = page.locator('.tab', { hasText: /\(run \d+\)\.art-run/ }).first();

  /** F5 at its two stops (after each tool) until the run ends: its toolbar gone. */
  const runToEnd = async () => {
    await wb.variable(/tool\s*[=:]?\s*"?generate python code/).waitFor({ timeout: 30_000 });
    await wb.continueTo(/tool\s*[=:]?\s*"?code execute/);
    await wb.paused();
    await wb.focusEditor();
    await page.keyboard.press('F5');
    await toolbar.waitFor({ state: 'hidden', timeout: 30_000 });
  };

  /** The keyboard in the run's document: its tab clicked, its editor focused. */
  const focusRunDocument = async () => {
    await runTab.click();
    await page
      .locator('.editor-group-container', { has: page.locator('.tab.active', { hasText: /\.art-run/ }) })
      .locator('.monaco-editor.focused')
      .waitFor({ timeout: 15_000 });
  };

  /** A debug session starts on the program (stopped at its first tool call); no dialog on the way. */
  const startsTheProgram = async () => {
    await dialog
      .or(page.locator('.debug-call-stack', { hasText: 'generate python code' }))
      .first()
      .waitFor({ timeout: 30_000 });
    if (await dialog.isVisible()) throw new Error(`a dialog opened instead of a run: ${(await dialog.innerText()).replace(/\s+/g, ' ')}`);
    await wb.paused();
  };

  await step('F5 on the program replays it to its end; its read-only document stays open beside', async () => {
    await wb.ready('clean.art');
    await wb.openFile(FILE);
    await page.keyboard.press('F5');
    await toolbar.waitFor({ timeout: 30_000 });
    await runToEnd();
    await runTab.waitFor({ timeout: 15_000 });
    await page.locator('.monaco-editor .view-lines', { hasText: 'Ans: 120' }).first().waitFor({ timeout: 15_000 });
  });

  await step("F5 with the keyboard in the run's document runs the program it came from again", async () => {
    await focusRunDocument();
    await page.keyboard.press('F5');
    await startsTheProgram();
    await wb.stopDebugging();
  });

  await step("the Run and Debug view's start button, the run's document active, runs the program too", async () => {
    await focusRunDocument();
    await wb.command('View: Show Run and Debug');
    const start = page.locator('.debug-pane .monaco-button, .welcome-view-content .monaco-button', { hasText: 'Run and Debug' }).first();
    await start.click({ timeout: 15_000 });
    await startsTheProgram();
    await wb.stopDebugging();
  });
}
