// A library improved as a person does it: the workspace's settings point at a scripted model that knows no answer
// and learns a kind of problem only from a demonstration of it in its prompt (test/support/kindsModel.ts, a process
// of its own: ART_MODEL=kinds); the library shows one kind of three. "ART: Improve Library…" from the palette asks
// for the three splits, runs under its progress notification, opens the proposal in a diff editor with the test
// comparison beside it, and Accept writes the added demonstrations into the library.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tsImport } from 'tsx/esm/api';
import { startArithmeticServer } from './servers.mjs';

export const title = 'improve: Improve Library… on three splits, the diff and the comparison, Accept';

const { KINDS_LIBRARY, jsonl, kindsData } = await tsImport('../../support/kindsModel.ts', import.meta.url);
const { until } = await tsImport('../../support/until.ts', import.meta.url);
const DIR = 'improve-e2e';

export async function run({ page, step, wb, workspace, picture }) {
  const { baseURL, child } = await startArithmeticServer({ tokenDelayMs: 2, model: 'kinds' });
  const settingsFile = join(workspace, '.vscode/settings.json');
  const settings = readFileSync(settingsFile, 'utf8');
  const library = join(workspace, DIR, 'kinds.art');
  try {
    mkdirSync(join(workspace, DIR), { recursive: true });
    writeFileSync(library, KINDS_LIBRARY);
    writeFileSync(join(workspace, DIR, 'kinds-train.jsonl'), jsonl(kindsData(3, 100)));
    writeFileSync(join(workspace, DIR, 'kinds-dev.jsonl'), jsonl(kindsData(2, 200)));
    writeFileSync(join(workspace, DIR, 'kinds-test.jsonl'), jsonl(kindsData(4, 300)));
    writeFileSync(settingsFile, JSON.stringify({ ...JSON.parse(settings), 'art.model.baseURL': baseURL, 'art.model.name': 'scripted' }, null, 2));

    await step('ART: Improve Library… asks for the three splits and shows its progress', async () => {
      await page.keyboard.press('Control+Shift+E');
      await wb.ready('clean.art');
      await wb.openFile('kinds.art');
      await wb.command('ART: Improve Library…');
      const widget = page.locator('.quick-input-widget');
      const rows = page.locator('.quick-input-list .monaco-list-row');
      await widget.filter({ hasText: 'which data' }).waitFor({ timeout: 20_000 });
      await rows.filter({ hasText: 'Three splits' }).first().click();
      for (const [question, name] of [
        ['the training dataset', 'kinds-train.jsonl'],
        ['the dev dataset', 'kinds-dev.jsonl'],
        ['the test dataset', 'kinds-test.jsonl'],
      ]) {
        await widget.filter({ hasText: question }).waitFor({ timeout: 20_000 });
        await page.keyboard.type(name.replace('.jsonl', ''));
        await rows.filter({ hasText: name }).first().waitFor();
        await page.keyboard.press('Enter');
      }
      await wb.command('Notifications: Show Notifications');
      const progress = page.locator('.notification-list-item', { hasText: 'improving kinds.art' }).first();
      await progress.filter({ hasText: /bootstrap round|on dev|on test/ }).waitFor({ timeout: 60_000 });
      console.log('     progress:', (await progress.innerText()).replace(/\s+/g, ' '));
      await progress.getByRole('button', { name: 'Cancel' }).first().waitFor({ timeout: 5_000 });
    });

    await step('the proposal opens in a diff editor, the test comparison beside it', async () => {
      await page.locator('.tab', { hasText: 'kinds.art ↔ proposed (art improve)' }).first().waitFor({ timeout: 120_000 });
      await page.locator('.tab', { hasText: 'Comparison:' }).first().waitFor({ timeout: 30_000 });
      // The comparison page: the original (A) 4 of 12, the proposal (B) 12 of 12.
      const view = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
      await view
        .locator('body', { hasText: /8 fixed|fixed 8|fixed\s*8/ })
        .first()
        .waitFor({ timeout: 30_000 });
      await picture('improve');
    });

    await step('Accept writes the added demonstrations into the library', async () => {
      await wb.command('Notifications: Show Notifications');
      const offer = page.locator('.notification-list-item', { hasText: 'proposed for kinds.art: a significant gain' }).first();
      await offer.waitFor({ timeout: 30_000 });
      console.log('     offer:', (await offer.innerText()).replace(/\s+/g, ' '));
      await offer.getByRole('button', { name: 'Accept' }).first().click();
      await until(() => readFileSync(library, 'utf8').includes('# art improve: from training example'), { what: 'the library written' });
      const text = readFileSync(library, 'utf8');
      if (!/# art improve: from training example "(times|minus)-10\d"/.test(text)) throw new Error(`the library after Accept:\n${text}`);
      if (text.startsWith('# art improve:')) throw new Error('the header comment was written into the library');
    });
  } finally {
    writeFileSync(settingsFile, settings);
    child.kill('SIGTERM');
  }
}
