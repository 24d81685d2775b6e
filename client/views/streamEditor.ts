// The program a run writes, shown beside the source in a read-only document of its own (scheme `art-run`) that
// grows as the model writes it (the session's `art/text` events). It is not a file: it is never dirty, never asks
// to be saved, is not checked (no Problems entries, no status bar counts) and gets no Run/Debug lenses. What each
// finished run left behind (its program, answer and trace) is kept for "Save as Demonstration" and "Open Trace".
// Reports of a run ("ART: Show Prompt") open in documents of the same scheme (showText).
import { isAbsolute } from 'node:path';
import * as vscode from 'vscode';
import { DEBUG_TYPE, EndEvent, TextEvent } from '../debugAdapter/protocol';

/** The URI scheme of streamed programs. */
export const RUN_SCHEME = 'art-run';

interface Stream {
  run: number;
  uri: vscode.Uri;
  text: string;
  shown: boolean;
  /** The editor group it was shown in, once shown. */
  column?: vscode.ViewColumn;
  /** The file the session runs (its launch configuration's `program`), put back where a second tab of the run took its place. */
  source?: vscode.Uri;
}

/** Where a run's document came from: the program its session ran (an absolute path) and the task in it. */
export interface RunOrigin {
  program: string;
  task?: string | number;
}

export interface FinishedRun extends EndEvent.Body {
  sessionName: string;
  /** The streamed document, when one was shown. */
  uri?: vscode.Uri;
}

export class ProgramStreams implements vscode.Disposable, vscode.TextDocumentContentProvider {
  private readonly streams = new Map<string, Stream>();
  /** Text of every streamed document still open, by URI (a finished run's document stays readable). */
  private readonly texts = new Map<string, string>();
  /** The program and task of every streamed document still open, by URI (F5 there runs them: originOf). */
  private readonly origins = new Map<string, RunOrigin>();
  /** The streamed documents of runs that ended: the next run's document replaces their tabs. */
  private readonly finished = new Set<string>();
  /** Streams named here (an adapter that names no document): numbered across sessions, so no two runs share a name. */
  private named = 0;
  private readonly subscriptions: vscode.Disposable[] = [];
  private readonly ended = new vscode.EventEmitter<FinishedRun>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  /** Fires when a run ends (after its last text was applied). */
  readonly onDidEndRun = this.ended.event;
  readonly onDidChange = this.changed.event;
  last: FinishedRun | undefined;

  constructor(
    private readonly log: vscode.LogOutputChannel,
    private readonly enabled: () => boolean,
  ) {
    this.subscriptions.push(
      vscode.workspace.registerTextDocumentContentProvider(RUN_SCHEME, this),
      vscode.debug.onDidReceiveDebugSessionCustomEvent(e => {
        if (e.session.type !== DEBUG_TYPE) return;
        if (e.event === TextEvent.event) this.onText(e.session, e.body as TextEvent.Body);
        else if (e.event === EndEvent.event) this.onEnd(e.session, e.body as EndEvent.Body);
      }),
      vscode.debug.onDidTerminateDebugSession(s => {
        for (const key of [...this.streams.keys()]) if (key === s.id || key.startsWith(`${s.id}#`)) this.streams.delete(key);
      }),
      vscode.workspace.onDidCloseTextDocument(d => {
        if (d.uri.scheme !== RUN_SCHEME) return;
        this.texts.delete(d.uri.toString());
        this.origins.delete(d.uri.toString());
      }),
      // A tab VS Code opens, or a preview tab it replaces (the source's, opened from Quick Open), at a stop.
      vscode.window.tabGroups.onDidChangeTabs(e => void this.closeDuplicates([...e.opened, ...e.changed])),
      this.ended,
      this.changed,
    );
  }

