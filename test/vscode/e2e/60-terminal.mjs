// `art` in VS Code's terminal, as the README's CLI section promises, from the VSIX the suite installed: the extension
// puts a launcher of its own command line on the PATH of the terminals it opens (client/cliOnPath.ts). A new terminal
// runs `art --version` (dist/cli.js) and `art run` replaying a program of the workspace (which loads dist/cli-run.js):
// both must be in the VSIX. The terminal's text is read from xterm's DOM renderer (GPU acceleration off for the scenario).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const title = "the art command line in VS Code's terminal: art --version and art run from the installed extension";

const ROOT = new URL('../../..', import.meta.url).pathname;

export async function run({ page, step, wb, workspace }) {
  const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const settingsFile = join(workspace, '.vscode/settings.json');
  const settings = readFileSync(settingsFile, 'utf8');
  const rows = page.locator('.terminal-wrapper.active .xterm-rows');
  /** Types a command line into the focused terminal and waits for `expected` in its text. */
  const typeAndWait = async (line, expected) => {
    await page.locator('.terminal-wrapper.active .xterm-helper-textarea').focus();
    await page.keyboard.type(line);
    await page.keyboard.press('Enter');
    try {
      await rows.filter({ hasText: expected }).waitFor({ timeout: 60_000 });
    } catch (e) {
      throw new Error(`the terminal does not show ${expected} after "${line}":\n${await rows.innerText().catch(() => '')}`, { cause: e });
    }
  };
  try {
    // xterm draws on a canvas with GPU acceleration: its DOM renderer keeps the text readable.
    writeFileSync(settingsFile, JSON.stringify({ ...JSON.parse(settings), 'terminal.integrated.gpuAcceleration': 'off' }, null, 2));

    await step('a new terminal runs art --version: the installed extension prints its version', async () => {
      await wb.ready('clean.art');
      await wb.command('Terminal: Create New Terminal');
      await page.locator('.terminal-wrapper.active .xterm-helper-textarea').waitFor({ timeout: 30_000 });
      await typeAndWait('art --version', `art ${version}`);
    });

    await step('art run replays a program of the workspace in that terminal, to its answer', async () => {
      await typeAndWait('art run clean.art --task 1 --quiet', 'Answer: no');
    });
  } finally {
    writeFileSync(settingsFile, settings);
    await wb.command('Terminal: Kill All Terminals').catch(() => {});
  }
}
