// The "ART Evaluations" view (Run and Debug side bar): the workspace's past evaluations (core/evaluation/history.ts),
// per library on a dataset, newest first, each as `0.70 (+0.10) · 2026-11-25 14:02 · gpt-4o-mini · a1b2c3d`, so a
// person sees the trend of their edits. Redrawn when a results file is written, added or deleted; a click opens
// the evaluation's results view, "Compare With Previous" the comparison with the evaluation before it.
import { basename } from 'node:path';
import * as vscode from 'vscode';
import {
  evaluationHistory,
  formatAccuracy,
  formatHistoryDate,
  formatHistoryEntry,
  readHistoryFiles,
  seriesTitle,
  type HistoryEntry,
  type HistorySeries,
} from '../../core/evaluation/history';

export const EVALUATIONS_VIEW = 'art.evaluations';
export const OPEN_EVALUATION_COMMAND = 'art.evaluations.open';
export const COMPARE_WITH_PREVIOUS_COMMAND = 'art.evaluations.compareWithPrevious';
export const REFRESH_EVALUATIONS_COMMAND = 'art.evaluations.refresh';
const RESULTS_GLOB = '**/*.results.jsonl';
/** Results files change a line at a time while an evaluation runs: one redraw for a burst of changes. */
const REDRAW_AFTER_MS = 300;

export type EvaluationsNode =
  { kind: 'series'; series: HistorySeries; title: string } | { kind: 'evaluation'; entry: HistoryEntry; series: HistorySeries };

export class EvaluationsView implements vscode.TreeDataProvider<EvaluationsNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<EvaluationsNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subscriptions: vscode.Disposable[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly log: vscode.LogOutputChannel) {
    const view = vscode.window.createTreeView(EVALUATIONS_VIEW, { treeDataProvider: this, showCollapseAll: true });
    const watcher = vscode.workspace.createFileSystemWatcher(RESULTS_GLOB);
    const soon = () => this.refreshSoon();
    this.subscriptions.push(view, this.changed, watcher, watcher.onDidCreate(soon), watcher.onDidChange(soon), watcher.onDidDelete(soon));
  }

  refresh(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.changed.fire(undefined);
  }

  private refreshSoon(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => this.refresh(), REDRAW_AFTER_MS);
  }

  /** The workspace's evaluations: series with the latest evaluation first; an unreadable results file is logged. */
  async series(): Promise<HistorySeries[]> {
    const uris = await vscode.workspace.findFiles(RESULTS_GLOB, '**/node_modules/**', 5000);
    const { files, skipped } = readHistoryFiles(uris.map(u => u.fsPath));
    for (const s of skipped) this.log.warn(`evaluations: ${s}`);
    const latest = (s: HistorySeries) => Date.parse(s.entries.at(-1)?.date ?? '') || 0;
    return evaluationHistory(files).sort((a, b) => latest(b) - latest(a));
  }

  async getChildren(node?: EvaluationsNode): Promise<EvaluationsNode[]> {
    if (!node)
      return (await this.series()).map(series => {
        const root = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(series.key))?.uri.fsPath;
        return { kind: 'series' as const, series, title: seriesTitle(series, root) };
      });
    if (node.kind === 'series') return [...node.series.entries].reverse().map(entry => ({ kind: 'evaluation' as const, entry, series: node.series }));
    return [];
  }

  getTreeItem(node: EvaluationsNode): vscode.TreeItem {
    if (node.kind === 'series') {
      const item = new vscode.TreeItem(node.title, vscode.TreeItemCollapsibleState.Expanded);
      const n = node.series.entries.length;
      item.id = `series:${node.series.key}`;
      item.description = `${n} evaluation${n === 1 ? '' : 's'}`;
      item.iconPath = new vscode.ThemeIcon('beaker');
      item.contextValue = 'art.evaluationSeries';
      return item;
    }
    const e = node.entry;
    const item = new vscode.TreeItem(formatHistoryEntry(e), vscode.TreeItemCollapsibleState.None);
    item.id = `evaluation:${e.path}`;
    item.description = basename(e.path);
    item.resourceUri = vscode.Uri.file(e.path);
    item.iconPath = new vscode.ThemeIcon(
      e.change === null ? 'circle-outline' : e.change > 0 ? 'arrow-up' : e.change < 0 ? 'arrow-down' : 'arrow-right',
    );
    item.tooltip = new vscode.MarkdownString().appendCodeblock(
      [
        `${vscode.workspace.asRelativePath(e.path)}`,
        `exact match ${e.accuracy === null ? 'no results yet' : `${e.correct}/${e.n} = ${formatAccuracy(e.accuracy)}`}`,
        `began ${formatHistoryDate(e.date)}`,
        `model ${e.model ?? '(not recorded)'}`,
        `library ${e.version ?? '(not recorded)'}${e.librarySha256 ? ` (content ${e.librarySha256.slice(0, 12)})` : ''}`,
        e.previous
          ? `after ${basename(e.previous)}${e.libraryChanged === undefined ? '' : e.libraryChanged ? ', library edited since' : ', same library'}`
          : '',
      ]
        .filter(Boolean)
        .join('\n'),
      'text',
    );
    // "Compare With Previous" only where there is an evaluation before.
    item.contextValue = e.previous ? 'art.evaluation.withPrevious' : 'art.evaluation';
    item.command = { command: OPEN_EVALUATION_COMMAND, title: 'Open Results', arguments: [node] };
    return item;
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const d of this.subscriptions) d.dispose();
  }
}

/** The view's commands: Open Results (a click), Compare With Previous (inline and context menu), Refresh. */
export function registerEvaluationsCommands(
  view: EvaluationsView,
  actions: { open(resultsPath: string): Thenable<unknown>; compare(a: string, b: string): Thenable<unknown> },
): vscode.Disposable[] {
  const pathOf = (x: EvaluationsNode | string | vscode.Uri | undefined) =>
    typeof x === 'string' ? x : x instanceof vscode.Uri ? x.fsPath : x?.kind === 'evaluation' ? x.entry.path : undefined;
  return [
    vscode.commands.registerCommand(REFRESH_EVALUATIONS_COMMAND, () => view.refresh()),
    vscode.commands.registerCommand(OPEN_EVALUATION_COMMAND, (x?: EvaluationsNode | string | vscode.Uri) => {
      const path = pathOf(x);
      return path ? actions.open(path) : undefined;
    }),
    vscode.commands.registerCommand(COMPARE_WITH_PREVIOUS_COMMAND, (node?: EvaluationsNode) => {
      if (node?.kind !== 'evaluation') return undefined;
      if (!node.entry.previous) {
        void vscode.window.showInformationMessage(
          `ART Studio: ${basename(node.entry.path)} is the first evaluation of its series: there is none before it.`,
        );
        return undefined;
      }
      return actions.compare(node.entry.previous, node.entry.path);
    }),
  ];
}
