// The status bar item for the active `.art` / `.agent` editor: how many programs (or agents) the file holds and how
// many errors it has. Programs come from the server (`art/programs`, `art/documentStatus`), errors from VS Code's
// own diagnostics collection, so the count always matches the Problems panel.
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { documentStatusNotification, programsRequest } from './protocol';
import { ART_LANGUAGES } from './languageClient';

const REFRESH_DELAY_MS = 100;

export class ArtStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('art.status', vscode.StatusBarAlignment.Right, 100);
  private readonly disposables: vscode.Disposable[] = [this.item];
  /** Agents per document (uri -> count), from the server's documentStatus notifications. */
  private readonly agentCounts = new Map<string, number>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private generation = 0;
  private shown = false;

  constructor(private readonly client: LanguageClient, private readonly log: vscode.LogOutputChannel) {
    this.item.name = 'ART Studio';
    this.item.command = 'art.showOutput';
    this.disposables.push(
      vscode.window.onDidChangeActiveTextEditor(() => this.schedule()),
      vscode.languages.onDidChangeDiagnostics(e => {
        const active = vscode.window.activeTextEditor?.document.uri.toString();
        if (active && e.uris.some(u => u.toString() === active)) this.schedule();
      }),
      client.onNotification(documentStatusNotification, p => {
        if (p.language === 'agent') this.agentCounts.set(p.uri, p.units);
        if (p.uri === vscode.window.activeTextEditor?.document.uri.toString()) this.schedule();
      }),
      vscode.workspace.onDidCloseTextDocument(d => this.agentCounts.delete(d.uri.toString())),
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
    this.timer = setTimeout(() => void this.refresh(), REFRESH_DELAY_MS);
  }

  private async refresh(): Promise<void> {
    const generation = ++this.generation;
    const doc = vscode.window.activeTextEditor?.document;
    if (!doc || !(ART_LANGUAGES as readonly string[]).includes(doc.languageId)) {
      this.item.hide();
      this.shown = false;
      return;
    }
    const errors = vscode.languages.getDiagnostics(doc.uri).filter(d => d.severity === vscode.DiagnosticSeverity.Error).length;
    let units: string;
    if (doc.languageId === 'art') {
      let programs: number | undefined;
      try {
        const result = await this.client.sendRequest(programsRequest, { textDocument: { uri: doc.uri.toString() } });
        programs = result?.programs.filter(p => !p.template).length;
      } catch (e) {
        this.log.warn(`art/programs failed for ${doc.uri.fsPath}: ${e instanceof Error ? e.message : String(e)}`);
      }
      units = programs === undefined ? '? programs' : plural(programs, 'program');
    } else {
      const agents = this.agentCounts.get(doc.uri.toString());
      units = agents === undefined ? '? agents' : plural(agents, 'agent');
    }
    if (generation !== this.generation) return; // a newer refresh started while we waited on the server
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

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
