// "ART: Evaluate Task": runs a task library over a dataset (core/evaluation/evaluate.ts, loaded with the runner bundle on
// first use) with the workspace's settings and stored API key, under a cancellable progress notification that shows
// the running count and accuracy, then shows the results view: the accuracy per task as a Chart.js chart, the
// summary and a row per example whose link replays that example's run in the debugger from its trace. The page is
// dist/evalView.js (client/webview/evalView.ts), the only code that loads Chart.js; a strict CSP with a nonce, no
// remote resource. Cancelling stops the runs in flight; the same command again resumes from the results file. An
// evaluation done before opens in the same view from its results file (the ART Evaluations view).
import { readFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import * as vscode from 'vscode';
import { webviewPage } from '../views/webviewPage';
import type { EvaluationModule } from '../runnerServices';
import type { EvalResult } from '../../core/evaluation/eval';
import type { EvalReport } from '../../core/evaluation/report';
import type { EvaluationEnd } from '../../core/evaluation/evaluate';
import { RUN_OPTIONS, type RunOptionName } from '../../core/launch/options';
import type { ChatModelProvider } from '../../core/launch/session';
import type { ChatBackend } from '../../core/model/chatContinuation';
import type { ArtSettings } from '../settings';
import type { KeyOptions, RunKey } from '../../core/launch/apiKey';
import { KeyNotSent, showRunFailure, type KeyRunContext } from '../runner/keyHosts';
import { UNTRUSTED_RUN_MESSAGE } from '../runner/configuration';

export const EVALUATE_COMMAND = 'art.evaluateTask';
export const RESULTS_VIEW_TYPE = 'art.evalResults';
export const COMPARE_EVALUATIONS_COMMAND = 'art.compareEvaluations';
/** A results file changes a line at a time while an evaluation writes it: one redraw for a burst of changes. */
const FOLLOW_REDRAW_MS = 300;
/** How often a results file's writer is checked while it runs: a killed one leaves its lock and no change behind. */
const WRITER_CHECK_MS = 2_000;

/** Run again over a results file that holds results: resume it, or start a new one beside it (never overwritten). */
export type EvaluationMode = 'resume' | 'new';

export interface EvaluationDeps {
  load(): EvaluationModule;
  /** The key of a run (client/runner/keyHosts.ts: asked about before it goes to another host than the user's setting). */
  runKey: (o: KeyOptions, ctx: KeyRunContext) => Promise<RunKey>;
  settings: (scope?: vscode.ConfigurationScope) => ArtSettings;
  log: vscode.LogOutputChannel;
  extensionUri: vscode.Uri;
  /** Opens a run in the debugger, replayed from its trace (the Runs view's helper). */
  replay(trace: string): Thenable<boolean>;
  /** Opens the comparison of two results files ("ART: Compare Evaluations"). */
  compare(a: string, b: string): Thenable<unknown>;
  /** With art.model.source "vscode": the Language Model API's model (client/lm/vscodeModel.ts). */
  chatModel: ChatModelProvider;
}

export interface EvaluationOutcome {
  end: EvaluationEnd;
  report: EvalReport;
  panel: vscode.WebviewPanel;
}

/** What the results page said it drew (for the tests). */
export interface Drawn {
  tasks: number;
  rows: number;
  chart: boolean;
}

export class Evaluations implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private report: EvalReport | undefined;
  private readonly drew = new vscode.EventEmitter<Drawn>();
  /** Fires each time the results page has drawn a report. */
  readonly onDidDraw = this.drew.event;
  lastDrawn: Drawn | undefined;
  private running = false;
  /** The absolute path of the results file of the report shown. */
  private resultsPath: string | undefined;
  /** The earlier evaluation of the same library on the same data, when the one shown was run after it. */
  private previous: string | undefined;
  /** After a new evaluation that has a previous one: the two results files the comparison was offered for. */
  offered: { previous: string; latest: string; choice: Promise<boolean> } | undefined;
  /** Following the results file shown while another process may write it (followFile). */
  private following: vscode.Disposable | undefined;

  constructor(private readonly deps: EvaluationDeps) {}

  /** The report shown in the results view, if any. */
  get shown(): EvalReport | undefined {
    return this.report;
  }

  /**
   * Asks for what is not given (the library: the active `.art` or a pick; the dataset: a pick of the workspace's
   * `.jsonl`; the task when the examples name none and the library has several), runs the evaluation and shows the
   * results. `token` cancels as the notification's Cancel does.
   */
  async run(
    library?: vscode.Uri,
    data?: vscode.Uri,
    task?: string | number,
    token?: vscode.CancellationToken,
    mode?: EvaluationMode,
  ): Promise<EvaluationOutcome | undefined> {
    const ready = await libraryToRun('an evaluation', this.running, library, this.deps.settings);
    if (!ready) return undefined;
    library = ready.library;
    const { s, options } = ready;
    const onVscodeModel = options.modelSource === 'vscode';
    const folder = vscode.workspace.getWorkspaceFolder(library);
    const root = folder?.uri.fsPath ?? dirname(library.fsPath);
    const runsFolder = resolve(root, s.runsFolder);
    data ??= await pickDataset(runsFolder);
    if (!data) return undefined;
    if (!(await saveFirst(library))) return undefined;
    let chatModel: ChatBackend | undefined;
    if (onVscodeModel) {
      try {
        chatModel = await this.deps.chatModel(
          String(options.vscodeModel ?? ''),
          `ART Studio evaluates ${basename(library.fsPath)} on ${basename(data.fsPath)} with this model.`,
        );
      } catch (e) {
        void vscode.window.showErrorMessage(`ART Studio: ${(e as Error).message}.`);
        return undefined;
      }
    }
    const m = this.deps.load();
    // Run again: resume the latest results file, or start a new one beside it (asked unless given).
    const earlier = m.resultsFiles(data.fsPath, library.fsPath);
    const latest = earlier.at(-1);
    let out = latest;
    if (latest && m.hasResults(latest)) {
      mode ??= await askResumeOrNew(latest, m.libraryChangedSince(latest, library.fsPath));
      if (!mode) return undefined;
      if (mode === 'new') out = m.newResultsPath(latest);
    }
    try {
      if (task === undefined) {
        const named = m.datasetNamesTasks(data.fsPath);
        if (named.withoutTask !== undefined) {
          task = await pickTask(m.libraryTasks(readFileSync(library.fsPath, 'utf8')), library, data, named.withoutTask);
          if (task === undefined) return undefined;
        }
      }
      if (task !== undefined) options.task = task;
      options.cwd = root;
      this.running = true;
      const name = (u: vscode.Uri) => vscode.workspace.asRelativePath(u);
      const end = await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: `ART: evaluating ${basename(library.fsPath)} on ${basename(data.fsPath)}`,
          cancellable: true,
        },
        async (progress, cancel) => {
          const controller = new AbortController();
          const stop = () => controller.abort(new Error('cancelled'));
          const subs = [cancel.onCancellationRequested(stop), ...(token ? [token.onCancellationRequested(stop)] : [])];
          if (token?.isCancellationRequested) stop();
          const done: EvalResult[] = [];
          let total = 0;
          let step = 0;
          try {
            return await m.evaluate({
              library: library!.fsPath,
              data: data!.fsPath,
              out,
              // Resuming was chosen (asked, or given): even a file of another version of the library.
              resumeChangedLibrary: mode === 'resume',
              options,
              optionLabel: settingLabel,
              apiKey: async o => {
                const key = await this.deps.runKey(o, { program: library!.fsPath });
                for (const note of key.notes) this.deps.log.info(`evaluation: ${note}`);
                if (key.cancelled) throw new KeyNotSent(key.cancelled);
                return key.key;
              },
              trusted: vscode.workspace.isTrusted,
              chatModel,
              concurrency: s.evaluationConcurrency,
              runs: { folder: runsFolder, gitignore: s.runsGitignore },
              signal: controller.signal,
              log: line => this.deps.log.info(`evaluation: ${line}`),
              onStart: st => {
                done.push(...st.done);
                total = st.total;
                step = st.todo.length ? 100 / st.todo.length : 0;
                this.deps.log.info(`evaluation: ${st.total} examples, ${st.done.length} already in ${st.resultsPath}, ${st.todo.length} to run`);
                progress.report({ message: m.progressLine(done, total) });
              },
              onResult: r => {
                done.push(r);
                progress.report({ increment: step, message: m.progressLine(done, total) });
              },
            });
          } finally {
            for (const d of subs) d.dispose();
          }
        },
      );
      const report = m.evalReport({
        results: end.results,
        resultsPath: end.resultsPath,
        total: end.total,
        stopped: end.stopped,
        names: { library: name(library), data: name(data), results: name(vscode.Uri.file(end.resultsPath)) },
      });
      // A new evaluation beside an earlier one of the same library on the same data: the comparison is offered, in a
      // notification and, since a notification hides after 10 s, on the results view's button.
      const previous = latest && out !== latest && !end.stopped ? latest : undefined;
      const panel = this.show(report, end.resultsPath, previous);
      const line = `${report.summaryLines[0].replace(/\s+/g, ' ')}; results in ${report.results}`;
      this.deps.log.info(`evaluation ${end.stopped ? 'stopped' : 'done'}: ${line}`);
      if (end.stopped)
        void vscode.window.showInformationMessage(
          `ART Studio: the evaluation stopped with ${end.results.length} of ${end.total} examples done: run "ART: Evaluate Task" again to resume.`,
        );
      if (end.rateLimited)
        this.deps.log.warn(
          `evaluation: the endpoint rate-limited ${end.rateLimited.count} request(s): the bound went down to ${end.rateLimited.limit}`,
        );
      if (previous) this.offerComparison(previous, end.resultsPath);
      return { end, report, panel };
    } catch (e) {
      return showRunFailure(e, m.isUserError, 'the evaluation did not start');
    } finally {
      this.running = false;
    }
  }

  /** Shows the results view of an evaluation done before, from its results file (the Evaluations view's entries). */
  async open(resultsPath: string): Promise<EvalReport | undefined> {
    const m = this.deps.load();
    let report: EvalReport;
    try {
      report = m.resultsFileReport(resultsPath, p => vscode.workspace.asRelativePath(p));
    } catch (e) {
      if (!m.isUserError(e)) throw e;
      void vscode.window.showErrorMessage(`ART Studio: ${(e as Error).message}`);
      return undefined;
    }
    this.show(report, resultsPath);
    this.followFile(resultsPath);
    return report;
  }

  /**
   * Follows the results file shown while another process may be writing it (`art eval` in a terminal): each change of
   * the file or of its lock redraws the view (once for a burst of lines), which says "running" while the lock's
   * holder is alive (core/evaluation/resultsFile.ts resultsWriter) and "stopped" or done once it is not; a writer
   * killed without letting go of its lock changes nothing on disk, so while one runs it is checked every 2 s.
   */
  private followFile(path: string): void {
    this.following?.dispose();
    const m = this.deps.load();
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(dirname(path)), `${basename(path)}*`));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const redraw = () => {
      timer = undefined;
      if (this.resultsPath !== path || !this.panel) return following.dispose();
      try {
        this.report = m.resultsFileReport(path, p => vscode.workspace.asRelativePath(p));
      } catch (e) {
        return this.deps.log.warn(`evaluation: ${path}: ${(e as Error).message}`);
      }
      void this.panel.webview.postMessage(this.reportMessage());
    };
    const soon = () => (timer ??= setTimeout(redraw, FOLLOW_REDRAW_MS));
    const check = setInterval(() => {
      if (this.report?.running && !m.resultsWriter(path)) soon();
    }, WRITER_CHECK_MS);
    const following = vscode.Disposable.from(watcher, watcher.onDidCreate(soon), watcher.onDidChange(soon), watcher.onDidDelete(soon), {
      dispose: () => {
        clearInterval(check);
        if (timer) clearTimeout(timer);
        if (this.following === following) this.following = undefined;
      },
    });
    this.following = following;
  }

  private offerComparison(previous: string, latest: string): void {
    const compare = 'Compare';
    const choice = Promise.resolve(
      vscode.window.showInformationMessage(
        `ART Studio: compare this evaluation with the previous one (${basename(previous)}): the examples the edit fixed and broke?`,
        compare,
      ),
    ).then(async c => {
      if (c !== compare) return false;
      await this.deps.compare(previous, latest);
      return true;
    });
    this.offered = { previous, latest, choice };
  }

  /** Shows a report in the results view (one panel, reused). */
  show(report: EvalReport, resultsPath?: string, previous?: string): vscode.WebviewPanel {
    this.report = report;
    this.resultsPath = resultsPath;
    this.previous = previous;
    const title = `Evaluation: ${basename(report.library)} on ${basename(report.data)}`;
    if (this.panel) {
      this.panel.title = title;
      this.panel.reveal(vscode.ViewColumn.Active);
      void this.panel.webview.postMessage(this.reportMessage());
      return this.panel;
    }
    const dist = vscode.Uri.joinPath(this.deps.extensionUri, 'dist');
    const panel = vscode.window.createWebviewPanel(RESULTS_VIEW_TYPE, title, vscode.ViewColumn.Active, {
      enableScripts: true,
      localResourceRoots: [dist],
      retainContextWhenHidden: true,
    });
    this.panel = panel;
    panel.webview.onDidReceiveMessage((msg: { type?: string; id?: string } & Partial<Drawn>) => {
      if (msg.type === 'ready' && this.report) void panel.webview.postMessage(this.reportMessage());
      else if (msg.type === 'replay' && typeof msg.id === 'string') void this.replay(msg.id);
      else if (msg.type === 'compare')
        void (this.previous && this.resultsPath
          ? this.deps.compare(this.previous, this.resultsPath)
          : vscode.commands.executeCommand(COMPARE_EVALUATIONS_COMMAND, undefined, this.resultsPath));
      else if (msg.type === 'drawn') {
        this.lastDrawn = { tasks: Number(msg.tasks), rows: Number(msg.rows), chart: !!msg.chart };
        this.drew.fire(this.lastDrawn);
      }
    });
    panel.onDidDispose(() => {
      if (this.panel === panel) this.panel = undefined;
    });
    panel.webview.html = this.html(panel.webview, vscode.Uri.joinPath(dist, 'evalView.js'));
    return panel;
  }

  /** What the results view draws: the report, and the earlier evaluation its Compare button names. */
  private reportMessage(): { type: 'report'; report: EvalReport; previous?: string } {
    return { type: 'report', report: this.report!, previous: this.previous && basename(this.previous) };
  }

  /** Replays the run of an example of the report shown in the debugger, from its trace. */
  async replay(id: string): Promise<boolean> {
    const trace = this.report?.rows.find(r => r.id === id)?.trace;
    if (!trace) {
      void vscode.window.showWarningMessage(`ART Studio: the example ${id} left no trace to replay.`);
      return false;
    }
    return this.deps.replay(trace);
  }

  private html(webview: vscode.Webview, script: vscode.Uri): string {
    return webviewPage({
      style: `body { padding: 8px 16px; color: var(--vscode-foreground); font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); }
h1 { font-size: 1.3em; font-weight: 600; margin: 4px 0; }
#status { opacity: .8; margin-bottom: 8px; }
button { margin-bottom: 12px; color: var(--vscode-button-foreground); background: var(--vscode-button-background); border: none; padding: 4px 10px; cursor: pointer; }
#chart-box { position: relative; height: 260px; max-width: 900px; margin-bottom: 12px; }
#summary { font-family: var(--vscode-editor-font-family, monospace); white-space: pre; margin-bottom: 16px; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: 3px 8px; border-bottom: 1px solid var(--vscode-editorWidget-border, rgba(128,128,128,.3)); }
th { font-weight: 600; }
td.input { max-width: 460px; }
td.ok { color: var(--vscode-testing-iconPassed, green); }
td.wrong { color: var(--vscode-testing-iconFailed, red); }
td.error, td.none { color: var(--vscode-errorForeground); }
a { color: var(--vscode-textLink-foreground); }`,
      body: `<h1 id="title">Evaluation</h1>
<div id="status"></div>
<button id="compare" title="Compare this evaluation with another of the same data: the examples fixed and broken">Compare with…</button>
<div id="chart-box"><canvas id="chart" role="img" aria-label="Accuracy per task"></canvas></div>
<div id="summary"></div>
<table id="examples"><thead><tr><th title="Click to replay the run in the debugger">example</th><th>input</th><th>answer</th><th>target</th><th>exact</th><th>substring</th><th>error</th></tr></thead><tbody></tbody></table>`,
      script: { src: webview.asWebviewUri(script).toString() },
      imgSrc: `${webview.cspSource} data:`,
    });
  }

  dispose(): void {
    this.following?.dispose();
    this.panel?.dispose();
    this.drew.dispose();
  }
}

