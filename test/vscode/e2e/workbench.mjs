// What a person does in the VS Code workbench, as Playwright actions: Quick Open, the command palette, Go to Line,
// the Problems panel, the light bulb, the suggest widget, the status bar. Selectors are VS Code 1.139's.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A replayable program of two tool calls (Python really runs; `#2: 120`), under the task name `task`. */
export function applesProgram(task) {
  return `Description: (${task}) Solve the following middle-school arithmetic problems, writing out intermediate arithmetic calculations as python code. Store your result as a variable named 'ans'.
Input: A farmer has 5 rows of 8 apple trees and sells 3 apples from each tree. How many apples does he sell?
Q1: [generate python code] Write down the arithmetic as python code, storing the answer as 'ans'
#1:
rows = 5
trees_per_row = 8
apples_per_tree = 3
ans = rows * trees_per_row * apples_per_tree
print(ans)
Q2: [code execute] Execute the python code in #1 and get the value of "ans"
#2: 120
Q3: [EOQ]
Ans: 120
`;
}

export function workbench(page, workspace) {
  const wb = {
    page,
    /** The workbench has loaded the folder and the explorer shows `file`. */
    async ready(file) {
      await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
      await page.locator('.explorer-folders-view .monaco-list-row', { hasText: file }).first().waitFor({ timeout: 30_000 });
    },
    /** Ctrl+P, type the name, Enter; resolves when its tab is the active one. */
    async openFile(name) {
      // Quick Open's file index may not hold a file written moments before yet ("No matching results"): ask again,
      // as a person would.
      for (let attempt = 1; ; attempt++) {
        await page.keyboard.press('Control+P');
        await page.locator('.quick-input-widget input').waitFor();
        await page.keyboard.type(name);
        try {
          await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor({ timeout: 10_000 });
          break;
        } catch (e) {
          await page.keyboard.press('Escape');
          if (attempt === 3) throw e;
        }
      }
      await page.keyboard.press('Enter');
      await page.locator('.tab.active', { hasText: name }).waitFor();
      await wb.focusEditor();
    },
    /** Runs a command from the palette by its title. */
    async command(title) {
      await page.keyboard.press('Control+Shift+P');
      await page.locator('.quick-input-widget input').waitFor();
      await page.keyboard.type(title);
      await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor();
      await page.keyboard.press('Enter');
    },
    /**
     * Focuses the active editor by clicking its tab, as a person would, keeping the cursor and the scroll where they
     * are (a click in the text would move the cursor, and one in the middle of a long line scrolls the editor sideways).
     */
    async focusEditor() {
      await page.keyboard.press('Escape');
      await page.locator('.editor-group-container.active .tab.active').first().click();
      await page.locator('.editor-group-container.active .monaco-editor.focused').waitFor({ timeout: 15_000 });
    },
    /**
     * Right-clicks `target` and chooses `item` in its context menu. A menu ignores a click that comes too soon after
     * it opened (seen on a loaded machine: the menu stays open): the choice is repeated until the menu closes.
     */
    async contextMenu(target, item) {
      const menu = page.locator('.monaco-menu').filter({ visible: true });
      for (let attempt = 1; ; attempt++) {
        if (!(await menu.count())) await target.click({ button: 'right' });
        await menu.locator('.action-item', { hasText: item }).first().click();
        try {
          await menu.first().waitFor({ state: 'detached', timeout: 3_000 });
          return;
        } catch (e) {
          if (attempt === 3) throw e;
        }
      }
    },
    /** Ctrl+G to a 1-based line (cursor at its start). */
    async goToLine(line) {
      await wb.focusEditor();
      await page.keyboard.press('Control+G');
      await page.locator('.quick-input-widget input').waitFor();
      await page.keyboard.type(String(line));
      await page.keyboard.press('Enter');
      await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
    },
    /** Opens the Problems panel (Ctrl+Shift+M) and returns its rows. */
    async problems() {
      const rows = page.locator('.markers-panel .monaco-tl-row');
      if (!(await page.locator('.markers-panel').isVisible())) await page.keyboard.press('Control+Shift+M');
      await page.locator('.markers-panel').waitFor();
      return rows;
    },
    problemRows(text) {
      return page.locator('.markers-panel .monaco-tl-row', { hasText: text });
    },
    async rowTexts(locator) {
      return (await locator.allInnerTexts()).map(t => t.replace(/\s+/g, ' ').trim());
    },
    statusItem(text) {
      return page.locator('.statusbar-item', { hasText: text });
    },
    suggestRows() {
      return page.locator('.editor-widget.suggest-widget .monaco-list-row');
    },
    /** The line number (1-based) of the first line starting with `prefix` in a workspace file on disk. */
    lineOf(file, prefix) {
      const i = readFileSync(join(workspace, file), 'utf8')
        .split('\n')
        .findIndex(l => l.startsWith(prefix));
      if (i < 0) throw new Error(`no line starting with "${prefix}" in ${file}`);
      return i + 1;
    },
    /** Between scenarios: close widgets, discard edits, close editors. */
    async reset() {
      for (let i = 0; i < 3; i++) await page.keyboard.press('Escape');
      await wb.command('Revert and Close Editor').catch(() => {});
      await wb.command('View: Close All Editors').catch(() => {});
    },
  };
  return wb;
}
