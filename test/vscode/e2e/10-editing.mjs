// Editing a task library: open a broken file, read the problems, fix one from the light bulb, get tool completions.
export const title = 'editing a broken task library';

export async function run({ page, step, wb, picture }) {
  const file = 'broken.art';
  await step('the workbench opens the test workspace', () => wb.ready(file));

  await step('Ctrl+P opens broken.art', () => wb.openFile(file));

  await step('the status bar shows the program and error counts', async () => {
    await wb.statusItem(/2 programs/).waitFor({ timeout: 20_000 });
    console.log(`     status bar: ${(await wb.statusItem(/programs/).innerText()).replace(/\s+/g, ' ')}`);
  });

  await step('the Problems panel lists step-out-of-order and tool-name-typo', async () => {
    await wb.problems();
    await wb.problemRows('step-out-of-order').first().waitFor({ timeout: 20_000 });
    await wb.problemRows('tool-name-typo').first().waitFor({ timeout: 20_000 });
    console.log('     problems:', await wb.rowTexts(page.locator('.markers-panel .monaco-tl-row')));
  });

  await step('Ctrl+. on the misnumbered step offers "renumber" and applying it clears the error', async () => {
    const fix = page.locator('.action-widget .monaco-list-row', { hasText: /renumber/i }).first();
    // On a loaded machine the first Ctrl+. can come before the editor has the code actions: ask again, as a person would.
    for (let attempt = 1; ; attempt++) {
      await wb.goToLine(wb.lineOf(file, 'Q3:'));
      await page.keyboard.press('Control+.');
      try {
        await fix.waitFor({ timeout: 10_000 });
        break;
      } catch (e) {
        await page.keyboard.press('Escape');
        if (attempt === 3) throw e;
      }
    }
    console.log('     light bulb:', await wb.rowTexts(page.locator('.action-widget .monaco-list-row')));
    await picture('quick-fix');
    await fix.click();
    await page.locator('.editor-group-container.active .view-lines', { hasText: 'Q2: [string index]' }).waitFor({ timeout: 10_000 });
    await wb.problemRows('step-out-of-order').first().waitFor({ state: 'detached', timeout: 20_000 });
  });

  await step('typing "[" in a new step suggests the tools', async () => {
    await wb.focusEditor();
    await page.keyboard.press('Control+End');
    for (const line of ['', '----', 'Description: (Letter count) Count the letters of a word.', 'Input: banana']) {
      await page.keyboard.type(line);
      await page.keyboard.press('Enter');
    }
    await page.keyboard.type('Q1: [');
    const rows = wb.suggestRows();
    await rows.filter({ hasText: 'search' }).first().waitFor({ timeout: 15_000 });
    await rows.filter({ hasText: 'code execute' }).first().waitFor({ timeout: 5_000 });
    console.log('     suggestions:', (await wb.rowTexts(rows)).slice(0, 8));
    await page.keyboard.press('Escape');
  });
}
