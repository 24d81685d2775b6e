// The ART language server. Runs over stdio (`node dist/server.js --stdio`, for Neovim, Helix, Emacs, ...), over
// IPC when VS Code starts it (`--node-ipc`), or over a socket (`--socket=PORT`): createConnection reads the switch.
// Every feature is a module over core; this file only wires them to the connection, each handler guarded.
import {
  DiagnosticSeverity,
  DidChangeConfigurationNotification,
  DidChangeWatchedFilesNotification,
  ErrorCodes,
  LSPErrorCodes,
  ProposedFeatures,
  ResponseError,
  TextDocumentSyncKind,
  TextDocuments,
  createConnection,
  type CancellationToken,
  type InitializeParams,
  type InitializeResult,
  type TextDocumentContentChangeEvent,
  type MessageReader,
  type MessageWriter,
  type ResponseMessage,
} from 'vscode-languageserver/node';
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { LineIndex } from '../core/common/text';
import { TOOLS_FILE_NAME } from '../core/tools/toolsFile';
import { format } from 'node:util';
import { basename } from 'node:path';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { serverDocuments } from './document';
import { Analyzer } from './analysis';
import { CODE_ACTION_KINDS, codeActions } from './codeActions';
import { COMPLETION_TRIGGERS, completion } from './completion';
import type { ClientFeatures, ServerContext } from './context';
import { DiagnosticsPublisher } from './diagnostics';
import { foldingRanges } from './folding';
import { formatting } from './formatting';
import { describeError, guard, guardEvent, type Logger } from './guard';
import { hover } from './hover';
import { languageOf } from './languages';
import { definition, references } from './navigation';
import { programs } from './programs';
import { ProgramsRequest } from './protocol';
import { SEMANTIC_LEGEND, semanticTokens } from './semanticTokens';
import { SettingsStore } from './settings';
import { documentSymbols } from './symbols';
import { FramedMessageReader, slicedStreamWriter } from './transport';
import { WorkspaceTools, uriToPath, type ToolFileLoader } from './workspaceTools';

let shutdownReceived = false;

/**
 * Over stdio the server reads the framed messages itself, to see a framing error: after a bad Content-Length the
 * stream cannot be resynchronised and the server would silently stop answering. It says why on stderr and exits
 * non-zero, so that the client restarts it. Console output goes to stderr, never into the protocol on stdout.
 * Large messages are decoded and large answers serialised in slices (./transport), so that none holds the event loop
 * for long.
 */
function stdioTransport(): [MessageReader, MessageWriter] {
  // A well-framed body that is not JSON: the stream is still in step, so the server answers a parse error
  // (-32700, id null, as JSON-RPC says) and goes on reading.
  const writer = slicedStreamWriter(process.stdout);
  const reader = new FramedMessageReader(process.stdin, {
    onParseError: e => {
      const message = `Parse error: ${e.message.split('\n')[0]}`;
      process.stderr.write(`art-language-server: a message from the client is not JSON (${message}); answered with a parse error\n`);
      void writer.write({ jsonrpc: '2.0', id: null, error: { code: ErrorCodes.ParseError, message } } as ResponseMessage).catch(() => undefined);
    },
  });
  reader.onError(e => {
    process.stderr.write(
      `art-language-server: unreadable message from the client (${e.message.split('\n')[0]}); exiting so that the client restarts the server\n`,
    );
    process.exit(1);
  });
  reader.onClose(() => process.exit(shutdownReceived ? 0 : 1));
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const)
    console[level] = (...args: unknown[]) => void process.stderr.write(`${format(...args)}\n`);
  return [reader, writer];
}

const connection = process.argv.includes('--stdio')
  ? createConnection(ProposedFeatures.all, ...stdioTransport())
  : createConnection(ProposedFeatures.all);
// The document manager's update hook tells the analyzer where each edit was, before the text changes.
let recordEdit: (before: TextDocument, changes: TextDocumentContentChangeEvent[]) => void = () => undefined;
const documents = new TextDocuments({
  create: serverDocuments.create,
  update: (document, changes, version) => {
    recordEdit(document, changes);
    return serverDocuments.update(document, changes, version);
  },
});

const log: Logger = {
  info: m => connection.console.info(m),
  error: m => connection.console.error(m),
};
// Last line of defence: a bug must cost one answer, never the server.
process.on('uncaughtException', e => log.error(`uncaught: ${describeError(e)}`));
process.on('unhandledRejection', e => log.error(`unhandled rejection: ${describeError(e)}`));

