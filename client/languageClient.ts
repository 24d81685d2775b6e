// Starts the ART language server (dist/server.js) as a child process over stdio and connects it to `.art` and
// `.agent` documents. Over stdio, not IPC: the server's own transport (server/transport.ts) reads a large document
// and writes a large answer in slices, where Node's IPC channel parses and serialises each message in one go,
// holding the server's event loop that long on a large library (docs/performance.md). The server reads its
// settings itself from the `art` section (workspace/configuration).
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { LanguageClient, TransportKind, Trace, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import { SERVER_NODE_FLAGS, type DocumentStatusParams } from '../server/protocol';
import { documentStatusNotification } from './protocol';
import { TOOLS_FILE_NAME } from '../core/tools/toolsFile';
import type { TraceSetting } from './settings';

export const ART_LANGUAGES = ['art', 'art-agent'] as const;

/** The schemes of the documents the language server checks. */
export const CHECKED_SCHEMES = ['file', 'untitled', 'vscode-vfs', 'vscode-remote'] as const;

/** The documents the language server checks (and the Run/Debug lenses go on). */
export const CHECKED_DOCUMENTS = ART_LANGUAGES.flatMap(language => CHECKED_SCHEMES.map(scheme => ({ language, scheme })));

export function createLanguageClient(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, toolsFile: string): LanguageClient {
  const module = context.asAbsolutePath('dist/server.js');
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.stdio, options: { execArgv: [...SERVER_NODE_FLAGS] } },
    // Started with --inspect when the extension itself is being debugged (F5 on this repository).
    debug: { module, transport: TransportKind.stdio, options: { execArgv: [...SERVER_NODE_FLAGS, '--nolazy', '--inspect=6010'] } },
  };
  const clientOptions: LanguageClientOptions = {
    // Files and untitled buffers (and virtual workspaces' files) are checked; a run's streamed program (`art-run:`)
    // and the debugger's own documents (`debug:`) are not: an unfinished program is not a mistake to report.
    documentSelector: CHECKED_DOCUMENTS,
    outputChannel: log,
    synchronize: {
      // Tool files change the catalog (completion, `tool-name-typo`); the server re-checks on these events.
      fileEvents: vscode.workspace.createFileSystemWatcher(`**/${basename(toolsFile) || TOOLS_FILE_NAME}`),
    },
  };
  return new LanguageClient('art', 'ART Language Server', serverOptions, clientOptions);
}

/** Applies `art.server.trace` (the client's own `art.trace.server` key is not contributed, to keep one prefix). */
export async function applyTrace(client: LanguageClient, setting: TraceSetting): Promise<void> {
  await client.setTrace(Trace.fromString(setting));
}

const statusEvents = new WeakMap<LanguageClient, vscode.Event<DocumentStatusParams>>();

/**
 * The server's `art/documentStatus` notifications (one after each analysis of a document version) as an event any
 * number of listeners can follow: the language client keeps one handler per notification, so this registers the one.
 */
export function documentStatus(client: LanguageClient): vscode.Event<DocumentStatusParams> {
  let event = statusEvents.get(client);
  if (!event) {
    const emitter = new vscode.EventEmitter<DocumentStatusParams>();
    client.onNotification(documentStatusNotification, p => emitter.fire(p));
    event = emitter.event;
    statusEvents.set(client, event);
  }
  return event;
}
