// The generated program in an untitled editor beside the source, growing as the model writes it (the session's
// `art/text` events are applied as edits), and what each finished run left behind: its program, answer and trace,
// for "Save as Demonstration" and "Open Trace". When the developer edits the streamed document, it stops following
// the run, so a correction is never overwritten.
import * as vscode from 'vscode';
import { DEBUG_TYPE, EndEvent, TextEvent } from './protocol';

interface Stream {
  run: number;
  doc?: Promise<vscode.TextDocument | undefined>;
  /** The text this stream last wrote; a document that differs was edited by the developer. */
  written: string;
  detached: boolean;
  queue: Promise<void>;
}

export interface FinishedRun extends EndEvent.Body {
  sessionName: string;
  /** The streamed document, when there is one. */
  document?: vscode.TextDocument;
}

export class ProgramStreams implements vscode.Disposable {
  private readonly streams = new Map<string, Stream>();
  private readonly subscriptions: vscode.Disposable[] = [];
  private readonly ended = new vscode.EventEmitter<FinishedRun>();
  /** Fires when a run ends (after its last text was applied). */
  readonly onDidEndRun = this.ended.event;
  last: FinishedRun | undefined;

  constructor(
    private readonly log: vscode.LogOutputChannel,
    private readonly enabled: () => boolean,
  ) {
    this.subscriptions.push(
      vscode.debug.onDidReceiveDebugSessionCustomEvent(e => {
        if (e.session.type !== DEBUG_TYPE) return;
        if (e.event === TextEvent.event) this.onText(e.session, e.body as TextEvent.Body);
        else if (e.event === EndEvent.event) this.onEnd(e.session, e.body as EndEvent.Body);
      }),
      vscode.debug.onDidTerminateDebugSession(s => {
        // Keep the entry until its queue drained; documents stay open for the developer.
        const st = this.streams.get(s.id);
        if (st) void st.queue.then(() => this.streams.delete(s.id));
      }),
      this.ended,
    );
  }

  /** The streamed document of a session's current run. */
  async documentOf(session: vscode.DebugSession): Promise<vscode.TextDocument | undefined> {
    return this.streams.get(session.id)?.doc;
  }

  private stream(session: vscode.DebugSession, run: number): Stream {
    let st = this.streams.get(session.id);
    if (!st || st.run !== run) {
      st = { run, written: '', detached: false, queue: st?.queue ?? Promise.resolve() };
      this.streams.set(session.id, st);
    }
    return st;
  }

  private onText(session: vscode.DebugSession, body: TextEvent.Body): void {
    if (!this.enabled()) return;
    const st = this.stream(session, body.run);
    st.queue = st.queue.then(() => this.apply(st, body)).catch(e => this.log.warn(`streamed program: ${(e as Error).message}`));
  }

  private async apply(st: Stream, body: TextEvent.Body): Promise<void> {
    if (st.detached) return;
    st.doc ??= Promise.resolve(
      vscode.workspace.openTextDocument({ language: body.kind === 'art' ? 'art' : 'plaintext', content: '' }).then(async doc => {
        await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true, preview: false });
        return doc;
      }),
    );
    const doc = await st.doc;
    if (!doc || doc.isClosed) return;
    if (doc.getText() !== st.written) {
      st.detached = true;
      this.log.info('The streamed program was edited: it no longer follows the run (the edits are kept).');
      return;
    }
    const next = st.written.slice(0, body.from) + body.text;
    const edit = new vscode.WorkspaceEdit();
    edit.replace(doc.uri, new vscode.Range(doc.positionAt(body.from), doc.positionAt(doc.getText().length)), body.text);
    if (!(await vscode.workspace.applyEdit(edit))) {
      st.detached = true;
      return;
    }
    st.written = next;
  }

  private onEnd(session: vscode.DebugSession, body: EndEvent.Body): void {
    const st = this.streams.get(session.id);
    const done = async () => {
      const document = st && st.run === body.run ? await st.doc : undefined;
      const finished: FinishedRun = { ...body, sessionName: session.name, document: document && !document.isClosed ? document : undefined };
      this.last = finished;
      this.ended.fire(finished);
    };
    if (st) st.queue = st.queue.then(done, done);
    else void done();
  }

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
  }
}
