// The status bar item for the active `.art` / `.agent` editor: how many programs (or agents) the file holds and how
// many errors it has. Programs and agents come from the server (`art/documentStatus`), errors from VS Code's
// own diagnostics collection, so the count always matches the Problems panel.
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { ART_LANGUAGES, CHECKED_SCHEMES, documentStatus } from './languageClient';
import { plural } from '../core/common/counts';

const REFRESH_DELAY_MS = 100;

export class ArtStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('art.status', vscode.StatusBarAlignment.Right, 100);
  private readonly disposables: vscode.Disposable[] = [this.item];
  /** Programs or agents per document (uri -> count), from the server's documentStatus notifications. */
  private readonly unitCounts = new Map<string, number>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private shown = false;

  constructor(client: LanguageClient) {
    this.item.name = 'ART Studio';
    this.item.command = 'art.showOutput';
    this.disposables.push(
      vscode.window.onDidChangeActiveTextEditor(() => this.schedule()),
      vscode.languages.onDidChangeDiagnostics(e => {
        const active = vscode.window.activeTextEditor?.document.uri.toString();
        if (active && e.uris.some(u => u.toString() === active)) this.schedule();
      }),
      documentStatus(client)(p => {
        this.unitCounts.set(p.uri, p.units);
        if (p.uri === vscode.window.activeTextEditor?.document.uri.toString()) this.schedule();
      }),
      vscode.workspace.onDidCloseTextDocument(d => this.unitCounts.delete(d.uri.toString())),
    );
    this.schedule();
  }

  /** The text shown, for tests and the log. */
  get text(): string {
    return this.item.text;
  }

  get visible(): boolean {
    return this.shown;
  }

  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.refresh(), REFRESH_DELAY_MS);
  }

  private refresh(): void {
    const doc = vscode.window.activeTextEditor?.document;
    // A run's streamed program and the debugger's documents are not checked: no counts for them.
    if (!doc || !(ART_LANGUAGES as readonly string[]).includes(doc.languageId) || !(CHECKED_SCHEMES as readonly string[]).includes(doc.uri.scheme)) {
      this.item.hide();
      this.shown = false;
      return;
    }
    const errors = vscode.languages.getDiagnostics(doc.uri).filter(d => d.severity === vscode.DiagnosticSeverity.Error).length;
    const count = this.unitCounts.get(doc.uri.toString());
    const word = doc.languageId === 'art' ? 'program' : 'agent';
    const units = count === undefined ? `? ${word}s` : plural(count, word);
    this.item.text = `$(symbol-method) ${units}  $(error) ${errors}`;
    this.item.tooltip = `ART Studio: ${units}, ${plural(errors, 'error')} in ${vscode.workspace.asRelativePath(doc.uri)}. Click for the log.`;
    this.item.backgroundColor = errors ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    this.item.show();
    this.shown = true;
  }

  dispose(): void {
    clearTimeout(this.timer);
    for (const d of this.disposables) d.dispose();
  }
}
