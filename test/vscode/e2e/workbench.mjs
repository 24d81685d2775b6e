// What a person does in the VS Code workbench, as Playwright actions: Quick Open, the command palette, Go to Line,
// the Problems panel, the light bulb, the suggest widget, the status bar. Selectors are VS Code 1.139's.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
    /**
     * Runs a command from the palette by its exact title. The palette's list follows the input a moment later and
     * also offers commands only similar to the one asked for (a title that is a prefix of another, "similar
     * commands"): the command run is the row whose label is the title, chosen once the list shows it.
     */
    async command(title) {
      const widget = page.locator('.quick-input-widget');
      // The search box in the title bar, then `>` for commands: Ctrl+Shift+P would go to whatever has the keyboard,
      // and a key pressed in a webview reaches the workbench only through it (lost when the webview goes meanwhile).
      await page.locator('.titlebar .command-center .command-center-center').first().click();
      await page.waitForFunction(() => document.activeElement?.matches('.quick-input-widget input') ?? false, null, { timeout: 15_000 });
      await widget.locator('input').fill(`>${title}`);
      const label = page.locator('.label-name').filter({ hasText: new RegExp(`^${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) });
      const row = widget.locator('.quick-input-list .monaco-list-row').filter({ has: label }).first();
      await row.waitFor({ timeout: 15_000 });
      if (await row.evaluate(el => el.classList.contains('focused'))) await page.keyboard.press('Enter');
      else await row.click();
      // The palette closed (or the command asks its own question in the same widget).
      await page.waitForFunction(
        typed => {
          const input = document.querySelector('.quick-input-widget input');
          return !input || !input.checkVisibility() || input.value !== typed;
        },
        `>${title}`,
        { timeout: 15_000 },
      );
    },
    /** Writes the workspace's .vscode/launch.json with `configurations`; returns a function that removes it. */
    writeLaunch(configurations) {
      const file = join(workspace, '.vscode/launch.json');
      mkdirSync(join(workspace, '.vscode'), { recursive: true });
      writeFileSync(file, JSON.stringify({ version: '0.2.0', configurations }, null, 2));
      return () => rmSync(file, { force: true });
    },
    /**
     * Opens the Variables view's editor of the variable `name` as a person does: double-click it (Set Value), else its
     * context menu's Set Value (F2 itself does not reach the tree in code-server). Set Value edits the tree's focused
     * row, so the row is selected first; an attempt that opens no editor (a click lost while the view settles) is
     * repeated. Resolves with the editor's input box.
     */
    async setValueEditor(name) {
      const row = page
        .locator('.debug-variables .monaco-list-row')
        .filter({ hasText: new RegExp(`^\\s*${name}\\b`) })
        .first();
      await row.click();
      await page.locator('.debug-variables .monaco-list-row.focused', { hasText: new RegExp(`^\\s*${name}\\b`) }).waitFor({ timeout: 10_000 });
      const editor = page.locator('.debug-variables input');
      for (let attempt = 1; ; attempt++) {
        if (attempt % 2 === 1) await row.dblclick();
        else {
          await row.click({ button: 'right' });
          await page.locator('.monaco-menu .action-item', { hasText: 'Set Value' }).first().click();
        }
        try {
          await editor.waitFor({ timeout: 5_000 });
          return editor;
        } catch (e) {
          await page.keyboard.press('Escape');
          if (attempt === 4) throw e;
        }
      }
    },
    /** Types `value` into the open Set Value editor of `name`, Enter; resolves once the Variables view shows it. */
    async enterValue(name, value) {
      await page.keyboard.press('Control+A');
      await page.keyboard.type(value);
      await page.keyboard.press('Enter');
      const shown = new RegExp(`${name}\\s*[=:]?\\s*"?${value.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`);
      await page.locator('.debug-variables .monaco-list-row').filter({ hasText: shown }).first().waitFor({ timeout: 10_000 });
    },
    /** Chooses the row of the open quick pick that holds `text` (a choice a command or a status bar item asks for). */
    async pick(text) {
      const row = page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: text }).first();
      await row.waitFor({ timeout: 15_000 });
      await row.click();
      await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 15_000 });
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
     * it opened (seen on a loaded machine: the menu stays open), and a right-click on a row being redrawn opens none:
     * the right-click and the choice are repeated until the menu closes (three times at most).
     */
    async contextMenu(target, item) {
      const menu = page.locator('.monaco-menu').filter({ visible: true });
      for (let attempt = 1; ; attempt++) {
        try {
          // A right-click on a row the tree is redrawing opens no menu: right-click again.
          if (!(await menu.count())) await target.click({ button: 'right', timeout: 10_000 });
          await menu.locator('.action-item', { hasText: item }).first().click({ timeout: 5_000 });
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
    /** A row of the Variables view whose text matches `pattern`. */
    variable(pattern) {
      return page.locator('.debug-variables .monaco-list-row').filter({ hasText: pattern }).first();
    },
    /** F5 in the editor (Continue), then waits for a Variables row matching `pattern` (the stop it runs to). */
    async continueTo(pattern, timeout = 30_000) {
      await wb.focusEditor();
      await page.keyboard.press('F5');
      await wb.variable(pattern).waitFor({ timeout });
    },
    /** The debug toolbar's Step Back, then waits for the stop before the tool (its duration "(not run yet)"). */
    async stepBack() {
      await page.locator('.debug-toolbar .action-label[aria-label^="Step Back"]').click();
      await wb.variable(/duration\s*[=:]?\s*\(not run yet\)/).waitFor({ timeout: 30_000 });
    },
    /** The debug toolbar's Continue is offered: the debug session is paused. */
    async paused() {
      await page.locator('.debug-toolbar .action-label[aria-label^="Continue"]').first().waitFor({ timeout: 30_000 });
    },
    /**
     * Ends every debug session with the debug toolbar's Stop (once per session), and waits until the workbench shows
     * none: the toolbar gone.
     */
    async stopDebugging() {
      const toolbar = page.locator('.debug-toolbar');
      const stop = toolbar.locator('.action-label[aria-label^="Stop"], .action-label[aria-label^="Disconnect"]').first();
      for (let sessions = 0; sessions < 5 && (await toolbar.isVisible()); sessions++) {
        // A session that is ending already shows no Stop: the toolbar goes by itself.
        if (await stop.isVisible()) await stop.click({ timeout: 15_000 }).catch(() => {});
        // The toolbar goes with the last session; while another one is left, its Stop is clicked in turn.
        await toolbar.waitFor({ state: 'hidden', timeout: 30_000 }).catch(() => {});
      }
      if (await toolbar.isVisible()) throw new Error('the debug toolbar is still shown after Stop: a debug session did not end');
    },
    /**
     * Between scenarios, a clean workbench as the next scenario expects it: no widget or quick input, no debug
     * session, no notification, no edit, no editor, no panel, the Explorer in the side bar.
     */
    async reset() {
      for (let i = 0; i < 3; i++) await page.keyboard.press('Escape');
      await wb.stopDebugging();
      await wb.command('Notifications: Clear All Notifications');
      // Edits discarded, each dirty editor's in turn, then every editor closed.
      for (let n = 0; await page.locator('.tab.dirty').count(); n++) {
        if (n === 10) throw new Error('10 editors reverted and one is still dirty');
        await page.locator('.tab.dirty').first().click();
        await wb.command('File: Revert File');
        await page.locator('.tab.active.dirty').waitFor({ state: 'detached', timeout: 15_000 });
      }
      if (await page.locator('.tabs-container .tab').count()) await wb.command('View: Close All Editors');
      await page.locator('.tabs-container .tab').first().waitFor({ state: 'detached', timeout: 15_000 });
      if (await page.locator('.part.panel').isVisible()) await wb.command('View: Hide Panel');
      await page.locator('.part.panel').waitFor({ state: 'hidden', timeout: 15_000 });
      await wb.command('View: Show Explorer');
      await page.locator('.explorer-folders-view').waitFor({ timeout: 15_000 });
      // What the scenario before left that the reset could not clear (a progress notification still running).
      const toasts = await page.locator('.notification-toast').count();
      if (toasts) console.log(`     reset: ${toasts} notification(s) could not be cleared`);
    },
  };
  return wb;
}
