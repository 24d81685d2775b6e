// The ART Studio extension: starts the language server for `.art` and `.agent` files, shows a status bar item and
// a log channel, and hands the debugger (runner) what it needs. Activation is cheap: the server starts in the
// background and activate() returns at once.
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { applyTrace, createLanguageClient } from './languageClient';
import { activateRunner, endRunnerTelemetry, type RunnerApi } from './runner/activate';
import type { LibraryTests } from './testing/libraryTests';
import { readSettings } from './settings';
import { ArtStatusBar } from './statusBar';
import { registerLanguageModelTools } from './lm/tools';
import { putCliOnPath } from './cliOnPath';

/** What activate() returns: used by the integration tests and by other extensions. */
export interface ArtStudioApi {
  readonly client: LanguageClient;
  /** Resolves once the language server has answered `initialize`. */
  readonly serverReady: Promise<void>;
  readonly statusBar: ArtStatusBar;
  readonly timings: { activateMs: number; serverReadyMs?: number };
  /** Programs as tests (the Test Explorer's controller and the last outcomes). */
  readonly tests: LibraryTests;
  /** The runner's views: the streamed programs, the trace view, the run history and the agent diagrams. */
  readonly runner: RunnerApi;
}

let client: LanguageClient | undefined;

export function activate(context: vscode.ExtensionContext): ArtStudioApi {
  const started = performance.now();
  const log = vscode.window.createOutputChannel('ART Studio', { log: true });
  context.subscriptions.push(log);
  const settings = readSettings();
  if (!vscode.workspace.isTrusted) {
    log.info('Restricted mode: diagnostics and editing features work; no tool, model or program runs until the workspace is trusted.');
  }

  putCliOnPath(context, log);
  client = createLanguageClient(context, log, settings.toolsFile);
  const languageClient = client;
  const statusBar = new ArtStatusBar(languageClient);
  context.subscriptions.push(statusBar);

  context.subscriptions.push(
    vscode.commands.registerCommand('art.showOutput', () => log.show(true)),
    vscode.commands.registerCommand('art.restartServer', async () => {
      log.info('Restarting the language server');
      await languageClient.restart();
    }),
    vscode.workspace.onDidChangeConfiguration(e => {
      if (e.affectsConfiguration('art.server.trace')) void applyTrace(languageClient, readSettings().serverTrace);
    }),
  );

  const timings: ArtStudioApi['timings'] = { activateMs: 0 };
  const serverReady = languageClient.start().then(
    async () => {
      timings.serverReadyMs = performance.now() - started;
      log.info(`Language server ready in ${timings.serverReadyMs.toFixed(0)} ms (${context.asAbsolutePath('dist/server.js')})`);
      await applyTrace(languageClient, settings.serverTrace);
    },
    (e: unknown) => {
      log.error(`The language server did not start: ${e instanceof Error ? e.message : String(e)}`);
      void vscode.window
        .showErrorMessage('ART Studio: the language server did not start. See the "ART Studio" output for details.', 'Show Log')
        .then(choice => {
          if (choice) log.show();
        });
      throw e;
    },
  );
  serverReady.catch(() => {
    /* reported above; callers that await it see the rejection */
  });

  // The runner: the inline `art` debug adapter, its configurations, CodeLenses, trace view and commands.
  const runner = activateRunner(context, { client: languageClient, log, settings: readSettings });
  // The language model tools of the editor's agent mode (client/lm/tools.ts): the agent tools package.json declares
  // (generated from core/agentTools/), acting on the same runner.
  const names = (
    (context.extension.packageJSON as { contributes?: { languageModelTools?: { name: string }[] } }).contributes?.languageModelTools ?? []
  ).map(t => t.name);
  context.subscriptions.push(registerLanguageModelTools({ runner, log, settings: readSettings, names }));

  timings.activateMs = performance.now() - started;
  log.info(`Activated in ${timings.activateMs.toFixed(1)} ms; starting the language server`);
  return { client: languageClient, serverReady, statusBar, timings, tests: runner.tests, runner };
}

export async function deactivate(): Promise<void> {
  const c = client;
  client = undefined;
  await endRunnerTelemetry();
  // A server that never started has nothing to stop; stop() would throw.
  if (c?.isRunning()) await c.stop();
}
