// The live debugger as a person uses it: the workspace's settings point at a model zoo endpoint that wraps its
// reasoning in <think> (test/support/zooServer.ts, a process of its own), the status bar says Replay for a recorded
// program and a click switches it to Live, F5 generates the program and stops at the tool call in the streamed
// document (its current line shown: the frame's line lies inside it), the Variables view shows the call and the
// model's reasoning, the output is overridden, Step Back returns before the tool, F5 runs to the answer, and the
// run leaves no Problems entry.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const title = 'live debugging: Replay/Live in the status bar, F5 live to a tool stop, override, Step Back, finish';

const ROOT = new URL('../../..', import.meta.url).pathname;
const FILE = 'live-e2e.art';
// The zoo's library (test/support/modelZoo.ts ZOO_LIBRARY): the model continues the second program.
const LIBRARY = [
  'Description: (Pens) Count the pens.',
  'Input: Ann has 2 pens and buys 5 more. How many pens does she have?',
  'Q1: [calculator] 2 + 5',
  '#1: 7',
  'Q2: [EOQ]',
  'Ans: 7',
  '----',
  'Description: (Pens) Count the pens.',
  'Input: Tom has 3 pens and buys 7 more. How many pens does he have?',
  'Q1: [calculator] 3 + 7',
  '#1: 10',
  'Q2: [EOQ]',
  'Ans: 10',
  '',
].join('\n');

function startZoo(habit) {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test/support/zooServer.ts')], {
    cwd: ROOT,
    env: { ...process.env, ART_ZOO_HABIT: habit, ART_TOKEN_DELAY_MS: '20' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`the zoo server did not start:\n${err}`)), 30_000);
    child.stdout.on('data', d => {
      out += d;
      const m = /ART_SCRIPTED_SERVER (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ baseURL: m[1], child });
      }
    });
    child.stderr.on('data', d => (err += d));
    child.on('exit', code => reject(new Error(`the zoo server exited (${code}):\n${err}`)));
  });
}