/** An option as the person sets it in an error: its setting, else the launch attribute. */
export function settingLabel(n: RunOptionName): string {
  const key = RUN_OPTIONS[n].setting?.key;
  return key ? `the setting "art.${key}"` : `"${n}"`;
}

/**
 * What a command that runs a whole library on a model needs first (Evaluate Task, Improve Library): a trusted
 * workspace, no such command running, the library (the active `.art` or a pick), its settings and a model to call;
 * each missing one said in a message. `what` names the work in them ("an evaluation").
 */
export async function libraryToRun(
  what: string,
  running: boolean,
  library: vscode.Uri | undefined,
  settings: (scope?: vscode.ConfigurationScope) => ArtSettings,
): Promise<{ library: vscode.Uri; s: ArtSettings; options: Record<string, unknown> } | undefined> {
  if (!vscode.workspace.isTrusted) {
    void vscode.window.showErrorMessage(UNTRUSTED_RUN_MESSAGE);
    return undefined;
  }
  if (running) {
    void vscode.window.showWarningMessage(`ART Studio: ${what} is running: cancel it from its notification first.`);
    return undefined;
  }
  library ??= await pickLibrary();
  if (!library) return undefined;
  const s = settings(library);
  const options: Record<string, unknown> = { ...s.runOptions };
  if (options.modelSource !== 'vscode' && !options.model) {
    const open = 'Set a Model Endpoint';
    void vscode.window
      .showErrorMessage(
        `ART Studio: ${what} calls the model: set the model the endpoint serves ("art.model.name") and its base URL ("art.model.baseURL").`,
        open,
      )
      .then(c => c === open && vscode.commands.executeCommand('art.setModelEndpoint'));
    return undefined;
  }
  return { library, s, options };
}

