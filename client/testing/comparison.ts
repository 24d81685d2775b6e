// "ART: Compare Evaluations": two results files compared example by example (core/evaluation/report.ts
// comparisonReport, loaded with the runner bundle), shown in a webview: both accuracies with their intervals, the
// difference, the p-value in plain words, and the examples fixed and broken, each with links that open its two runs
// side by side ("ART: Compare Runs") or replay either in the debugger. The page is dist/compareView.js
// (client/webview/compareView.ts) under the shared strict CSP; it draws the report as text, nothing from the data as HTML.
import { basename } from 'node:path';
import { comparisonChoices, earlierFirst, readHistoryFiles } from '../../core/evaluation/history';
import * as vscode from 'vscode';
import type { ComparisonReport } from '../../core/evaluation/report';
import type { EvaluationModule } from '../runnerServices';
import { webviewPage } from '../views/webviewPage';

export const COMPARE_VIEW_TYPE = 'art.evalComparison';

export interface ComparisonDeps {
  load(): EvaluationModule;
  extensionUri: vscode.Uri;
  replay(trace: string): Thenable<boolean>;
}

/** What the comparison page said it drew (for the tests). */
export interface ComparisonDrawn {
  fixed: number;
  broken: number;
  p: string;
}

export class EvalComparisons implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private report: ComparisonReport | undefined;
  private readonly drew = new vscode.EventEmitter<ComparisonDrawn>();
  readonly onDidDraw = this.drew.event;

  constructor(private readonly deps: ComparisonDeps) {}

  get shown(): ComparisonReport | undefined {
    return this.report;
  }

  /**
   * Compares two results files, A the earlier evaluation and B the later whatever the order they come in. Those not
   * given are asked for, newest first, each dated with its accuracy: B first (the newest preselected), then A among
   * the others (the one before B first).
   */
  async compare(a?: string | vscode.Uri, b?: string | vscode.Uri): Promise<ComparisonReport | undefined> {
    const path = (x: string | vscode.Uri | undefined) => (typeof x === 'string' ? x : x?.fsPath);
    let [pa, pb] = [path(a), path(b)];
    pb ??= await pickResults('Compare Evaluations (1/2): the later evaluation (B), newest first', pa);
    if (!pb) return undefined;
    pa ??= await pickResults(`Compare Evaluations (2/2): the earlier evaluation (A) to compare ${basename(pb)} with`, pb);
    if (!pa) return undefined;
    [pa, pb] = inTimeOrder(pa, pb);
    const m = this.deps.load();
    let report: ComparisonReport;
    try {
      report = m.comparisonReport(pa, pb, [vscode.workspace.asRelativePath(pa), vscode.workspace.asRelativePath(pb)]);
    } catch (e) {
      if (!m.isUserError(e)) throw e;
      void vscode.window.showErrorMessage(`ART Studio: ${(e as Error).message}`);
      return undefined;
    }
    this.show(report);
    return report;
  }

  private show(report: ComparisonReport): void {
    this.report = report;
    const title = `Comparison: ${basename(report.names[0])} → ${basename(report.names[1])}`;
    if (this.panel) {
      this.panel.title = title;
      this.panel.reveal(vscode.ViewColumn.Active);
      void this.panel.webview.postMessage({ type: 'comparison', report });
      return;
    }
    const dist = vscode.Uri.joinPath(this.deps.extensionUri, 'dist');
    const panel = vscode.window.createWebviewPanel(COMPARE_VIEW_TYPE, title, vscode.ViewColumn.Active, {
      enableScripts: true,
      localResourceRoots: [dist],
      retainContextWhenHidden: true,
    });
    this.panel = panel;
    panel.webview.onDidReceiveMessage((msg: { type?: string; id?: string; side?: string } & Partial<ComparisonDrawn>) => {
      if (msg.type === 'ready' && this.report) void panel.webview.postMessage({ type: 'comparison', report: this.report });
      else if (msg.type === 'diff' && typeof msg.id === 'string') void this.diff(msg.id);
      else if (msg.type === 'replay' && typeof msg.id === 'string') void this.replay(msg.id, msg.side === 'a' ? 'a' : 'b');
      else if (msg.type === 'drawn') this.drew.fire({ fixed: Number(msg.fixed), broken: Number(msg.broken), p: String(msg.p) });
    });
    panel.onDidDispose(() => {
      if (this.panel === panel) this.panel = undefined;
    });
    panel.webview.html = webviewPage({
      style: `body { padding: 8px 16px; color: var(--vscode-foreground); font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); }
h1 { font-size: 1.3em; font-weight: 600; margin: 4px 0; }
h2 { font-size: 1.1em; font-weight: 600; margin: 16px 0 4px; }
.header { font-family: var(--vscode-editor-font-family, monospace); opacity: .8; }
.warning { color: var(--vscode-editorWarning-foreground, orange); }
.big { font-size: 1.2em; margin: 4px 0; }
.gain { color: var(--vscode-testing-iconPassed, green); }
.loss { color: var(--vscode-testing-iconFailed, red); }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: 3px 8px; border-bottom: 1px solid var(--vscode-editorWidget-border, rgba(128,128,128,.3)); }
th { font-weight: 600; }
td.input { max-width: 460px; }
a { color: var(--vscode-textLink-foreground); margin-right: 8px; }`,
      body: `<h1 id="title">Comparison</h1><div id="content"></div>`,
      script: { src: panel.webview.asWebviewUri(vscode.Uri.joinPath(dist, 'compareView.js')).toString() },
    });
  }

  private changed(id: string) {
    return [...(this.report?.fixed ?? []), ...(this.report?.broken ?? [])].find(e => e.id === id);
  }

  /** The example's two runs side by side (the run diff). */
  async diff(id: string): Promise<unknown> {
    const e = this.changed(id);
    if (!e?.traceA || !e.traceB) {
      void vscode.window.showWarningMessage(`ART Studio: the example ${id} has no trace on ${e?.traceA ? 'B' : 'A'}'s side to compare.`);
      return undefined;
    }
    return vscode.commands.executeCommand('art.compareRuns', e.traceA, e.traceB);
  }

  /** Replays the example's run of side A or B in the debugger. */
  async replay(id: string, side: 'a' | 'b'): Promise<boolean> {
    const e = this.changed(id);
    const trace = side === 'a' ? e?.traceA : e?.traceB;
    if (!trace) {
      void vscode.window.showWarningMessage(`ART Studio: the example ${id} left no trace in ${side.toUpperCase()} to replay.`);
      return false;
    }
    return this.deps.replay(trace);
  }

  dispose(): void {
    this.panel?.dispose();
    this.drew.dispose();
  }
}

