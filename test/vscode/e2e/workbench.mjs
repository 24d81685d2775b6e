// What a person does in the VS Code workbench, as Playwright actions: Quick Open, the command palette, Go to Line,
// the Problems panel, the light bulb, the suggest widget, the status bar. Selectors are VS Code 1.139's.
// Every helper waits on the state it needs (the file's editor active and focused, the palette closed, the cursor on the
// line), never on time; one that cannot reach that state fails naming what the workbench shows instead (wb.state()).
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

/** The first line of an error's message (Playwright's own messages go on with a call log). */
const firstLine = e => String(e?.message ?? e).split('\n')[0];

/**
 * What the workbench shows, in one line, for a message that names what was there instead of what a step waited for:
 * the active editor (and the other tabs), where the keyboard focus is, and any quick input, dialog, menu, debug
 * toolbar, panel or notification on screen. Runs in the page.
 */
function describeWorkbench() {
  const text = el => (el?.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 100);
  const shown = el => !!el && el.checkVisibility();
  const parts = [];
  const groups = [...document.querySelectorAll('.editor-group-container')];
  const label = tab => text(tab);
  const active = document.querySelector('.editor-group-container.active .tab.active');
  parts.push(
    `active editor: ${active ? `"${label(active)}"` : 'none'}${groups.length > 1 ? ` (in group ${groups.findIndex(g => g.classList.contains('active')) + 1} of ${groups.length})` : ''}`,
  );
  const others = [...document.querySelectorAll('.tabs-container .tab')].filter(t => t !== active).map(label);
  if (others.length) parts.push(`other tabs: ${others.map(t => `"${t}"`).join(', ')}`);
  const a = document.activeElement;
  let focus = 'nothing';
  if (a && a !== document.body) {
    const editorTab = a.closest('.editor-group-container')?.querySelector('.tab.active');
    if (a.closest('.quick-input-widget')) focus = 'the quick input';
    else if (a.closest('.monaco-dialog-box')) focus = 'a dialog';
    else if (a.tagName === 'IFRAME' || a.closest('.webview')) focus = 'a webview';
    else if (a.closest('.settings-editor')) focus = 'the Settings editor';
    else if (a.closest('.monaco-editor') && a.closest('.editor-group-container')) focus = `the editor of "${editorTab ? label(editorTab) : '?'}"`;
    else if (a.closest('.part.panel')) focus = `the panel (${text(a.closest('.part.panel').querySelector('.composite-bar .checked, .title-label'))})`;
    else if (a.closest('.part.sidebar')) focus = `the side bar (${text(a.closest('.part.sidebar').querySelector('.title-label'))})`;
    else if (a.closest('.part.auxiliarybar')) focus = 'the secondary side bar';
    else focus = `${a.tagName.toLowerCase()}${a.className ? `.${String(a.className).split(/\s+/).slice(0, 3).join('.')}` : ''}`;
  }
  parts.push(`focus: ${focus}`);
  const quick = document.querySelector('.quick-input-widget');
  if (shown(quick)) {
    const input = quick.querySelector('input');
    parts.push(`quick input open: "${text(quick.querySelector('.quick-input-title'))}" typed "${input?.value ?? ''}"`);
  }
  const dialog = document.querySelector('.monaco-dialog-box');
  if (shown(dialog)) parts.push(`dialog: "${text(dialog)}"`);
  if ([...document.querySelectorAll('.monaco-menu')].some(shown)) parts.push('a context menu is open');
  if (shown(document.querySelector('.debug-toolbar'))) parts.push('debug toolbar shown');
  if (shown(document.querySelector('.part.panel'))) parts.push('panel shown');
  const toasts = [...document.querySelectorAll('.notification-toast')].filter(shown).map(text);
  if (toasts.length) parts.push(`notifications: ${toasts.map(t => `"${t.slice(0, 60)}"`).join(', ')}`);
  return parts.join('; ');
}

