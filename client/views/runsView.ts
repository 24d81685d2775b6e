// The "Runs" view (Run and Debug side bar): the workspace's run history (core/trace/history.ts) by program, each run
// with its answer, status, tokens and time, the runs started from it and the branches it recorded as children; and
// "ART: Compare Runs": two runs aligned by core/replay/diff.ts, shown in VS Code's diff editor as two read-only
// documents (scheme `art-compare`).
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import * as vscode from 'vscode';
import { diffRuns, renderRun, runView } from '../../core/replay/diff';
import {
  deleteRun,
  historyTree,
  listRuns,
  runLabel,
  writeSummary,
  type HistoryNode,
  type RecordedBranch,
  type RunSummary,
} from '../../core/trace/history';
import { parseTrace, runTraceProblem } from '../../core/trace/trace';
import type { ArtSettings } from '../settings';
import { DEBUG_TYPE } from '../debugAdapter/protocol';

export const RUNS_VIEW = 'art.runs';
export const COMPARE_SCHEME = 'art-compare';

export type RunsNode =
  | { kind: 'group'; title: string; program?: string; evaluation?: string; runs: HistoryNode[]; folder: string }
  | { kind: 'run'; node: HistoryNode; folder: string }
  | { kind: 'branch'; branch: RecordedBranch; run: RunSummary; folder: string };

/** A run as a Quick Pick and the view describe it: answer, status, tokens, time. */
export function describeRun(s: RunSummary): string {
  const tokens = s.tokens.promptTokens + s.tokens.completionTokens;
  const secs = s.durationMs !== undefined ? ` · ${(s.durationMs / 1000).toFixed(1)} s` : '';
  // A replay, or a model that reports no usage: no count, as the Debug Console says, rather than "0 tokens".
  return `${s.answer !== null ? `→ ${s.answer} · ` : ''}${s.status} · ${tokens ? `${tokens} tokens` : 'no tokens reported'}${secs}`;
}

function when(s: RunSummary): string {
  return s.startedAt ? new Date(s.startedAt).toLocaleString() : s.id;
}