async function pickResults(title: string, other?: string): Promise<string | undefined> {
  const uris = (await vscode.workspace.findFiles('**/*.results.jsonl', '{**/node_modules/**}', 500)).filter(u => u.fsPath !== other);
  const { files } = readHistoryFiles(uris.map(u => u.fsPath));
  if (!files.length) {
    void vscode.window.showWarningMessage(
      'ART Studio: there is no other results file (.results.jsonl) in the workspace: run "ART: Evaluate Task" first.',
    );
    return undefined;
  }
  // Newest first: the first (preselected) is the latest evaluation, or, for A, the one before B.
  const choices = comparisonChoices(files, other ? readHistoryFiles([other]).files[0] : undefined);
  const pick = await vscode.window.showQuickPick(
    choices.map(c => ({ label: c.label, description: vscode.workspace.asRelativePath(c.path), path: c.path })),
    { title, matchOnDescription: true, ignoreFocusOut: true },
  );
  return pick?.path;
}

/** A and B in the order a comparison reads them: the earlier evaluation first (files that cannot be read: as given). */
function inTimeOrder(a: string, b: string): [string, string] {
  const { files } = readHistoryFiles([a, b]);
  const [fa, fb] = files;
  if (files.length !== 2 || !fa || !fb) return [a, b];
  const [first, second] = earlierFirst(fa, fb);
  return [first.path, second.path];
}
