// The stored API key and a host the workspace names, as a person meets it: a key stored with "ART: Set API Key", a
// launch configuration of the workspace whose baseURL is not the user's own setting (the scripted server, a process of
// its own: test/support/arithmeticServer.ts), and a run started from the palette. A modal names the host and who set
// it; Run Without Key runs with no key and the Debug Console says so; after "ART: Forget Approved Key Hosts", Send Key
// sends it, the host is remembered and the next run is not asked. Last of the scenarios: it stores a key, and removes
// it at its end.
import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { startArithmeticServer } from './servers.mjs';

export const title = 'key host: a modal before the stored key goes to the host a launch configuration names';

const ROOT = new URL('../../..', import.meta.url).pathname;
const DIR = 'keyhost-e2e';
const NAME = 'ART: the eggs example on the workspace endpoint';

export async function run({ page, step, wb, workspace }) {
  const { baseURL, child } = await startArithmeticServer();
  const origin = new URL(baseURL).origin;
  let removeLaunch = () => {};
  const dialog = page.locator('.monaco-dialog-box');
  const repl = page.locator('.repl');
  const eggs = readFileSync(join(ROOT, 'examples/data/arithmetic.jsonl'), 'utf8')
    .split('\n')
    .filter(l => l.trim())
    .map(l => JSON.parse(l))
    .find(e => e.id === 'eggs');
  /** A notification saying `text`: as a toast, else in the notification center; then cleared. */
  const notified = async text => {
    const item = page.locator('.notification-list-item', { hasText: text }).first();
    await item.waitFor({ timeout: 5_000 }).catch(async () => {
      await wb.command('Notifications: Show Notifications');
      await item.waitFor({ timeout: 10_000 });
    });
    await wb.command('Notifications: Clear All Notifications');
  };
  /** In the page: the highest run number of a run document's tab (a run's document is named `NAME (run N).art-run`). */
  const lastRunShown = () =>
    Math.max(0, ...[...document.querySelectorAll('.tab')].map(t => Number(/\(run (\d+)\)\.art-run/.exec(t.textContent ?? '')?.[1] ?? 0)));
  /** Starts the launch configuration without debugging, from the palette as a person would. */
  const runIt = async () => {
    await wb.focusEditor();
    await wb.command('Debug: Start Without Debugging');
  };
  /**
   * Once the run has ended with the eggs answer, the Debug Console's lines about the key: its filter keeps them (the
   * console draws only the lines in view, and the key's line is near the top of a run's output).
   */
  const finished = async () => {
    await page.locator('.debug-toolbar').waitFor({ state: 'hidden', timeout: 30_000 });
    await wb.command('Debug Console: Focus on Debug Console View');
    await repl.filter({ hasText: 'Answer: 9' }).first().waitFor({ timeout: 15_000 });
    const filter = page.locator('.part.panel').getByPlaceholder(/^Filter/);
    await filter.fill('key:');
    await repl.locator('.monaco-list-row', { hasText: 'key:' }).first().waitFor({ timeout: 10_000 });
    const text = await repl.first().innerText();
    await filter.fill('');
    return text;
  };
  try {
    mkdirSync(join(workspace, DIR), { recursive: true });
    copyFileSync(join(ROOT, 'examples/library.art'), join(workspace, DIR, 'keyhost-library.art'));
    removeLaunch = wb.writeLaunch([
      {
        type: 'art',
        request: 'launch',
        name: NAME,
        program: '${file}',
        task: 'Elementary Math',
        input: eggs.input,
        mode: 'generate',
        baseURL,
        model: 'scripted',
      },
    ]);

    await step('ART: Set API Key stores a key typed in a password box', async () => {
      await wb.ready('clean.art');
      // The library opened first (a name no other scenario's file has): the extension starts with its language.
      await wb.openFile('keyhost-library.art');
      await page.locator('.statusbar-item[id$="art.runMode"]').waitFor({ timeout: 30_000 });
      await wb.command('ART: Set API Key');
      const box = page.locator('.quick-input-widget input[type="password"]');
      await box.waitFor({ timeout: 15_000 });
      await page.keyboard.type('sk-e2e-keyhost-0123456789');
      await page.keyboard.press('Enter');
      await notified('the API key is stored in secret storage');
    });

    await step('the run asks in a modal naming the host and the launch configuration; Run Without Key runs without it', async () => {
      await wb.openFile('keyhost-library.art');
      await runIt();
      await dialog.waitFor({ timeout: 30_000 });
      const text = (await dialog.innerText()).replace(/\s+/g, ' ');
      console.log(`     modal: ${text.slice(0, 240)}`);
      const expected = `The launch configuration "${NAME}" of ${basename(workspace)} sends your stored API key to ${origin}. Send the key there?`;
      if (!text.includes(expected)) throw new Error(`the modal does not say: ${expected}`);
      if (!text.includes('Your setting "art.model.baseURL" is http://127.0.0.1:8000.')) throw new Error('the modal does not name the user’s setting');
      await dialog.getByRole('button', { name: 'Run Without Key' }).click();
      const out = await finished();
      if (!out.includes(`key: not sent: the endpoint ${origin}`)) throw new Error(`the Debug Console does not say the key was not sent:\n${out}`);
    });

    await step('after ART: Forget Approved Key Hosts, Send Key sends it and the next run is not asked', async () => {
      await wb.command('ART: Forget Approved Key Hosts');
      await notified('no host was approved');
      await wb.openFile('keyhost-library.art');
      await runIt();
      await dialog.waitFor({ timeout: 30_000 });
      await dialog.getByRole('button', { name: 'Send Key' }).click();
      const out = await finished();
      if (!out.includes(`key: your stored API key goes to ${origin}`)) throw new Error(`the Debug Console does not say where the key went:\n${out}`);
      // Asked again, the run would wait on the modal and never reach its answer.
      await wb.openFile('keyhost-library.art');
      // The run's number, in its document's tab: the next run's document shows a higher one (the run itself may be
      // over before its toolbar is ever seen, on a fast machine or a slow page).
      const before = await page.evaluate(lastRunShown);
      await runIt();
      await page.waitForFunction(
        before => {
          if (document.querySelector('.monaco-dialog-box')?.checkVisibility()) return true;
          const runs = [...document.querySelectorAll('.tab')].map(t => Number(/\(run (\d+)\)\.art-run/.exec(t.textContent ?? '')?.[1] ?? 0));
          return Math.max(0, ...runs) > before;
        },
        before,
        { timeout: 30_000, polling: 'raf' },
      );
      if (await dialog.count()) throw new Error('asked again for a host already approved');
      await finished();
    });

    await step('ART: Forget Approved Key Hosts names the host; Set API Key with nothing typed removes the key', async () => {
      await wb.command('ART: Forget Approved Key Hosts');
      await notified(`no host is approved any more (${origin} (the stored key))`);
      await wb.command('ART: Set API Key');
      await page.locator('.quick-input-widget input[type="password"]').waitFor({ timeout: 15_000 });
      await page.keyboard.press('Enter');
      await notified('the API key was removed');
    });
  } finally {
    removeLaunch();
    rmSync(join(workspace, DIR), { recursive: true, force: true });
    child.kill();
  }
}