/** The tool file's validator (zod) is loaded only when a workspace has a tool file: it would double start-up time. */
const loadToolFile: ToolFileLoader = async path => {
  if (!existsSync(path)) return { tools: [], problems: [] };
  const { loadToolFile: load } = await import('./toolFile');
  return load(path);
};

let settings: SettingsStore;
let publisher: DiagnosticsPublisher;
let tools: WorkspaceTools;
let workspaceRoot: string | null = null;
let watchedByClient = false;
let configurationRegistration = false;
let semanticRefresh = false;

const client: ClientFeatures = {
  snippets: false,
  markdownHover: false,
  markdownCompletion: false,
  definitionLinks: false,
  hierarchicalSymbols: false,
};

const ctx: ServerContext = {
  documents,
  analyzer: new Analyzer(() => tools.catalog),
  tools: () => tools.catalog,
  log,
  client,
};
recordEdit = (before, changes) => ctx.analyzer.edits.record(before, changes);

/** Before `initialize` a request gets the protocol's ServerNotInitialized error (-32002), not an empty answer. */
let initialized = false;
function afterInit<P, R>(handler: (params: P, token: CancellationToken) => R | Promise<R>): (params: P, token: CancellationToken) => Promise<R> {
  return async (params, token) => {
    if (!initialized) throw new ResponseError(ErrorCodes.ServerNotInitialized, 'the server is not initialized: send "initialize" first');
    // A request on a document being analysed waits for that analysis (which yields between its chunks, so other
    // requests are answered meanwhile) and is answered from it, never by a second, blocking analysis of its own.
    const uri = (params as { textDocument?: { uri?: unknown } })?.textDocument?.uri;
    const document = typeof uri === 'string' ? documents.get(uri) : undefined;
    if (document && !(await ctx.analyzer.settle(document, () => token.isCancellationRequested)))
      throw new ResponseError(LSPErrorCodes.RequestCancelled, 'request cancelled');
    return handler(params, token);
  };
}

connection.onInitialize((params: InitializeParams): InitializeResult => {
  initialized = true;
  const caps = params.capabilities;
  client.snippets = caps.textDocument?.completion?.completionItem?.snippetSupport === true;
  client.markdownHover = caps.textDocument?.hover?.contentFormat?.includes('markdown') === true;
  client.markdownCompletion = caps.textDocument?.completion?.completionItem?.documentationFormat?.includes('markdown') === true;
  client.definitionLinks = caps.textDocument?.definition?.linkSupport === true;
  client.hierarchicalSymbols = caps.textDocument?.documentSymbol?.hierarchicalDocumentSymbolSupport === true;
  const rangeLimit = caps.textDocument?.foldingRange?.rangeLimit;
  client.foldingRangeLimit = typeof rangeLimit === 'number' && rangeLimit > 0 ? rangeLimit : undefined;
  watchedByClient = caps.workspace?.didChangeWatchedFiles?.dynamicRegistration === true;
  configurationRegistration = caps.workspace?.didChangeConfiguration?.dynamicRegistration === true;
  semanticRefresh = caps.workspace?.semanticTokens?.refreshSupport === true;

  settings = new SettingsStore(connection, caps.workspace?.configuration === true, params.initializationOptions, log);
  publisher = new DiagnosticsPublisher(connection, documents, ctx.analyzer, settings, log);
  tools = new WorkspaceTools(
    loadToolFile,
    log,
    () => {
      ctx.analyzer.resetTools();
      publisher.scheduleAll();
      if (semanticRefresh) connection.languages.semanticTokens.refresh().catch(() => undefined);
    },
    // The tool file's errors and warnings (a shell line built from the model's text) as diagnostics on it.
    (path, text, problems) => {
      const index = new LineIndex(text);
      const diagnostics = problems.map(p => ({
        range: { start: index.position(p.start), end: index.position(p.end) },
        severity: p.severity === 'error' ? DiagnosticSeverity.Error : DiagnosticSeverity.Warning,
        source: 'art',
        message: p.message,
      }));
      void connection.sendDiagnostics({ uri: pathToFileURL(path).toString(), diagnostics });
    },
  );
  const root = params.workspaceFolders?.[0]?.uri ?? params.rootUri ?? null;
  workspaceRoot = root ? uriToPath(root) : (params.rootPath ?? null);
  // Load the tool file now (with the settings pushed at start) so the first diagnostics already know its tools.
  publisher.waitFor(tools.configure(workspaceRoot, settings.global.tools.file, !watchedByClient));

  return {
    capabilities: {
      textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
      completionProvider: { triggerCharacters: COMPLETION_TRIGGERS, resolveProvider: false },
      hoverProvider: true,
      definitionProvider: true,
      referencesProvider: true,
      documentSymbolProvider: { label: 'ART' },
      foldingRangeProvider: true,
      documentFormattingProvider: true,
      codeActionProvider: { codeActionKinds: CODE_ACTION_KINDS, resolveProvider: false },
      semanticTokensProvider: { legend: SEMANTIC_LEGEND, full: true, range: true },
      workspace: { workspaceFolders: { supported: true } },
    },
    serverInfo: { name: 'art-language-server', version: '0.1.0' },
  };
});

