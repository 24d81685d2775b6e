// The run history and the agent diagram as a person uses them. A program is replayed from its Run CodeLens (it
// finishes with its recorded answer), its code is edited (3 apples a tree become 4) and it is run again: the replay
// re-executes the edited code, and `[code execute]` now gives 160 where the recording says 120, so the recorded
// `Ans: 120` no longer follows: with no endpoint set the run stops there and says why (`departed`). The ART Runs view
// lists both runs; Compare With… on the first opens VS Code's diff editor on the
// two runs aligned step by step, the code and the outputs 120 and 160 facing each other.
// Then "ART: Show Agent Diagram" on a ReACT spec draws its states beside it; F5 replays the agent from the transcript
// recorded beside the spec; at the stop for [Search] the webview highlights the state the run is in (Act-Inp, the last
// one written) and the state allowed next (Obs), and the highlight goes when the run ends.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { applesProgram } from './workbench.mjs';

export const title = 'run history and the spec diagram: Compare Runs after an edit; the diagram follows a replayed agent';

const FILE = 'compare-e2e.art';
const LIBRARY = applesProgram('Orchard Apples');

const SPEC_FILE = 'diagram-e2e.agent';
// ReACT (Crouse et al., 2023, Figure 3), with a recorded run beside it (diagram-e2e.transcript.txt) to replay.
const SPEC = `; ReACT, as a formal spec: think, act, read the observation, until a final thought and the answer.
(define react-agent
  (:states
    (Ques (:text "[Question]"))
    (Tht (:text "[Thought]"))
    (Act (:text "[Action]"))
    (Act-Inp (:text "[Action Input]"))
    (Obs (:text "[Observation]") (:flags :env-input))
    (Final-Tht (:text "[Final Thought]"))
    (Ans (:text "[Answer]")))
  (:behavior
    (next Ques
          (until (next Tht Act Act-Inp Obs)
                 Final-Tht)
          Ans)))
`;
const TRANSCRIPT = `[Question] Who wrote The Adventures of Tom Sawyer?
[Thought] I need to search The Adventures of Tom Sawyer and find its author.
[Action] Search
[Action Input] The Adventures of Tom Sawyer
[Observation] The Adventures of Tom Sawyer is an 1876 novel by Mark Twain about a boy growing up along the Mississippi River.
[Final Thought] The novel is by Mark Twain.
[Answer] Mark Twain
`;