export class RunsView implements vscode.TreeDataProvider<RunsNode>, vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<RunsNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly docChanged = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.docChanged.event;
  private readonly view: vscode.TreeView<RunsNode>;
  private readonly subscriptions: vscode.Disposable[] = [];
  /** Rendered comparison documents by URI. */
  private readonly documents = new Map<string, string>();
  private comparisons = 0;

  constructor(private readonly settings: (scope?: vscode.ConfigurationScope) => ArtSettings) {
    this.view = vscode.window.createTreeView(RUNS_VIEW, { treeDataProvider: this, showCollapseAll: true });
    this.subscriptions.push(
      this.view,
      this.changed,
      this.docChanged,
      vscode.workspace.registerTextDocumentContentProvider(COMPARE_SCHEME, this),
      vscode.workspace.onDidChangeConfiguration(e => e.affectsConfiguration('art.runs') && this.refresh()),
    );
    for (const f of this.folders()) {
      const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(f), '*.{jsonl,json}'));
      this.subscriptions.push(
        watcher,
        watcher.onDidCreate(() => this.refresh()),
        watcher.onDidDelete(() => this.refresh()),
      );
    }
  }

  /** The runs folder of each workspace folder. */
  folders(): string[] {
    return (vscode.workspace.workspaceFolders ?? []).map(f => resolve(f.uri.fsPath, this.settings(f.uri).runsFolder));
  }

  /** The runs folder a trace belongs to, if any. */
  folderOf(trace: string): string | undefined {
    const dir = resolve(dirname(trace));
    return this.folders().find(f => f === dir);
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  /** Writes the summary of a run that ended (the shell knows its program and task) and shows it. */
  recordEnded(tracePath: string, program: string, task: number | string | undefined): void {
    const folder = this.folderOf(tracePath);
    if (!folder || !existsSync(tracePath)) return;
    writeSummary(folder, basename(tracePath).replace(/\.jsonl$/i, ''), { program: vscode.workspace.asRelativePath(program), task });
    this.refresh();
  }

  /** The tree as shown: groups by program, runs under them (for the tests and the commands). */
  getChildren(node?: RunsNode): RunsNode[] {
    if (!node)
      return this.folders().flatMap(folder =>
        historyTree(listRuns(folder)).map(g => ({
          kind: 'group' as const,
          title: g.title,
          program: g.program,
          ...(g.evaluation ? { evaluation: g.evaluation } : {}),
          runs: g.runs,
          folder,
        })),
      );
    if (node.kind === 'group') return node.runs.map(r => ({ kind: 'run' as const, node: r, folder: node.folder }));
    if (node.kind === 'run')
      return [
        ...node.node.children.map(c => ({ kind: 'run' as const, node: c, folder: node.folder })),
        ...node.node.entry.summary.branches.map(b => ({ kind: 'branch' as const, branch: b, run: node.node.entry.summary, folder: node.folder })),
      ];
    return [];
  }

  getTreeItem(node: RunsNode): vscode.TreeItem {
    if (node.kind === 'group') {
      // An evaluation's runs (one per example) start collapsed: a large dataset does not flood the view.
      const item = new vscode.TreeItem(
        node.title,
        node.evaluation ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.Expanded,
      );
      item.description = `${node.program ? `${node.program} · ` : ''}${node.runs.length} run(s)`;
      item.iconPath = new vscode.ThemeIcon(node.evaluation ? 'beaker' : 'symbol-method');
      item.contextValue = 'art.runGroup';
      return item;
    }
    if (node.kind === 'run') {
      const s = node.node.entry.summary;
      const hasChildren = node.node.children.length + s.branches.length > 0;
      // An evaluated example's run is labelled by the example's id.
      const label = s.evaluation ? s.evaluation.example : when(s);
      const item = new vscode.TreeItem(label, hasChildren ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
      item.id = `run:${node.node.entry.trace}`;
      item.description = describeRun(s);
      item.tooltip = new vscode.MarkdownString().appendCodeblock(
        [
          `run ${s.id}`,
          s.evaluation ? `example ${s.evaluation.example} of the evaluation ${s.evaluation.results}` : '',
          s.program ? `program ${s.program}${s.task !== undefined ? ` (task ${s.task})` : ''}` : '',
          `model ${s.model}`,
          s.parent ? `started from ${s.parent.run}${s.parent.callId !== undefined ? ` at call ${s.parent.callId}` : ''}` : '',
          s.live ? `went live at call ${s.live.callId ?? '?'}${s.live.why ? `: ${s.live.why}` : ''}` : '',
          s.error ? `error: ${s.error}` : '',
        ]
          .filter(Boolean)
          .join('\n'),
        'text',
      );
      item.iconPath = new vscode.ThemeIcon(
        s.status === 'finished' ? 'pass' : s.status === 'error' ? 'error' : s.parent ? 'git-branch' : 'circle-outline',
      );
      item.contextValue = 'art.run';
      item.resourceUri = vscode.Uri.file(node.node.entry.trace);
      item.command = { command: 'art.runs.openTrace', title: 'Open Trace', arguments: [node] };
      return item;
    }
    const b = node.branch;
    const at = b.step !== undefined ? `step ${b.step}` : b.callId !== undefined ? `call ${b.callId}` : `record ${b.index + 1}`;
    const item = new vscode.TreeItem(`branch at ${at}`, vscode.TreeItemCollapsibleState.None);
    item.description = [b.answer !== undefined && b.answer !== null ? `→ ${b.answer}` : '', b.label ?? ''].filter(Boolean).join(' · ');
    item.iconPath = new vscode.ThemeIcon('git-branch');
    item.contextValue = this.branchTrace(node) ? 'art.run' : 'art.branch';
    return item;
  }

  /** A branch's own trace file, when its record names one that exists. */
  branchTrace(node: RunsNode): string | undefined {
    if (node.kind !== 'branch' || !node.branch.trace) return undefined;
    const p = isAbsolute(node.branch.trace) ? node.branch.trace : join(node.folder, node.branch.trace);
    return existsSync(p) ? p : undefined;
  }

  /** The trace file of a run node (or a branch with its own trace). */
  traceOf(node: RunsNode): string | undefined {
    return node.kind === 'run' ? node.node.entry.trace : this.branchTrace(node);
  }

  /** Every run of the workspace, newest first (the Quick Pick of Compare Runs). */
  allRuns(): { trace: string; summary: RunSummary }[] {
    return this.folders()
      .flatMap(f => listRuns(f))
      .sort((a, b) => b.summary.startedAt - a.summary.startedAt);
  }

  async delete(node: RunsNode): Promise<void> {
    if (node.kind !== 'run') return;
    const s = node.node.entry.summary;
    deleteRun(dirname(node.node.entry.trace), s.id);
    this.refresh();
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.documents.get(uri.toString()) ?? '';
  }

  /** Opens the two runs side by side in the diff editor, aligned step by step; returns the two documents' URIs. */
  async compare(traceA: string, traceB: string): Promise<[vscode.Uri, vscode.Uri]> {
    const load = (p: string) => {
      // The trace schema, as `art diff` and every other reader of traces reads them.
      const parsed = parseTrace(readFileSync(p, 'utf8'));
      const problem = runTraceProblem(vscode.workspace.asRelativePath(p), parsed);
      if (problem) throw new Error(problem);
      return runView(parsed.records);
    };
    const [a, b] = [load(traceA), load(traceB)];
    const d = diffRuns(a, b);
    const n = ++this.comparisons;
    const name = (p: string) => basename(p).replace(/\.jsonl$/i, '');
    const uriA = vscode.Uri.from({ scheme: COMPARE_SCHEME, path: `/${name(traceA)}.art-diff`, query: `${n}a` });
    const uriB = vscode.Uri.from({ scheme: COMPARE_SCHEME, path: `/${name(traceB)}.art-diff`, query: `${n}b` });
    this.documents.set(uriA.toString(), renderRun(a, d.slots, 'a', vscode.workspace.asRelativePath(traceA)));
    this.documents.set(uriB.toString(), renderRun(b, d.slots, 'b', vscode.workspace.asRelativePath(traceB)));
    const summary = `${d.differing} of ${d.slots.length} step(s) differ${d.answersDiffer ? ', answers differ' : ''}`;
    await vscode.commands.executeCommand('vscode.diff', uriA, uriB, `${name(traceA)} ↔ ${name(traceB)} (${summary})`, { preview: false });
    return [uriA, uriB];
  }

  /** Asks for a run (Quick Pick over the history, or a trace file). */
  async pickRun(title: string, except?: string): Promise<string | undefined> {
    const BROWSE = 'Browse for a trace file…';
    const items: (vscode.QuickPickItem & { trace?: string })[] = this.allRuns()
      .filter(r => r.trace !== except)
      .map(r => ({ label: r.summary.title, description: `${when(r.summary)} · ${describeRun(r.summary)}`, trace: r.trace }));
    items.push({ label: BROWSE });
    const pick = await vscode.window.showQuickPick(items, { title, matchOnDescription: true });
    if (!pick) return undefined;
    if (pick.trace) return pick.trace;
    const files = await vscode.window.showOpenDialog({ title, canSelectMany: false, filters: { 'Run traces': ['jsonl'] } });
    return files?.[0]?.fsPath;
  }

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
  }
}