/** The library has unsaved edits: the evaluation reads the saved file, so say so and offer to save first. */
export async function saveFirst(library: vscode.Uri): Promise<boolean> {
  const doc = vscode.workspace.textDocuments.find(d => d.uri.toString() === library.toString());
  if (!doc?.isDirty) return true;
  const save = 'Save and Evaluate';
  const saved = 'Evaluate the Saved File';
  const c = await vscode.window.showWarningMessage(
    `${vscode.workspace.asRelativePath(library)} has unsaved edits: an evaluation runs the file as saved, without them.`,
    { modal: true },
    save,
    saved,
  );
  if (c === save) return doc.save();
  return c === saved;
}

/**
 * A results file with results: resume it, or start a new evaluation in a new file beside it. When the library changed
 * since the file was begun, the choices say so (resuming would mix two versions of the library).
 */
async function askResumeOrNew(results: string, changed: { was: string; now: string } | null): Promise<EvaluationMode | undefined> {
  const pick = await vscode.window.showQuickPick(
    [
      {
        label: 'Start a new evaluation',
        description: `in a new results file beside the last; the last is kept to compare with${changed ? ' (the library changed since the last)' : ''}`,
        mode: 'new' as const,
      },
      {
        label: 'Resume the last evaluation',
        description: changed
          ? `the library changed since ${basename(results)} was begun (${changed.was} → ${changed.now}): its results would mix the two versions`
          : `run only the examples not yet in ${basename(results)}`,
        mode: 'resume' as const,
      },
    ],
    { title: `Evaluate Task: ${vscode.workspace.asRelativePath(results)} already holds results`, ignoreFocusOut: true },
  );
  return pick?.mode;
}