  /**
   * Shows `text` in a read-only document of this scheme beside the editor (a report such as "ART: Show Prompt"):
   * not a file, never dirty, not checked. Showing the same name again replaces the text.
   */
  async showText(name: string, text: string): Promise<vscode.TextEditor> {
    const uri = vscode.Uri.from({ scheme: RUN_SCHEME, path: `/${name.replace(/[\\/:*?"<>|]+/g, ' ').trim() || 'report'}.txt` });
    this.texts.set(uri.toString(), text);
    this.changed.fire(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    return vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: false });
  }

  /** The program (and task) a run's document came from, while the document is open: F5 there runs it again. */
  originOf(uri: vscode.Uri): RunOrigin | undefined {
    return this.origins.get(uri.toString());
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }

  /** A session's stream, or one sample's of a self-consistency run (each sample's program is a document). */
  private key(session: vscode.DebugSession, sample: { index: number } | undefined): string {
    return sample ? `${session.id}#${sample.index}` : session.id;
  }

  private stream(session: vscode.DebugSession, body: TextEvent.Body): Stream {
    const key = this.key(session, body.sample);
    let st = this.streams.get(key);
    if (!st || st.run !== body.run) {
      // The adapter names the document its stack frames name (client/debugAdapter/debugSession.ts), unique among runs.
      let uri = body.document ? vscode.Uri.parse(body.document) : undefined;
      if (uri?.scheme !== RUN_SCHEME) {
        const name = session.name.replace(/[\\/:*?"<>|]+/g, ' ').trim() || 'run';
        // The extension gives the language: `art-run` (highlighted as ART, not checked); agent and trigger runs are transcripts.
        const ext = body.kind === 'art' ? 'art-run' : 'txt';
        const sample = body.sample ? `, sample ${body.sample.index}` : '';
        uri = vscode.Uri.from({ scheme: RUN_SCHEME, path: `/${name} (run ${++this.named}${sample}).${ext}` });
      }
      const program: unknown = session.configuration.program;
      const source = typeof program === 'string' && isAbsolute(program) ? vscode.Uri.file(program) : undefined;
      st = { run: body.run, uri, text: '', shown: false, source };
      this.streams.set(key, st);
      const task: unknown = session.configuration.task;
      if (source)
        this.origins.set(uri.toString(), { program: source.fsPath, ...(typeof task === 'string' || typeof task === 'number' ? { task } : {}) });
    }
    return st;
  }

  private onText(session: vscode.DebugSession, body: TextEvent.Body): void {
    const st = this.stream(session, body);
    st.text = st.text.slice(0, body.from) + body.text;
    if (st.text.length !== body.length) this.log.warn(`streamed program: expected ${body.length} characters, have ${st.text.length}`);
    this.texts.set(st.uri.toString(), st.text);
    if (!st.shown && this.enabled()) {
      st.shown = true;
      void this.closeFinished()
        .then(() => this.show(st))
        // Opening or showing fails when the editors are closed meanwhile: the run goes on, the log says so.
        .then(undefined, e => this.log.warn(`streamed program: ${(e as Error).message}`));
    } else this.changed.fire(st.uri);
  }

  private onEnd(session: vscode.DebugSession, body: EndEvent.Body): void {
    const st = this.streams.get(this.key(session, body.sample));
    const uri = st && st.run === body.run && st.shown ? st.uri : undefined;
    if (uri) {
      this.texts.set(uri.toString(), body.text);
      this.changed.fire(uri);
    }
    if (st) this.finished.add(st.uri.toString());
    const finished: FinishedRun = { ...body, sessionName: session.name, uri };
    this.last = finished;
    this.ended.fire(finished);
  }

  /**
   * Shows a run's document beside the source, once. The source's editor is kept open first (a preview tab would be
   * replaced by the next editor opened in its group); a tab of it the debugger opened first is then closed.
   */
  private async show(st: Stream): Promise<void> {
    const active = vscode.window.activeTextEditor;
    if (active && active.document.uri.scheme !== RUN_SCHEME) await vscode.commands.executeCommand('workbench.action.keepEditor');
    const doc = await vscode.workspace.openTextDocument(st.uri);
    const editor = await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true, preview: false });
    st.column = editor.viewColumn;
    // The debugger may have opened it first, at the first stop, in the source's group.
    await this.closeDuplicates(this.tabsOf(st.uri));
  }

  private tabsOf(uri: vscode.Uri): vscode.Tab[] {
    const key = uri.toString();
    return vscode.window.tabGroups.all.flatMap(g => g.tabs).filter(t => t.input instanceof vscode.TabInputText && t.input.uri.toString() === key);
  }

  /**
   * A run's document opened a second time in another group (at a stop VS Code opens the frame's document in the
   * active group, the source's, whether or not it is open beside; a preview tab, the source's opened from Quick Open,
   * is replaced by it): that tab is closed, the one beside kept, and the source put back where it was replaced.
   */
  private async closeDuplicates(tabs: readonly vscode.Tab[]): Promise<void> {
    for (const t of tabs) {
      if (!(t.input instanceof vscode.TabInputText) || t.input.uri.scheme !== RUN_SCHEME) continue;
      const key = t.input.uri.toString();
      const st = [...this.streams.values()].find(x => x.uri.toString() === key);
      const column = t.group.viewColumn;
      if (st?.column === undefined || column === st.column || !this.tabsOf(st.uri).some(o => o.group.viewColumn === st.column)) continue;
      try {
        if (t.group.tabs.length === 1 && st.source)
          await vscode.window.showTextDocument(st.source, { viewColumn: column, preserveFocus: true, preview: false });
        const extra = this.tabsOf(st.uri).filter(o => o.group.viewColumn === column);
        if (extra.length) await vscode.window.tabGroups.close(extra, true);
      } catch (e) {
        this.log.warn(`streamed program: ${(e as Error).message}`);
      }
    }
  }

  /** Closes the tabs of finished runs' streamed documents: a new run's document takes their place. */
  private async closeFinished(): Promise<void> {
    const tabs = vscode.window.tabGroups.all
      .flatMap(g => g.tabs)
      .filter(t => t.input instanceof vscode.TabInputText && this.finished.has(t.input.uri.toString()));
    this.finished.clear();
    if (tabs.length) await vscode.window.tabGroups.close(tabs, true);
  }

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
  }
}