export function workbench(page, workspace) {
  /** `fn()`, and when it fails, the same error with what the workbench shows instead added to its first line. */
  const stating = async (what, fn) => {
    try {
      return await fn();
    } catch (e) {
      const state = await wb.state().catch(() => '(the page did not answer)');
      const lines = String(e?.message ?? e).split('\n');
      const error = new Error([`${what}: ${lines[0]}; the workbench shows: ${state}`, ...lines.slice(1)].join('\n'));
      error.stack = e?.stack;
      throw error;
    }
  };
  /** Waits (in the page, frame by frame) until `predicate(arg)` holds; false when it did not within `timeout`. */
  const reached = (predicate, arg, timeout) =>
    page.waitForFunction(predicate, arg, { timeout, polling: 'raf' }).then(
      () => true,
      e => {
        if (e?.name === 'TimeoutError') return false;
        throw e;
      },
    );
  /** In the page: the active group's active tab is `name`'s (and, with `focused`, its editor has the keyboard). */
  const editorIs = ({ name, focused }) => {
    const tab = document.querySelector('.editor-group-container.active .tab.active');
    if (!(tab?.textContent ?? '').includes(name)) return false;
    if (!focused) return true;
    return !!document.activeElement?.closest('.editor-group-container.active .monaco-editor');
  };
  const quickInputFocused = () => document.activeElement?.matches('.quick-input-widget input') ?? false;

  const wb = {
    page,
    /** What the workbench shows now, in one line (failure messages name it). */
    state: () => page.evaluate(describeWorkbench),
    /** `fn()`; when it fails, its error says what the workbench showed instead. */
    stating,
    /** The workbench has loaded the folder and the explorer shows `file`. */
    async ready(file) {
      await stating(`the workbench showing ${file} in the Explorer`, async () => {
        await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
        await page.locator('.explorer-folders-view .monaco-list-row', { hasText: file }).first().waitFor({ timeout: 30_000 });
      });
    },
    /** Closes whatever quick input is open (Escape while one shows). */
    async closeQuickInput() {
      const widget = page.locator('.quick-input-widget');
      for (let i = 0; i < 3 && (await widget.isVisible()); i++) {
        await page.keyboard.press('Escape');
        await widget.waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => {});
      }
    },
    /**
     * Ctrl+P, the name typed, its row chosen; resolves once the file's editor is the active one and has the keyboard.
     * Quick Open's index may not hold a file written moments before ("No matching results"), and an editor opening
     * meanwhile (the Settings editor a command opened, focusing its search box when it has loaded) takes the focus and
     * closes Quick Open: the whole gesture is repeated, as a person would, until the file's editor is active.
     */
    async openFile(name) {
      const row = page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: name }).first();
      const tried = [];
      for (let attempt = 1; attempt <= 4; attempt++) {
        await wb.closeQuickInput();
        await page.keyboard.press('Control+P');
        if (!(await reached(quickInputFocused, null, 10_000))) {
          tried.push(`Quick Open did not take the keyboard (${await wb.state()})`);
          continue;
        }
        await page.keyboard.type(name);
        // A click on the row opens that row whatever has the focus meanwhile (Enter would go wherever the keyboard is).
        const clicked = await row.click({ timeout: 10_000 }).then(
          () => true,
          e => (tried.push(`no row of Quick Open to click (${firstLine(e)})`), false),
        );
        if (!clicked) continue;
        if (await reached(editorIs, { name, focused: false }, 20_000)) {
          await wb.focusEditor();
          await stating(`the editor of ${name} active and focused`, () =>
            page.waitForFunction(editorIs, { name, focused: true }, { timeout: 15_000, polling: 'raf' }),
          );
          return;
        }
        tried.push(`${name} chosen, but its editor did not become active (${await wb.state()})`);
      }
      throw new Error(
        `openFile ${name}: its editor never became the active, focused one in 4 tries: ${tried.join(' | ')}; the workbench shows: ${await wb.state()}`,
      );
    },
    /**
     * Runs a command from the palette by its exact title. The palette's list follows the input a moment later and
     * also offers commands only similar to the one asked for (a title that is a prefix of another, "similar
     * commands"): the command run is the row whose label is the title, chosen once the list shows it.
     */
    async command(title) {
      await stating(`the command "${title}"`, async () => {
        const widget = page.locator('.quick-input-widget');
        // The search box in the title bar, then `>` for commands: Ctrl+Shift+P would go to whatever has the keyboard,
        // and a key pressed in a webview reaches the workbench only through it (lost when the webview goes meanwhile).
        await page.locator('.titlebar .command-center .command-center-center').first().click();
        await page.waitForFunction(quickInputFocused, null, { timeout: 15_000, polling: 'raf' });
        await widget.locator('input').fill(`>${title}`);
        const label = page.locator('.label-name').filter({ hasText: new RegExp(`^${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) });
        const row = widget.locator('.quick-input-list .monaco-list-row').filter({ has: label }).first();
        await row.waitFor({ timeout: 15_000 });
        // A click runs the row's command whatever has the focus (Enter would go wherever the keyboard is meanwhile).
        await row.click({ timeout: 10_000 });
        // The palette closed (or the command asks its own question in the same widget).
        await page.waitForFunction(
          typed => {
            const input = document.querySelector('.quick-input-widget input');
            return !input || !input.checkVisibility() || input.value !== typed;
          },
          `>${title}`,
          { timeout: 15_000, polling: 'raf' },
        );
      });
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
      return stating(`the Set Value editor of ${name}`, async () => {
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
      });
    },
    /** Types `value` into the open Set Value editor of `name`, Enter; resolves once the Variables view shows it. */
    async enterValue(name, value) {
      await stating(`${name} set to ${value} in the Variables view`, async () => {
        await page.waitForFunction(() => document.activeElement?.matches('.debug-variables input') ?? false, null, {
          timeout: 10_000,
          polling: 'raf',
        });
        await page.keyboard.press('Control+A');
        await page.keyboard.type(value);
        await page.keyboard.press('Enter');
        const shown = new RegExp(`${name}\\s*[=:]?\\s*"?${value.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`);
        await page.locator('.debug-variables .monaco-list-row').filter({ hasText: shown }).first().waitFor({ timeout: 10_000 });
      });
    },
    /** Chooses the row of the open quick pick that holds `text` (a choice a command or a status bar item asks for). */
    async pick(text) {
      await stating(`the choice "${text}"`, async () => {
        const row = page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: text }).first();
        await row.waitFor({ timeout: 15_000 });
        await row.click();
        await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 15_000 });
      });
    },
    /**
     * Focuses the active editor by clicking its tab, as a person would, keeping the cursor and the scroll where they
     * are (a click in the text would move the cursor, and one in the middle of a long line scrolls the editor sideways);
     * resolves once its editor has the keyboard.
     */
    async focusEditor() {
      await stating('the active editor focused', async () => {
        await wb.closeQuickInput();
        // Escape closes what the editor shows over its text (a suggest widget, a hover) and the notification toasts.
        await page.keyboard.press('Escape');
        const tab = page.locator('.editor-group-container.active .tab.active').first();
        const focused = () => !!document.activeElement?.closest('.editor-group-container.active .monaco-editor');
        for (let attempt = 1; ; attempt++) {
          await tab.click({ timeout: 10_000 });
          if (await reached(focused, null, attempt < 3 ? 5_000 : 15_000)) return;
          // A click on a tab being redrawn (a stop reveals the frame's line) is lost: click again.
          if (attempt === 3) throw new Error('the editor of the active tab did not take the keyboard');
        }
      });
    },
    /**
     * Right-clicks `target` and chooses `item` in its context menu. A menu ignores a click that comes too soon after
     * it opened (seen on a loaded machine: the menu stays open), and a right-click on a row being redrawn opens none:
     * the right-click and the choice are repeated until the menu closes (three times at most).
     */
    async contextMenu(target, item) {
      await stating(`the context menu's "${item}"`, async () => {
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
            // A menu still open with the item ignored the click (it came too soon after the menu opened): the next
            // attempt clicks the item again. One without it (the right-click hit another row) is closed, to
            // right-click again.
            if ((await menu.count()) && !(await menu.locator('.action-item', { hasText: item }).count())) {
              await page.keyboard.press('Escape');
              await menu
                .first()
                .waitFor({ state: 'detached', timeout: 3_000 })
                .catch(() => {});
            }
          }
        }
      });
    },
    /** Ctrl+G to a 1-based line (cursor at its start); resolves once the status bar shows the cursor on it. */
    async goToLine(line) {
      await wb.focusEditor();
      await stating(`Go to Line ${line}`, async () => {
        await page.keyboard.press('Control+G');
        await page.waitForFunction(quickInputFocused, null, { timeout: 15_000, polling: 'raf' });
        await page.keyboard.type(String(line));
        await page.keyboard.press('Enter');
        await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 15_000 });
        await page.waitForFunction(() => document.activeElement?.closest('.editor-group-container.active .monaco-editor') != null, null, {
          timeout: 15_000,
          polling: 'raf',
        });
        await page
          .locator('.statusbar-item', { hasText: new RegExp(`^\\s*Ln ${line}, Col \\d+`) })
          .first()
          .waitFor({ timeout: 15_000 });
      });
    },
    /** Opens the Problems panel (Ctrl+Shift+M) and returns its rows. */
    async problems() {
      const rows = page.locator('.markers-panel .monaco-tl-row');
      if (!(await page.locator('.markers-panel').isVisible())) await page.keyboard.press('Control+Shift+M');
      await stating('the Problems panel', () => page.locator('.markers-panel').waitFor());
      return rows;
    },
    problemRows(text) {
      return page.locator('.markers-panel .monaco-tl-row', { hasText: text });
    },
    /**
     * The texts of a list's rows in the order the list shows them: a list draws its rows in the page in any order (a
     * redraw appends the rows it adds), each with its index in `data-index`.
     */
    async rowTexts(locator) {
      const rows = await locator.evaluateAll(els => els.map((el, i) => ({ index: Number(el.getAttribute('data-index') ?? i), text: el.innerText })));
      return rows.sort((a, b) => a.index - b.index).map(r => r.text.replace(/\s+/g, ' ').trim());
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
    /** F5 in the editor (Continue) at a pause, then waits for a Variables row matching `pattern` (the stop it runs to). */
    async continueTo(pattern, timeout = 30_000) {
      await wb.paused();
      await wb.focusEditor();
      await page.keyboard.press('F5');
      await stating(`the stop showing ${pattern} in Variables`, () => wb.variable(pattern).waitFor({ timeout }));
    },
    /** The debug toolbar's Step Back, then waits for the stop before the tool (its duration "(not run yet)"). */
    async stepBack() {
      await stating('Step Back to the stop before the tool', async () => {
        await page.locator('.debug-toolbar .action-label[aria-label^="Step Back"]').click();
        await wb.variable(/duration\s*[=:]?\s*\(not run yet\)/).waitFor({ timeout: 30_000 });
      });
    },
    /** The debug toolbar's Continue is offered: the debug session is paused. */
    async paused() {
      await stating('a paused debug session', () =>
        page.locator('.debug-toolbar .action-label[aria-label^="Continue"]').first().waitFor({ timeout: 30_000 }),
      );
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
      if (await toolbar.isVisible())
        throw new Error(`the debug toolbar is still shown after Stop: a debug session did not end; the workbench shows: ${await wb.state()}`);
    },
    /**
     * The workbench as every scenario starts from it: no dialog, menu, quick input or notification, no debug session,
     * no edit, no editor (one editor group), no panel, no secondary side bar, the Explorer in the side bar and the
     * keyboard in no webview. Checked at the end: what it could not clear is named.
     */
    async reset() {
      // A modal dialog first: nothing else takes a click while it shows.
      const dialog = page.locator('.monaco-dialog-box');
      for (let i = 0; i < 3 && (await dialog.isVisible()); i++) {
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => {});
      }
      for (let i = 0; i < 3; i++) await page.keyboard.press('Escape');
      await wb.closeQuickInput();
      await wb.stopDebugging();
      await wb.command('Notifications: Clear All Notifications');
      // Edits discarded, each dirty editor's in turn, then every editor closed, and the groups with them.
      for (let n = 0; await page.locator('.tab.dirty').count(); n++) {
        if (n === 10) throw new Error(`10 editors reverted and one is still dirty; the workbench shows: ${await wb.state()}`);
        await page.locator('.tab.dirty').first().click();
        await wb.command('File: Revert File');
        await page.locator('.tab.active.dirty').waitFor({ state: 'detached', timeout: 15_000 });
      }
      if (await page.locator('.tabs-container .tab').count()) await wb.command('View: Close All Editors');
      if ((await page.locator('.editor-group-container').count()) > 1) await wb.command('View: Close All Editor Groups');
      if (await page.locator('.xterm').count()) await wb.command('Terminal: Kill All Terminals');
      if (await page.locator('.part.panel').isVisible()) await wb.command('View: Hide Panel');
      if (await page.locator('.part.auxiliarybar').isVisible()) await wb.command('View: Hide Secondary Side Bar');
      await wb.command('View: Show Explorer');
      await stating('the workbench reset', async () => {
        await page.locator('.tabs-container .tab').first().waitFor({ state: 'detached', timeout: 15_000 });
        await page.locator('.part.panel').waitFor({ state: 'hidden', timeout: 15_000 });
        await page.locator('.explorer-folders-view').waitFor({ timeout: 15_000 });
        const left = await page.evaluate(() => {
          const shown = sel => [...document.querySelectorAll(sel)].some(el => el.checkVisibility());
          return [
            shown('.monaco-dialog-box') && 'a dialog',
            shown('.quick-input-widget') && 'a quick input',
            shown('.monaco-menu') && 'a context menu',
            shown('.debug-toolbar') && 'the debug toolbar',
            document.querySelectorAll('.editor-group-container').length > 1 && 'more than one editor group',
            (document.activeElement?.tagName === 'IFRAME' || !!document.activeElement?.closest('.webview')) && 'the keyboard in a webview',
          ].filter(Boolean);
        });
        if (left.length) throw new Error(`still there: ${left.join(', ')}`);
      });
      // What the scenario before left that the reset could not clear (a progress notification still running).
      const toasts = await page.locator('.notification-toast').count();
      if (toasts) console.log(`     reset: ${toasts} notification(s) could not be cleared`);
    },
  };
  return wb;
}
