// The ART Evaluations view inside VS Code: two results files of a library on a dataset (written here, with headers
// saying when, with which model and library version they ran) read as one series, newest first, each labelled with
// its accuracy, change, date, model and version; a click opens that evaluation's results view, "Compare With
// Previous" the comparison with the evaluation before it; a third results file written meanwhile is listed once
// the watcher has seen it.
import * as assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'mocha';
import * as vscode from 'vscode';
import type { ResultsHeader } from '../../../core/evaluation/header';
import { result } from '../../support/evalResults';
import { artStudio, workspaceUri, writeWorkspaceFile } from './helpers';

const DIR = 'evaluation-history';
const IDS = ['a', 'b', 'c', 'd', 'e'];

/** A local time as an ISO date: the view shows it back as these figures whatever the time zone. */
const at = (day: number, hour: number, minute: number) => new Date(2026, 10, day, hour, minute).toISOString();

function header(date: string, model: string, sha: string, git?: { commit: string; dirty: boolean }): ResultsHeader {
  return {
    kind: 'art-evaluation',
    version: 1,
    date,
    library: { path: 'library.art', sha256: sha.repeat(64 / sha.length), ...(git ? { git } : {}) },
    data: { path: 'data.jsonl', sha256: 'd'.repeat(64) },
    model,
    endpoint: 'http://127.0.0.1:9/v1',
    options: { api: 'completions', select: 'same-file', samples: 1, constrain: 'off', inlineTriggers: false },
  };
}

/** A results file: its header, then the examples right as `right` says. */
const resultsText = (h: ResultsHeader, right: string[]) =>
  [h, ...IDS.map(id => result(id, right.includes(id)))].map(x => JSON.stringify(x)).join('\n') + '\n';

describe('ART Evaluations view', function () {
  this.timeout(60_000);
  const subscriptions: vscode.Disposable[] = [];
  const commit = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';

  before(async () => {
    await writeWorkspaceFile(`${DIR}/library.art`, 'Description: (Echo) Say it.\nInput: hi\nQ1: [EOQ]\nAns: hi\n');
    await writeWorkspaceFile(`${DIR}/data.jsonl`, IDS.map(id => JSON.stringify({ id, input: `say ${id}`, target: '1' })).join('\n') + '\n');
    // The second evaluation fixed "c" and "d" and broke "b".
    await writeWorkspaceFile(
      `${DIR}/data.library.results.jsonl`,
      resultsText(header(at(25, 14, 2), 'gpt-4o-mini', 'a', { commit, dirty: false }), ['a', 'b']),
    );
    await writeWorkspaceFile(
      `${DIR}/data.library-2.results.jsonl`,
      resultsText(header(at(25, 16, 45), 'gpt-4o-mini', 'b', { commit, dirty: true }), ['a', 'c', 'd']),
    );
    await artStudio();
  });

  after(async () => {
    for (const s of subscriptions) s.dispose();
    rmSync(workspaceUri(DIR).fsPath, { recursive: true, force: true });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  const series = async () => {
    const view = (await artStudio()).runner.evaluationsView;
    const roots = await view.getChildren();
    const mine = roots.find(n => n.kind === 'series' && n.title === `${DIR}/library.art on data.jsonl`);
    assert.ok(mine, `the series of ${DIR}: ${roots.map(n => view.getTreeItem(n).label).join(' | ')}`);
    const entries = await view.getChildren(mine);
    return { view, mine, entries, labels: entries.map(n => view.getTreeItem(n).label) };
  };

  it('lists the two evaluations of the library newest first, each with its accuracy, change, date, model and version', async () => {
    const { view, mine, labels, entries } = await series();
    const item = view.getTreeItem(mine);
    assert.equal(item.description, '2 evaluations');
    assert.deepEqual(labels, ['0.60 (+0.20) · 2026-11-25 16:45 · gpt-4o-mini · a1b2c3d dirty', '0.40 · 2026-11-25 14:02 · gpt-4o-mini · a1b2c3d']);
    assert.deepEqual(
      entries.map(n => view.getTreeItem(n).contextValue),
      ['art.evaluation.withPrevious', 'art.evaluation'],
      'Compare With Previous only where there is an evaluation before',
    );
    const tooltip = view.getTreeItem(entries[0]).tooltip as vscode.MarkdownString;
    assert.match(tooltip.value, /exact match 3\/5 = 0\.60/);
    assert.match(tooltip.value, /after data\.library\.results\.jsonl, library edited since/);
  });

  it("a click opens that evaluation's results view; Compare With Previous opens the comparison with the one before", async () => {
    const api = await artStudio();
    const { view, entries } = await series();
    const click = view.getTreeItem(entries[1]).command!;
    const drawn = new Promise(resolve => subscriptions.push(api.runner.evaluations.onDidDraw(resolve)));
    const report = await vscode.commands.executeCommand<any>(click.command, ...(click.arguments ?? []));
    assert.equal(report.results, `${DIR}/data.library.results.jsonl`);
    assert.deepEqual([report.library, report.data, report.total, report.stopped], [`${DIR}/library.art`, `${DIR}/data.jsonl`, 5, false]);
    assert.deepEqual(await drawn, { tasks: 1, rows: 5, chart: true });

    const compared = new Promise(resolve => subscriptions.push(api.runner.comparisons.onDidDraw(resolve)));
    const comparison = await vscode.commands.executeCommand<any>('art.evaluations.compareWithPrevious', entries[0]);
    assert.deepEqual(comparison.names, [`${DIR}/data.library.results.jsonl`, `${DIR}/data.library-2.results.jsonl`]);
    assert.deepEqual(
      [comparison.a.correct, comparison.b.correct, comparison.fixed.map((e: any) => e.id), comparison.broken.map((e: any) => e.id)],
      [2, 3, ['c', 'd'], ['b']],
    );
    assert.deepEqual(await compared, { fixed: 2, broken: 1, p: comparison.p });
  });

  it('a results file written later is listed once the watcher has seen it', async () => {
    const { view } = await series();
    const redraws: (() => void)[] = [];
    subscriptions.push(view.onDidChangeTreeData(() => redraws.splice(0).forEach(r => r())));
    const redrawn = () => new Promise<void>(resolve => redraws.push(resolve));
    let next = redrawn();
    await writeWorkspaceFile(`${DIR}/data.library-3.results.jsonl`, resultsText(header(at(26, 9, 5), 'gpt-4o', 'c'), ['a', 'b', 'c', 'd', 'e']));
    // Redrawn (an event the watcher caused); a redraw of something else before it is waited past.
    let labels: (string | vscode.TreeItemLabel | undefined)[] = [];
    for (let redraw = 0; labels.length !== 3; redraw++) {
      assert.ok(redraw < 5, `five redraws and still ${labels.length} evaluations listed`);
      await next;
      next = redrawn();
      ({ labels } = await series());
    }
    assert.deepEqual(labels, [
      '1.00 (+0.40) · 2026-11-26 09:05 · gpt-4o · cccccccc',
      '0.60 (+0.20) · 2026-11-25 16:45 · gpt-4o-mini · a1b2c3d dirty',
      '0.40 · 2026-11-25 14:02 · gpt-4o-mini · a1b2c3d',
    ]);
  });
});
