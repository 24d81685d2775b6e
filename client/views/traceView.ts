// The "ART Trace" view (in the Run and Debug side bar): a run's JSONL trace as a tree (client/views/traceTree.ts).
import * as vscode from 'vscode';
import { runLabel } from '../../core/trace/history';
import { parseTrace } from '../../core/trace/trace';
import { traceTree, type TraceNode } from './traceTree';

export const TRACE_VIEW = 'art.trace';
export const TRACE_LOADED_CONTEXT = 'art.traceLoaded';

export class TraceView implements vscode.TreeDataProvider<TraceNode>, vscode.Disposable {
  private roots: TraceNode[] = [];
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly view: vscode.TreeView<TraceNode>;
  /** The trace shown. */
  uri: vscode.Uri | undefined;

  constructor() {
    this.view = vscode.window.createTreeView(TRACE_VIEW, { treeDataProvider: this, showCollapseAll: true });
  }

  /** Reads and shows a trace; resolves with the number of records and the lines that were not records. */
  async open(uri: vscode.Uri): Promise<{ records: number; errors: { line: number; message: string }[] }> {
    const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
    const { records, errors } = parseTrace(text);
    this.roots = traceTree(records);
    if (errors.length)
      this.roots.push({
        label: `${errors.length} line(s) that are not trace records`,
        icon: 'warning',
        children: errors.map(e => ({ label: `line ${e.line}`, description: e.message })),
      });
    this.uri = uri;
    // Titled by the run (its program and time, as the runs folder names the file), not by a path.
    this.view.title = 'ART Trace';
    this.view.description = `${runLabel(uri.path)} · ${records.length} records`;
    await vscode.commands.executeCommand('setContext', TRACE_LOADED_CONTEXT, true);
    this.changed.fire();
    await vscode.commands.executeCommand(`${TRACE_VIEW}.focus`).then(undefined, () => undefined);
    return { records: records.length, errors };
  }

  /** A new run started: the trace shown is no longer the current one; the view empties until a trace is opened. */
  clear(): void {
    this.roots = [];
    this.uri = undefined;
    this.view.description = undefined;
    void vscode.commands.executeCommand('setContext', TRACE_LOADED_CONTEXT, false);
    this.changed.fire();
  }

  /** The tree as shown (for tests). */
  get nodes(): readonly TraceNode[] {
    return this.roots;
  }

  getTreeItem(node: TraceNode): vscode.TreeItem {
    const item = new vscode.TreeItem(
      node.label,
      node.children?.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
    );
    item.description = node.description;
    if (node.tooltip)
      item.tooltip = new vscode.MarkdownString().appendCodeblock(
        node.tooltip.length > 4000 ? `${node.tooltip.slice(0, 4000)}\n…` : node.tooltip,
        'text',
      );
    if (node.icon) item.iconPath = new vscode.ThemeIcon(node.icon);
    return item;
  }

  getChildren(node?: TraceNode): TraceNode[] {
    return node ? (node.children ?? []) : this.roots;
  }

  dispose(): void {
    this.view.dispose();
    this.changed.dispose();
  }
}
