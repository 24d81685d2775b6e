// Diagnostics: published on open and after every change, debounced per document (`art.diagnostics.debounceMs`),
// and dropped when a newer version arrives while they are being computed (each schedule is a new generation).
import type { Connection, TextDocuments } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Analysis, Analyzer } from './analysis';
import type { Diagnostic as LspDiagnostic } from 'vscode-languageserver';
import { toLspDiagnostic } from './convert';
import { describeError, yieldToEventLoop, type Logger } from './guard';
import { DocumentStatusNotification } from './protocol';

/** Diagnostics converted to LSP between two yields. */
const CONVERT_SLICE = 2000;
import type { SettingsStore } from './settings';

export class DiagnosticsPublisher {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly generations = new Map<string, number>();
  /** Work that must finish before diagnostics mean anything (loading the workspace tool file). */
  private ready: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly connection: Connection,
    private readonly documents: TextDocuments<TextDocument>,
    private readonly analyzer: Analyzer,
    private readonly settings: SettingsStore,
    private readonly log: Logger,
  ) {}

  waitFor(p: Promise<unknown>): void {
    const next = this.ready.then(() => p).catch(() => undefined);
    this.ready = next;
  }

  /** A document opened or changed: (re)start its debounce timer; older pending work becomes stale. */
  schedule(document: TextDocument): void {
    const uri = document.uri;
    const generation = (this.generations.get(uri) ?? 0) + 1;
    this.generations.set(uri, generation);
    clearTimeout(this.timers.get(uri));
    const start = (debounceMs: number) => {
      if (this.generations.get(uri) !== generation) return;
      this.timers.set(
        uri,
        setTimeout(() => {
          this.timers.delete(uri);
          this.run(uri, generation).catch(e => this.log.error(`[diagnostics] ${describeError(e)}`));
        }, debounceMs),
      );
    };
    const known = this.settings.peek(uri);
    if (known) start(known.diagnostics.debounceMs);
    else
      this.settings.for(uri).then(
        s => start(s.diagnostics.debounceMs),
        () => start(0),
      );
  }

  /** Every open document again (settings or the tool catalog changed). */
  scheduleAll(): void {
    for (const d of this.documents.all()) this.schedule(d);
  }

  /** A document closed: stop its work and clear what was shown. */
  clear(uri: string): void {
    clearTimeout(this.timers.get(uri));
    this.timers.delete(uri);
    this.generations.set(uri, (this.generations.get(uri) ?? 0) + 1);
    this.connection.sendDiagnostics({ uri, diagnostics: [] }).catch(() => undefined);
  }

  private async run(uri: string, generation: number): Promise<void> {
    const document = this.documents.get(uri);
    if (!document) return;
    const version = document.version;
    const superseded = () => this.generations.get(uri) !== generation || this.documents.get(uri)?.version !== version;
    await this.ready;
    const settings = await this.settings.for(uri);
    if (superseded()) return;
    if (!settings.diagnostics.enable) {
      await this.connection.sendDiagnostics({ uri, version, diagnostics: [] });
      return;
    }
    let analysis: Analysis | null;
    try {
      analysis = await this.analyzer.analyze(document, superseded);
      // A request may have started the analysis this run shared and given up on it: run it again unless superseded.
      while (!analysis && !superseded()) analysis = await this.analyzer.analyze(document, superseded);
    } catch (e) {
      // A bug in core must not leave stale diagnostics on screen nor take the server down.
      this.log.error(`[diagnostics] analysing ${uri} failed: ${describeError(e)}`);
      analysis = null;
      await this.connection.sendDiagnostics({ uri, version, diagnostics: [] });
      return;
    }
    if (!analysis || superseded()) return;
    // Thousands of diagnostics (a large library) are converted a slice at a time, after a yield: the analysis that
    // made them has just held the event loop.
    const diagnostics: LspDiagnostic[] = [];
    const all = analysis.diagnostics;
    for (let i = 0; i < all.length; i += CONVERT_SLICE) {
      if (all.length > CONVERT_SLICE) {
        await yieldToEventLoop();
        if (superseded()) return;
      }
      for (let j = i; j < Math.min(all.length, i + CONVERT_SLICE); j++) diagnostics.push(toLspDiagnostic(document, all[j]));
    }
    await this.connection.sendDiagnostics({ uri, version, diagnostics });
    let errors = 0;
    let warnings = 0;
    for (const d of analysis.diagnostics) {
      if (d.severity === 'error') errors++;
      else if (d.severity === 'warning') warnings++;
    }
    const units = analysis.kind === 'art' ? analysis.doc.programs.filter(p => !p.template).length : analysis.file.agents.length;
    const status: DocumentStatusNotification.Params = { uri, version, language: analysis.kind, units, errors, warnings };
    await this.connection.sendNotification(DocumentStatusNotification.method, status);
  }
}