/**
 * Opens a run in the debugger, replayed from its trace: the recorded completions and tool outputs are played again,
 * stopping at each tool call (the Runs view's "Replay in Debugger", an evaluated example's link); with
 * `pauseBeforeTool` also before each tool runs, where its input can be corrected.
 */
export function replayRun(trace: string, options: { pauseBeforeTool?: boolean } = {}): Thenable<boolean> {
  const uri = vscode.Uri.file(trace);
  return vscode.debug.startDebugging(vscode.workspace.getWorkspaceFolder(uri), {
    type: DEBUG_TYPE,
    request: 'launch',
    name: `Replay ${runLabel(trace)}`,
    program: trace,
    ...(options.pauseBeforeTool ? { pauseBeforeTool: true } : {}),
  });
}

/** Registers the view's commands: Open Trace, Replay in Debugger, Compare With…, Delete (context menu), Refresh and "ART: Compare Runs". */
export function registerRunsCommands(view: RunsView, openTrace: (uri: vscode.Uri) => Thenable<unknown>): vscode.Disposable[] {
  const fail = (e: unknown) => void vscode.window.showErrorMessage(`ART Studio: ${(e as Error).message}.`);
  return [
    vscode.commands.registerCommand('art.runs.refresh', () => view.refresh()),
    vscode.commands.registerCommand('art.runs.openTrace', (node: RunsNode) => {
      const t = view.traceOf(node);
      return t ? openTrace(vscode.Uri.file(t)) : undefined;
    }),
    vscode.commands.registerCommand('art.runs.replay', (node: RunsNode) => {
      const t = view.traceOf(node);
      return t ? replayRun(t) : undefined;
    }),
    vscode.commands.registerCommand('art.runs.compareWith', async (node: RunsNode) => {
      const a = view.traceOf(node);
      if (!a) return undefined;
      const b = await view.pickRun('Compare with…', a);
      return b ? view.compare(a, b).then(undefined, fail) : undefined;
    }),
    vscode.commands.registerCommand('art.runs.delete', async (node: RunsNode, confirmed?: boolean) => {
      if (node?.kind !== 'run') return;
      const s = node.node.entry.summary;
      if (!confirmed) {
        const ok = await vscode.window.showWarningMessage(`Delete the run ${s.id} (its trace and summary)?`, { modal: true }, 'Delete');
        if (ok !== 'Delete') return;
      }
      await view.delete(node);
    }),
    // From the palette: two runs asked for; from tests and other extensions: two trace paths.
    vscode.commands.registerCommand('art.compareRuns', async (a?: string, b?: string) => {
      a ??= await view.pickRun('Compare Runs: the first run');
      if (!a) return undefined;
      b ??= await view.pickRun('Compare Runs: the second run', a);
      if (!b) return undefined;
      return view.compare(a, b).then(undefined, fail);
    }),
  ];
}