connection.onInitialized(
  guardEvent('initialized', log, async () => {
    if (configurationRegistration) {
      // Pull-model clients only send didChangeConfiguration for sections they were asked to watch.
      await connection.client.register(DidChangeConfigurationNotification.type, { section: 'art' }).catch(() => undefined);
    }
    const s = await settings.workspace();
    if (watchedByClient) {
      const globPattern = `**/${basename(s.tools.file) || TOOLS_FILE_NAME}`;
      await connection.client.register(DidChangeWatchedFilesNotification.type, { watchers: [{ globPattern }] }).catch(() => undefined);
    }
    await tools.configure(workspaceRoot, s.tools.file, !watchedByClient);
  }),
);

documents.onDidChangeContent(
  guardEvent('didChange', log, ({ document }) => {
    // Notifications before `initialize` are dropped, as the protocol says (the document is checked once opened after).
    if (initialized && languageOf(document.uri, document.languageId)) publisher.schedule(document);
  }),
);

documents.onDidClose(
  guardEvent('didClose', log, ({ document }) => {
    ctx.analyzer.forget(document.uri);
    settings.forget(document.uri);
    publisher.clear(document.uri);
  }),
);

connection.onDidChangeConfiguration(
  guardEvent('didChangeConfiguration', log, async params => {
    settings.changed(params.settings);
    const s = await settings.workspace();
    await tools.configure(workspaceRoot, s.tools.file, !watchedByClient);
    publisher.scheduleAll();
  }),
);

connection.onDidChangeWatchedFiles(
  guardEvent('didChangeWatchedFiles', log, async params => {
    if (params.changes.some(c => tools.isToolFile(c.uri))) await tools.reload();
  }),
);

connection.onCompletion(
  guard(
    'completion',
    log,
    null,
    afterInit(p => completion(ctx, p)),
  ),
);
connection.onHover(
  guard(
    'hover',
    log,
    null,
    afterInit(p => hover(ctx, p)),
  ),
);
connection.onDefinition(
  guard(
    'definition',
    log,
    null,
    afterInit(p => definition(ctx, p)),
  ),
);
connection.onReferences(
  guard(
    'references',
    log,
    null,
    afterInit(p => references(ctx, p)),
  ),
);
connection.onDocumentSymbol(
  guard(
    'documentSymbol',
    log,
    null,
    afterInit((p, token) => documentSymbols(ctx, p, token)),
  ),
);
connection.onFoldingRanges(
  guard(
    'foldingRange',
    log,
    null,
    afterInit((p, token) => foldingRanges(ctx, p, token)),
  ),
);
connection.onDocumentFormatting(
  guard(
    'formatting',
    log,
    null,
    afterInit(p => formatting(ctx, p)),
  ),
);
connection.onCodeAction(
  guard(
    'codeAction',
    log,
    null,
    afterInit(p => codeActions(ctx, p)),
  ),
);
connection.languages.semanticTokens.on(
  guard(
    'semanticTokens',
    log,
    { data: [] },
    afterInit((p, token) => semanticTokens(ctx, p, token)),
  ),
);
connection.languages.semanticTokens.onRange(
  guard(
    'semanticTokens/range',
    log,
    { data: [] },
    afterInit((p, token) => semanticTokens(ctx, p, token)),
  ),
);
connection.onRequest(
  ProgramsRequest.method,
  guard(
    'art/programs',
    log,
    null,
    afterInit((p: ProgramsRequest.Params, token): Promise<ProgramsRequest.Result> => programs(ctx, p, token)),
  ),
);

connection.onShutdown(() => {
  shutdownReceived = true;
  return tools?.dispose();
});

documents.listen(connection);
connection.listen();
