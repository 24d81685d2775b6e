// A small LSP client for the server tests: spawns the REAL built server (`node dist/server.js --stdio`) and
// speaks to it with vscode-languageserver-protocol, answering workspace/configuration with test settings.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, readdirSync, rmdirSync, statSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  StreamMessageReader,
  StreamMessageWriter,
  createProtocolConnection,
  type ClientCapabilities,
  type InitializeResult,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
  type TextDocumentContentChangeEvent,
} from 'vscode-languageserver-protocol/node';

/** The checkout: the nearest folder up from here with scripts/build.mjs (this file may run bundled elsewhere). */
function findRoot(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'scripts/build.mjs'))) return dir;
    if (dirname(dir) === dir) return resolve(__dirname, '../..');
  }
}

export const ROOT = findRoot();
import { FIXTURES } from '../support/fixtures';
import { SERVER_NODE_FLAGS } from '../../server/protocol';

export { FIXTURES };
export const SERVER = join(ROOT, 'dist/server.js');

function newest(dir: string): number {
  let t = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const s = statSync(p);
    t = Math.max(t, s.isDirectory() ? newest(p) : s.mtimeMs);
  }
  return t;
}

/** Builds dist/server.js with the project's build script when it is missing or older than its sources. */
export function ensureServerBuilt(): void {
  // scripts/test.mjs built dist/ before any test file started: rebuilding it now, because someone edited core/
  // meanwhile, would swap the adapter and the CLI under the test files running beside this one.
  if (process.env.ART_TEST_DIST_BUILT && existsSync(SERVER)) return;
  const stale = () => !existsSync(SERVER) || statSync(SERVER).mtimeMs < Math.max(newest(join(ROOT, 'server')), newest(join(ROOT, 'core')));
  if (!stale()) return;
  // Test files run in parallel: one builds, the others wait for it.
  const lock = join(ROOT, 'dist/.server-build.lock');
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lock}`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    if (!stale()) return;
    const r = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`node scripts/build.mjs failed:\n${r.stdout}\n${r.stderr}`);
  } finally {
    rmdirSync(lock);
  }
}

export const fileUri = (path: string) => pathToFileURL(path).href;

export const FULL_CAPABILITIES: ClientCapabilities = {
  workspace: { configuration: true, didChangeConfiguration: { dynamicRegistration: true }, workspaceFolders: true },
  textDocument: {
    synchronization: { dynamicRegistration: false },
    completion: { completionItem: { snippetSupport: true, documentationFormat: ['markdown', 'plaintext'] } },
    hover: { contentFormat: ['markdown', 'plaintext'] },
    definition: { linkSupport: false },
    documentSymbol: { hierarchicalDocumentSymbolSupport: true },
    codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix', 'source.fixAll'] } } },
    publishDiagnostics: { relatedInformation: true, versionSupport: true },
    semanticTokens: { requests: { full: true, range: true }, tokenTypes: [], tokenModifiers: [], formats: ['relative'] },
  },
};

export interface StartOptions {
  /** The `art` section answered to workspace/configuration. */
  settings?: Record<string, unknown>;
  initializationOptions?: unknown;
  capabilities?: ClientCapabilities;
  rootPath?: string;
  /** Node options for the server process after SERVER_NODE_FLAGS, the client's own (the scale benchmark passes `ART_BENCH_SERVER_ARGS`, e.g. --cpu-prof). */
  nodeArgs?: string[];
}

export class LspClient {
  readonly diagnostics: PublishDiagnosticsParams[] = [];
  readonly logs: string[] = [];
  /** `art/documentStatus` notifications, in order. */
  readonly statuses: { uri: string; version: number; language: string; units: number; errors: number; warnings: number }[] = [];
  /** The `art` section answered to workspace/configuration (tests change it, then send didChangeConfiguration). */
  settings: Record<string, unknown> = {};
  stderr = '';
  private waiters: { match: (p: PublishDiagnosticsParams) => boolean; resolve: (p: PublishDiagnosticsParams) => void }[] = [];
  initializeResult!: InitializeResult;
  /** Milliseconds from spawn to the initialize result. */
  readyMs = 0;

  private constructor(
    readonly process: ChildProcessWithoutNullStreams,
    readonly connection: ProtocolConnection,
  ) {}

  static async start(options: StartOptions = {}): Promise<LspClient> {
    ensureServerBuilt();
    const t0 = performance.now();
    const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, ...(options.nodeArgs ?? []), SERVER, '--stdio'], { cwd: ROOT, stdio: 'pipe' });
    const connection = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
    const client = new LspClient(child, connection);
    child.stderr.on('data', d => (client.stderr += String(d)));
    connection.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => {
      client.diagnostics.push(p);
      client.waiters = client.waiters.filter(w => (w.match(p) ? (w.resolve(p), false) : true));
    });
    connection.onNotification('window/logMessage', (p: { message: string }) => {
      client.logs.push(p.message);
    });
    client.settings = options.settings ?? {};
    connection.onNotification('art/documentStatus', (p: LspClient['statuses'][number]) => {
      client.statuses.push(p);
    });
    connection.onRequest('workspace/configuration', (p: { items: { section?: string }[] }) =>
      p.items.map(i => (i.section === 'art' ? client.settings : null)),
    );
    connection.onRequest('client/registerCapability', () => null);
    connection.onRequest('workspace/semanticTokens/refresh', () => null);
    connection.listen();
    const root = options.rootPath ?? FIXTURES;
    client.initializeResult = await connection.sendRequest('initialize', {
      processId: process.pid,
      rootUri: fileUri(root),
      workspaceFolders: [{ uri: fileUri(root), name: 'test' }],
      capabilities: options.capabilities ?? FULL_CAPABILITIES,
      initializationOptions: options.initializationOptions,
    });
    client.readyMs = performance.now() - t0;
    await connection.sendNotification('initialized', {});
    return client;
  }

  request<R>(method: string, params: unknown): Promise<R> {
    return this.connection.sendRequest(method, params) as Promise<R>;
  }

  notify(method: string, params: unknown): Promise<void> {
    return this.connection.sendNotification(method, params);
  }

  /** A publish for `uri` at `version` (any version when undefined), already received or the next one. */
  waitForDiagnostics(uri: string, version?: number, timeoutMs = 10_000): Promise<PublishDiagnosticsParams> {
    return this.waitForPublish(p => p.uri === uri && (version === undefined || p.version === version), `${uri} v${version}`, timeoutMs);
  }

  /** A publish that satisfies `match`, already received or the next one. */
  waitForPublish(match: (p: PublishDiagnosticsParams) => boolean, what = 'diagnostics', timeoutMs = 10_000): Promise<PublishDiagnosticsParams> {
    const seen = this.diagnostics.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolvePromise, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no publish of ${what} within ${timeoutMs} ms\n${this.stderr}\n${this.logs.join('\n')}`)),
        timeoutMs,
      );
      this.waiters.push({ match, resolve: p => (clearTimeout(timer), resolvePromise(p)) });
    });
  }

  async open(uri: string, text: string, languageId = 'art', version = 1, timeoutMs?: number): Promise<PublishDiagnosticsParams> {
    const wait = this.waitForDiagnostics(uri, version, timeoutMs);
    await this.notify('textDocument/didOpen', { textDocument: { uri, languageId, version, text } });
    return wait;
  }

  async change(uri: string, version: number, changes: TextDocumentContentChangeEvent[], timeoutMs?: number): Promise<PublishDiagnosticsParams> {
    const wait = this.waitForDiagnostics(uri, version, timeoutMs);
    await this.notify('textDocument/didChange', { textDocument: { uri, version }, contentChanges: changes });
    return wait;
  }

  async stop(): Promise<number | null> {
    const exited = new Promise<number | null>(r => this.process.once('exit', code => r(code)));
    try {
      await Promise.race([this.request('shutdown', null), new Promise(r => setTimeout(r, 2000))]);
      await this.notify('exit', null);
    } catch {
      /* already gone */
    }
    const timer = setTimeout(() => this.process.kill(), 3000);
    const code = await exited;
    clearTimeout(timer);
    this.connection.dispose();
    return code;
  }
}