export async function pickLibrary(): Promise<vscode.Uri | undefined> {
  const active = vscode.window.activeTextEditor?.document;
  if (active?.languageId === 'art' && active.uri.scheme === 'file') return active.uri;
  const files = await vscode.workspace.findFiles('**/*.art', '{**/node_modules/**,**/.art/**}', 500);
  if (!files.length) {
    void vscode.window.showWarningMessage('ART Studio: there is no task library (.art) in the workspace to evaluate.');
    return undefined;
  }
  if (files.length === 1) return files[0];
  const pick = await vscode.window.showQuickPick(
    files.map(uri => ({ label: vscode.workspace.asRelativePath(uri), uri })),
    { title: 'Evaluate Task: which task library?', ignoreFocusOut: true },
  );
  return pick?.uri;
}

export async function pickDataset(
  runsFolder: string,
  title = 'Evaluate Task: which dataset (one {"input", "target"} a line)?',
): Promise<vscode.Uri | undefined> {
  const files = (await vscode.workspace.findFiles('**/*.jsonl', '{**/node_modules/**,**/.art/**}', 500)).filter(
    // Results files and run traces are JSONL too, not datasets.
    u => !u.fsPath.endsWith('.results.jsonl') && !u.fsPath.startsWith(runsFolder),
  );
  if (!files.length) {
    void vscode.window.showWarningMessage(
      'ART Studio: there is no dataset (.jsonl) in the workspace: write one {"input": ..., "target": ...} object a line (see examples/data/arithmetic.jsonl).',
    );
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(
    files.map(uri => ({ label: basename(uri.fsPath), description: vscode.workspace.asRelativePath(uri), uri })),
    { title, matchOnDescription: true, ignoreFocusOut: true },
  );
  return pick?.uri;
}

export async function pickTask(
  tasks: { index: number; title: string }[],
  library: vscode.Uri,
  data: vscode.Uri,
  line: number,
): Promise<number | undefined> {
  if (!tasks.length) {
    void vscode.window.showErrorMessage(`ART Studio: ${vscode.workspace.asRelativePath(library)} has no program to run the examples as.`);
    return undefined;
  }
  if (tasks.length === 1) return tasks[0].index;
  const pick = await vscode.window.showQuickPick(
    tasks.map(t => ({ label: t.title, description: `program ${t.index}`, index: t.index })),
    {
      title: 'Evaluate Task: run the examples as which task?',
      placeHolder: `The examples name no task (${basename(data.fsPath)}:${line} has no "description"): its demonstrations and description are used`,
      ignoreFocusOut: true,
    },
  );
  return pick?.index;
}