export async function run({ page, step, wb, workspace, picture }) {
  const { baseURL, child } = await startZoo('think');
  const settingsFile = join(workspace, '.vscode/settings.json');
  const launchFile = join(workspace, '.vscode/launch.json');
  const settings = readFileSync(settingsFile, 'utf8');
  const rows = page.locator('.debug-variables .monaco-list-row');
  const stack = page.locator('.debug-call-stack .monaco-list-row');
  const repl = page.locator('.repl');
  try {
    writeFileSync(join(workspace, FILE), LIBRARY);
    writeFileSync(settingsFile, JSON.stringify({ ...JSON.parse(settings), 'art.model.baseURL': baseURL, 'art.model.name': 'zoo-think' }, null, 2));
    mkdirSync(join(workspace, '.vscode'), { recursive: true });
    // The zoo is a chat endpoint: a launch configuration says so (the mode is left to the status bar).
    writeFileSync(
      launchFile,
      JSON.stringify(
        {
          version: '0.2.0',
          configurations: [
            {
              type: 'art',
              request: 'launch',
              name: 'ART: debug the program at the cursor with the chat API (replay or live, as the status bar says)',
              program: '${file}',
              api: 'chat',
              pauseBeforeTool: true,
            },
          ],
        },
        null,
        2,
      ),
    );

    await step('the status bar says Replay for a recorded program; a click switches it to Live (zoo-think)', async () => {
      await wb.ready('clean.art');
      await wb.openFile(FILE);
      await wb.goToLine(wb.lineOf(FILE, 'Input: Tom has'));
      // The mode's own item (its id ends in art.runMode): the debug item beside it names a launch configuration whose
      // name also holds the word "replay".
      const mode = page.locator('.statusbar-item[id$="art.runMode"]');
      await mode.filter({ hasText: 'Replay' }).waitFor({ timeout: 20_000 });
      await mode.click();
      await mode.filter({ hasText: 'Live (zoo-think)' }).waitFor({ timeout: 10_000 });
    });

    await step('F5 generates the program live and stops before [calculator], on a line of the streamed document', async () => {
      await wb.focusEditor();
      await page.keyboard.press('F5');
      await page.locator('.debug-toolbar').waitFor({ timeout: 30_000 });
      await page.keyboard.press('Control+Shift+D');
      await stack.filter({ hasText: 'calculator' }).first().waitFor({ timeout: 30_000 });
      // The frame names the streamed program (`… (run N).art-run`), whose current line is shown: VS Code draws it
      // only for a line inside the document.
      await stack
        .filter({ hasText: /\(run \d+\)\.art-run/ })
        .first()
        .waitFor({ timeout: 10_000 });
      await page.locator('.editor-group-container .debug-top-stack-frame-line').first().waitFor({ timeout: 15_000 });
      await wb.command('Debug Console: Focus on Debug Console View');
      await repl
        .filter({ hasText: /Live: zoo-think at http:\/\/127\.0\.0\.1:\d+\/v1 writes/ })
        .first()
        .waitFor({ timeout: 10_000 });
    });

    await step("F5 runs the tool: the Tool call scope is open with output 10 and the model's reasoning", async () => {
      await page.keyboard.press('Control+Shift+D');
      await wb.focusEditor();
      await page.keyboard.press('F5');
      await rows
        .filter({ hasText: /output\s*[=:]?\s*10/ })
        .first()
        .waitFor({ timeout: 30_000 });
      await rows
        .filter({ hasText: /reasoning\s*[=:]?\s*"?The question asks for 3 \+ 7/ })
        .first()
        .waitFor({ timeout: 10_000 });
      console.log('     variables:', await wb.rowTexts(rows));
      await picture('live-tool-stop');
    });

    await step('Set Value (a double-click) on the selected output row edits output; 42 is set', async () => {
      const output = rows.filter({ hasText: /^\s*output\b/ }).first();
      await output.click();
      await page.locator('.debug-variables .monaco-list-row.focused', { hasText: /^\s*output\b/ }).waitFor({ timeout: 10_000 });
      // The row being edited shows only the input box, holding the value it edits.
      const editor = page.locator('.debug-variables .monaco-list-row input').first();
      // Not F2: VS Code's debug.setVariable edits the variable whose row last drew its inline actions (or was last
      // right-clicked), not the focused one; here it opens on `tool`. docs/running.md says to double-click instead.
      await output.dblclick();
      await editor.waitFor({ timeout: 10_000 });
      const value = await editor.inputValue();
      if (value !== '10') throw new Error(`the double-click edits the value "${value}", not output's 10`);
      await page.keyboard.press('Control+A');
      await page.keyboard.type('42');
      await page.keyboard.press('Enter');
      await rows
        .filter({ hasText: /output\s*[=:]?\s*42/ })
        .first()
        .waitFor({ timeout: 10_000 });
    });

    await step('Step Back returns before the tool; F5 twice runs to the answer', async () => {
      const back = page.locator('.debug-toolbar .action-label[aria-label^="Step Back"]');
      await back.click();
      await rows
        .filter({ hasText: /duration\s*[=:]?\s*\(not run yet\)/ })
        .first()
        .waitFor({ timeout: 30_000 });
      await wb.focusEditor();
      await page.keyboard.press('F5');
      await rows
        .filter({ hasText: /output\s*[=:]?\s*10/ })
        .first()
        .waitFor({ timeout: 30_000 });
      await wb.focusEditor();
      await page.keyboard.press('F5');
      await page.locator('.debug-toolbar').waitFor({ state: 'hidden', timeout: 30_000 });
      await wb.command('Debug Console: Focus on Debug Console View');
      await repl.filter({ hasText: 'Answer: 10' }).first().waitFor({ timeout: 15_000 });
      const text = await repl.first().innerText();
      const repairs = text.match(/the chat reply was repaired/g) ?? [];
      console.log(`     repairs said: ${repairs.length}`);
      if (repairs.length !== 1) throw new Error(`the <think> repair was said ${repairs.length} times`);
      await picture('live-finished');
    });

    await step('the run leaves no Problems entry and the streamed document is not checked', async () => {
      await wb.command('View: Focus Problems (Errors, Warnings, Infos)');
      await page.locator('.markers-panel').waitFor();
      const fromRun = await page.locator('.markers-panel .monaco-list-row', { hasText: /art-run|\(run \d+\)|generated|missing-/ }).count();
      if (fromRun) throw new Error(`${fromRun} Problems entries from the run`);
    });
  } finally {
    writeFileSync(settingsFile, settings);
    rmSync(launchFile, { force: true });
    child.kill();
  }
}