export async function run({ page, step, wb, workspace, picture }) {
  writeFileSync(join(workspace, FILE), LIBRARY);
  writeFileSync(join(workspace, SPEC_FILE), SPEC);
  writeFileSync(join(workspace, 'diagram-e2e.transcript.txt'), TRANSCRIPT);
  // The document the agent's [Search] finds (the search tool reads the workspace's corpus/ folder).
  mkdirSync(join(workspace, 'corpus'), { recursive: true });
  writeFileSync(
    join(workspace, 'corpus', 'tom-sawyer.md'),
    '# The Adventures of Tom Sawyer\n\nThe Adventures of Tom Sawyer is an 1876 novel by Mark Twain about a boy growing up along the Mississippi River.\n',
  );

  /** The editor group showing `name` in its active tab. */
  const group = name => page.locator('.editor-group-container', { has: page.locator('.tab.active', { hasText: name }) }).first();
  /** Focuses the editor of `name` by clicking its tab (as wb.focusEditor does for the active group). */
  const focus = async name => {
    await group(name).locator('.tab.active', { hasText: name }).click();
    await group(name).locator('.monaco-editor.focused').waitFor({ timeout: 15_000 });
  };
  /** Clicks the program's Run CodeLens in the library's editor. */
  const runLens = () =>
    group(FILE)
      .locator('.codelens-decoration a', { hasText: /^\s*Run\s*$/ })
      .first()
      .click();
  const runsPane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'ART Runs' }) });
  const rows = runsPane.locator('.monaco-list-row');
  /**
   * The runs listed under the program's group (the rows after its row, one level deeper; other scenarios' runs are
   * in other groups): their indexes among the view's rows, labels (the time each started) and descriptions.
   */
  const runsOf = async group =>
    rows.evaluateAll((els, group) => {
      const out = [];
      let inside = false;
      // In the order the list shows them (data-index): the page holds a list's rows in any order.
      const byIndex = el => Number(el.getAttribute('data-index'));
      [...els]
        .sort((x, y) => byIndex(x) - byIndex(y))
        .forEach((el, index) => {
          const level = Number(el.getAttribute('aria-level'));
          if (level === 1) inside = (el.querySelector('.label-name')?.textContent ?? '') === group;
          else if (inside && level === 2) out.push({ index, label: el.querySelector('.label-name')?.textContent ?? '', text: el.textContent });
        });
      return out;
    }, group);
  /**
   * Waits until the Runs view lists `n` runs of the program, each of `texts` in one of them (any order), and returns
   * them (the condition is checked at each frame the page draws).
   */
  const listed = async (n, ...texts) => {
    try {
      await page.waitForFunction(
        ([n, texts]) => {
          const pane = [...document.querySelectorAll('.pane')].find(p => p.querySelector('.pane-header')?.textContent.includes('ART Runs'));
          const runs = [];
          let inside = false;
          const byIndex = el => Number(el.getAttribute('data-index'));
          for (const el of [...(pane?.querySelectorAll('.monaco-list-row') ?? [])].sort((x, y) => byIndex(x) - byIndex(y))) {
            const level = Number(el.getAttribute('aria-level'));
            if (level === 1) inside = (el.querySelector('.label-name')?.textContent ?? '') === 'Orchard Apples';
            else if (inside && level === 2) runs.push(el.textContent);
          }
          return runs.length >= n && texts.every(text => runs.slice(0, n).some(r => r.includes(text)));
        },
        [n, texts],
        { timeout: 30_000 },
      );
    } catch (e) {
      const runs = await runsOf('Orchard Apples');
      throw new Error(
        `the ART Runs view lists ${runs.length} run(s) of Orchard Apples, not ${n} with ${texts.join(', ')}: ${(await wb.rowTexts(rows)).join(' | ')} (${String(e?.message ?? e).split('\n')[0]})`,
      );
    }
    return runsOf('Orchard Apples');
  };

  await step('Run from the CodeLens replays the program to its recorded answer; the ART Runs view lists the run', async () => {
    // When each thing showed, for the log: a slow step says which wait was slow.
    const t0 = Date.now();
    const timings = [];
    const at = what => timings.push(`${what} +${Date.now() - t0} ms`);
    // The scenario before may leave another view in the side bar: show the Explorer, as a person would.
    await page.keyboard.press('Control+Shift+E');
    await wb.ready('clean.art');
    await wb.openFile(FILE);
    at('file open');
    // The ART Runs view open first, to see the run appear in it.
    await wb.command('Run and Debug: Focus on ART Runs View');
    // The view is shown (empty when this scenario runs alone).
    await runsPane.locator('.pane-body').waitFor({ timeout: 15_000 });
    at('Runs view shown');
    await runLens();
    at('Run lens clicked');
    await listed(1, '→ 120 · finished');
    at('run listed');
    console.log(`     ${timings.join(', ')}`);
  });

  await step(
    'after an edit to the code (4 apples a tree), Run again: [code execute] now gives 160, so the replay leaves its recording and says so; two runs listed',
    async () => {
      // Edit in the library's own editor (the run opened its streamed program beside it).
      await focus(FILE);
      await page.keyboard.press('Control+G');
      await page.locator('.quick-input-widget input').waitFor();
      await page.keyboard.type(String(wb.lineOf(FILE, 'apples_per_tree = 3')));
      await page.keyboard.press('Enter');
      await page.keyboard.press('End');
      await page.keyboard.press('Backspace');
      await page.keyboard.type('4');
      await group(FILE).locator('.view-line', { hasText: 'apples_per_tree = 4' }).waitFor({ timeout: 10_000 });
      await runLens();
      // The Debug Console shows the new output and why the recording (Ans: 120) cannot follow it: no endpoint is set,
      // so the run stops there; the Runs view lists the finished run and the departed one.
      await wb.command('Debug Console: Focus on Debug Console View');
      await page.locator('.repl', { hasText: '#2: 160' }).first().waitFor({ timeout: 30_000 });
      await page.locator('.repl', { hasText: 'now gives "160" where the recording has "120"' }).first().waitFor({ timeout: 10_000 });
      console.log(
        '     runs:',
        (await listed(2, '→ 120 · finished', 'departed')).map(r => r.text),
      );
    },
  );

  await step('Compare With… on the first run, then the second: the diff editor shows 120 against 160 at #2', async () => {
    // A run is labelled with the time it started: the first run is the earlier one.
    const runs = await listed(2, '→ 120', 'departed');
    const times = runs.map(r => Date.parse(r.label.replace(',', '')));
    if (times.some(Number.isNaN)) throw new Error(`runs not labelled with their time: ${runs.map(r => r.label).join(' | ')}`);
    // The row by its label (the list's rows are not in the page in the order they show, and the view may redraw).
    const first = runs[times[0] <= times[1] ? 0 : 1].label;
    const label = page.locator('.label-name', { hasText: new RegExp(`^${first.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) });
    await wb.contextMenu(rows.filter({ has: label }).first(), 'Compare With');
    // The Quick Pick lists the workspace's other runs (and a trace file to browse for): the second run.
    const other = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Orchard Apples' }).first();
    await other.waitFor({ timeout: 15_000 });
    await other.click();
    // The diff editor's tab names both runs and how many steps differ.
    await page.locator('.tab.active', { hasText: '↔' }).waitFor({ timeout: 15_000 });
    // Room for the two runs side by side: the streamed programs' group closed, the panel hidden.
    await wb.command('View: Close Editors in Other Groups');
    await wb.command('View: Hide Panel');
    const diff = page.locator('.editor-group-container.active .monaco-diff-editor').first();
    await diff.waitFor({ timeout: 15_000 });
    // A line of one side, whole (an editor shows its spaces as no-break spaces).
    const line = (side, text) =>
      diff.locator(`.editor.${side} .view-line`, { hasText: new RegExp(`^\\s*${text.replace(/ /g, '\\s+')}\\s*$`) }).first();
    await line('original', 'apples_per_tree = 3').waitFor({ timeout: 15_000 });
    await line('modified', 'apples_per_tree = 4').waitFor({ timeout: 5_000 });
    // Next Change (the arrow in the editor's toolbar) down to #2's output.
    const nextChange = page.locator('.editor-group-container.active .title-actions .action-label[aria-label^="Next Change"]');
    for (let i = 0; !(await line('modified', '160').isVisible()); i++) {
      if (i === 8) throw new Error('no change shows the output 160');
      await nextChange.click();
      // The editor scrolled to the change: the lines are drawn at the next frames.
      await page.evaluate(() => new Promise(resolve => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    }
    await line('original', '120').waitFor({ timeout: 5_000 });
    console.log('     compare:', (await page.locator('.tab.active', { hasText: '↔' }).first().innerText()).replace(/\s+/g, ' '));
    await picture('compare-runs');
  });

  // The webview's page is two iframes deep (VS Code's host frame, then the page it shows).
  const diagram = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
  const state = name => diagram.locator(`g.state[data-state="${name}"]`);

  await step('Show Agent Diagram draws the spec beside it: its states, the observation marked as the environment’s', async () => {
    await wb.command('View: Close All Editors');
    await wb.openFile(SPEC_FILE);
    await wb.goToLine(wb.lineOf(SPEC_FILE, '    (Tht '));
    await wb.command('ART: Show Agent Diagram');
    await page.locator('.tab', { hasText: 'Agent Diagram' }).first().waitFor({ timeout: 15_000 });
    await state('Obs').waitFor({ timeout: 20_000 });
    if (!/env-input/.test((await state('Obs').getAttribute('class')) ?? '')) throw new Error('Obs is not drawn as an :env-input state');
    const names = await diagram.locator('g.state text.name').allTextContents();
    console.log('     states:', names);
    for (const n of ['Ques', 'Tht', 'Act', 'Act-Inp', 'Obs', 'Final-Tht', 'Ans'])
      if (!names.includes(n)) throw new Error(`the diagram has no state ${n}: ${names.join(', ')}`);
  });

  await step('F5 replays the agent; at the stop the diagram highlights the state the run is in', async () => {
    await focus(SPEC_FILE);
    await page.keyboard.press('F5');
    await page.locator('.debug-toolbar').waitFor({ timeout: 30_000 });
    // Stopped at the observation, the environment's turn: the search ran on the workspace's corpus.
    await page.keyboard.press('Control+Shift+D');
    await page.locator('.debug-call-stack .monaco-list-row', { hasText: 'Obs [Search]' }).first().waitFor({ timeout: 30_000 });
    await page
      .locator('.debug-variables .monaco-list-row', { hasText: /output\s*=.*Mark Twain/ })
      .first()
      .waitFor({ timeout: 15_000 });
    // The run's transcript opened beside the spec, over the diagram: bring the diagram's tab back once it has.
    await page
      .locator('.tab', { hasText: /\(run \d+\)\.txt/ })
      .first()
      .waitFor({ timeout: 30_000 });
    await page.locator('.tab', { hasText: 'Agent Diagram' }).first().click();
    // Blue: the state the run is in (it has written the action's input); green: the state allowed next, the
    // observation the environment is writing at this stop.
    const current = diagram.locator('g.state.current');
    await current.waitFor({ timeout: 30_000 });
    const name = await current.locator('text.name').textContent();
    const next = await diagram.locator('g.state.expected text.name').allTextContents();
    console.log(`     current: ${name}; allowed next: ${next.join(', ')}`);
    if (name !== 'Act-Inp') throw new Error(`the highlighted state is ${name}, not Act-Inp (the last state the run wrote)`);
    if (next.join() !== 'Obs') throw new Error(`the states marked as allowed next are [${next.join(', ')}], not [Obs]`);
    // More of the diagram in view, as a person makes room: its group maximized for a moment, then back.
    await wb.command('View: Toggle Maximize Editor Group');
    await group(SPEC_FILE).waitFor({ state: 'hidden', timeout: 15_000 });
    await diagram.locator('g.state[data-state="Ans"]').waitFor({ timeout: 15_000 });
    await picture('agent-diagram');
    await wb.command('View: Toggle Maximize Editor Group');
    await group(SPEC_FILE).waitFor({ timeout: 15_000 });
  });

  await step('F5 continues to the end of the recorded run; the highlight goes', async () => {
    await focus(SPEC_FILE);
    await wb.paused();
    await page.keyboard.press('F5');
    await page.locator('.debug-toolbar').waitFor({ state: 'hidden', timeout: 30_000 });
    await page.locator('.tab', { hasText: 'Agent Diagram' }).first().click();
    await diagram.locator('g.state.current').waitFor({ state: 'detached', timeout: 15_000 });
    await state('Ans').waitFor();
  });
}
