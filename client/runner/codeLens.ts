// "Run" and "Debug" above each runnable program of a task library and each agent of a spec (the server's list).
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { isCotPrompt } from '../../core/launch/companions';
import { documentStatus } from '../languageClient';
import { askUnits } from './programs';

export const RUN_COMMAND = 'art.runProgram';
export const DEBUG_COMMAND = 'art.debugProgram';

/** Whether a document is shown in an editor (only those have lenses to ask for). */
const shown = (uri: string): boolean => vscode.window.visibleTextEditors.some(e => e.document.uri.toString() === uri);

/** The waits before reminding VS Code of a shown document's lenses it has not asked for (see RunCodeLenses.remind). */
const REMIND_AFTER_MS = [2000, 4000, 8000, 16000];

export class RunCodeLenses implements vscode.CodeLensProvider {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;
  /**
   * Each document VS Code asked about (by URI): the version its lenses were made from, or undefined while it has none
   * from the server (no answer yet, the document unknown to the server yet, an answer for an older version).
   */
  private readonly made = new Map<string, number | undefined>();
  /** The version each document's lenses are being asked for (its answer will come). */
  private readonly asking = new Map<string, number>();
  /** The pending reminder of each shown document VS Code has not asked about. */
  private readonly reminders = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly subscriptions: vscode.Disposable[] = [this.changed];

  constructor(
    private readonly client: LanguageClient | undefined,
    private readonly log: vscode.LogOutputChannel,
  ) {
    if (client)
      this.subscriptions.push(
        // The server has analysed a version of a shown document: if its lenses were asked for but not made from that
        // version (asked before the server had the document or had analysed it), ask again, now that the answer is
        // there; if VS Code has not asked for them yet, it will (or is reminded to).
        documentStatus(client)(p => {
          if (!shown(p.uri) || this.made.get(p.uri) === p.version || this.asking.get(p.uri) === p.version) return;
          if (this.made.has(p.uri)) this.changed.fire();
          else this.remind(p.uri, 0);
        }),
      );
    this.subscriptions.push(
      vscode.workspace.onDidCloseTextDocument(d => this.made.delete(d.uri.toString())),
      { dispose: () => this.reminders.forEach(clearTimeout) },
    );
  }

  /** The server (re)started or its tools changed: ask again. */
  refresh(): void {
    this.changed.fire();
  }

  /**
   * VS Code's first request for the lenses of a newly opened editor can be lost: seen in code-server, for an editor
   * opened as the extension activates (4 runs in 5) and now and then later, the editor's other providers are asked
   * and this one never is, neither then nor on a change event in the next second or so, until the text changes. While a shown document's lenses have not been asked for at all,
   * the change event is fired after each of REMIND_AFTER_MS (there is no event saying the editor is ready; a change
   * event also restarts VS Code's own wait before asking, so the first comes once it has had time to ask).
   */
  private remind(uri: string, attempt: number): void {
    if (this.reminders.has(uri) || attempt >= REMIND_AFTER_MS.length) return;
    this.reminders.set(
      uri,
      setTimeout(() => {
        this.reminders.delete(uri);
        if (this.made.has(uri) || !shown(uri)) return;
        this.log.info(`CodeLenses: VS Code has not asked for those of ${vscode.workspace.asRelativePath(vscode.Uri.parse(uri))}; reminding it`);
        this.changed.fire();
        this.remind(uri, attempt + 1);
      }, REMIND_AFTER_MS[attempt]),
    );
  }

  async provideCodeLenses(doc: vscode.TextDocument, token?: vscode.CancellationToken): Promise<vscode.CodeLens[]> {
    // A MultiTool-CoT prompt (NAME.cot.txt) is one runnable unit, the whole file: its lenses sit on its first line.
    if (isCotPrompt(doc.uri.path)) {
      const top = new vscode.Range(0, 0, 0, 0);
      return [
        new vscode.CodeLens(top, {
          title: '$(play) Run',
          tooltip: 'Run this MultiTool-CoT prompt to the end',
          command: RUN_COMMAND,
          arguments: [doc.uri],
        }),
        new vscode.CodeLens(top, {
          title: '$(debug-alt) Debug',
          tooltip: 'Debug this MultiTool-CoT prompt: pause at every <<Tool>> trigger',
          command: DEBUG_COMMAND,
          arguments: [doc.uri],
        }),
      ];
    }
    const key = doc.uri.toString();
    const version = doc.version;
    clearTimeout(this.reminders.get(key));
    this.reminders.delete(key);
    if (!this.made.has(key)) this.made.set(key, undefined);
    // No time limit: on a loaded machine the server may take seconds, and VS Code cancels the request when the
    // document changes. No answer, or one for another version, gives no lenses: the server's status for this version,
    // which comes after its analysis, asks again.
    this.asking.set(key, version);
    let answer;
    try {
      answer = await askUnits(doc, this.client, this.log, token);
    } finally {
      if (this.asking.get(key) === version) this.asking.delete(key);
    }
    const units = answer?.version === version ? answer.units : undefined;
    if (!token?.isCancellationRequested && this.made.has(key)) this.made.set(key, units ? version : undefined);
    return (units ?? [])
      .filter(u => !u.notRunnable)
      .flatMap(u => {
        const range = new vscode.Range(u.line, 0, u.line, 0);
        const what = u.kind === 'agent' ? `agent ${u.title}` : `program ${u.task} (${u.title})`;
        return [
          new vscode.CodeLens(range, { title: '$(play) Run', tooltip: `Run ${what} to the end`, command: RUN_COMMAND, arguments: [doc.uri, u.task] }),
          new vscode.CodeLens(range, {
            title: '$(debug-alt) Debug',
            tooltip: `Debug ${what}: pause at every tool call`,
            command: DEBUG_COMMAND,
            arguments: [doc.uri, u.task],
          }),
        ];
      });
  }

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
  }
}
