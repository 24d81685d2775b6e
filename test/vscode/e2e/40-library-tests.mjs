// Programs as tests as a person uses them: the Testing view lists the demonstration programs of the workspace's task
// libraries under their file; Run Test on `library-checks.art` replays its two programs with their code re-executed:
// "Orchard Sales" still computes what it recorded and passes, "Bus Fares" recorded 473 where its code computes 483 and
// fails; Peek Output on the failure shows the step and the recorded and computed outputs side by side.
// (test/vscode/workspace/library-checks.art; `art test` on it gives `1 passed, 1 failed` the same way.)
export const title = 'programs as tests: the Test Explorer runs a library, one passes, one fails with its diff';

const FILE = 'library-checks.art';

export async function run({ page, step, wb, picture }) {
  const tree = page.locator('.part.sidebar .monaco-list-row');
  const program = name => tree.filter({ hasText: name }).first();

  await step('the Testing view lists the programs of the library under its file', async () => {
    await page.keyboard.press('Control+Shift+E');
    await wb.ready('clean.art');
    // The library open beside the Testing view, as a person looks at both.
    await wb.openFile(FILE);
    // The Testing view from its activity bar icon (the flask).
    await page.locator('.activitybar .action-item a[aria-label^="Testing"]').click();
    const file = tree.filter({ hasText: FILE }).first();
    await file.waitFor({ timeout: 60_000 });
    // Files are collapsed until opened: expand the library's.
    if ((await file.getAttribute('aria-expanded')) === 'false') await file.locator('.monaco-tl-twistie').click();
    await program('0: Orchard Sales').waitFor({ timeout: 15_000 });
    await program('1: Bus Fares').waitFor({ timeout: 15_000 });
    console.log('     tests:', await wb.rowTexts(tree));
  });

  await step('Run Test on the file: Orchard Sales passes, Bus Fares fails', async () => {
    const file = tree.filter({ hasText: FILE }).first();
    // Run Test from the file's context menu (the same action as the ▷ that appears when the row is hovered).
    await wb.contextMenu(file, 'Run Test');
    await program('0: Orchard Sales').locator('.codicon-testing-passed-icon').waitFor({ timeout: 60_000 });
    await program('1: Bus Fares').locator('.codicon-testing-failed-icon').waitFor({ timeout: 60_000 });
  });

  await step("the Test Results panel: the failure's message shows the recorded 473 against the computed 483", async () => {
    // The panel opens by itself on a failure; its tree lists the run's tests, a failed one with its messages.
    const results = page.locator('.part.panel .pane-body', { has: page.locator('.test-output-peek-tree') });
    await results.waitFor({ timeout: 15_000 });
    const rows = results.locator('.test-output-peek-tree .monaco-list-row');
    // The failed program with its message (one message: shown on the program's row); selecting it shows the message.
    const failed = rows.filter({ hasText: '1: Bus Fares' }).filter({ hasText: '#2 [code execute] differs from the recording' }).first();
    await failed.waitFor({ timeout: 15_000 });
    await failed.click();
    // The recording on the left (Expected), what the code computes now on the right (Actual).
    const diff = results.locator('.monaco-diff-editor').first();
    await diff.locator('.editor.original .view-lines', { hasText: '473' }).waitFor({ timeout: 15_000 });
    await diff.locator('.editor.modified .view-lines', { hasText: '483' }).waitFor({ timeout: 15_000 });
    console.log('     results:', await wb.rowTexts(rows));
  });

  await step("at the step's line in the library, the failure's message opens a peek with the same diff", async () => {
    // The panel put away, as a person makes room for the library.
    await wb.command('View: Hide Panel');
    await wb.goToLine(wb.lineOf(FILE, '#2: 473'));
    // The message after the step's line reads `483 != 473` (computed != recorded); clicking it opens the peek.
    const inline = page.locator('.editor-group-container.active .monaco-editor').getByText('483 != 473', { exact: true }).first();
    await inline.waitFor({ timeout: 15_000 });
    await inline.click();
    const peek = page.locator('.editor-group-container.active .test-output-peek').first();
    await peek.waitFor({ timeout: 15_000 });
    await peek.locator('.monaco-diff-editor .editor.original .view-lines', { hasText: '473' }).waitFor({ timeout: 15_000 });
    await peek.locator('.monaco-diff-editor .editor.modified .view-lines', { hasText: '483' }).waitFor({ timeout: 15_000 });
    await picture('test-explorer');
  });
}
