// The DAP tests' client: @vscode/debugadapter-testsupport's DebugClient on the built adapter (dist/debugAdapter.js,
// started as `node dist/debugAdapter.js` over stdio, as nvim-dap or VS Code would), with the little these tests
// add: the Debug Console's output, counts of events, VS Code's launch order, and closing every adapter a file started.
//
// DebugClient's waitForEvent() waits for the *next* event of a kind: start waiting before the request that causes
// it (`const stopped = c.waitForEvent('stopped'); await c.continueRequest(...); await stopped`).
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';

export const ADAPTER = join(__dirname, '../../dist/debugAdapter.js');

/** Events and responses are slow on a loaded 2-core machine (Python runs, the model streams): DebugClient's 5 s is short. */
const TIMEOUT_MS = 20_000;

export class ArtDebugClient extends DebugClient {
  /** Every adapter still running: a test that fails half-way must not leave one behind to hang the test process. */
  private static readonly live = new Set<ArtDebugClient>();
  private readonly outputs: DebugProtocol.OutputEvent[] = [];
  private readonly counts = new Map<string, number>();

  private constructor(opts: { cwd?: string; env?: NodeJS.ProcessEnv }) {
    super(process.execPath, ADAPTER, 'art', { cwd: opts.cwd, env: { ...process.env, ...opts.env } });
    this.defaultTimeout = TIMEOUT_MS;
    this.on('output', (e: DebugProtocol.OutputEvent) => this.outputs.push(e));
    for (const name of ['stopped', 'terminated'] as const) this.on(name, () => this.counts.set(name, this.count(name) + 1));
  }

  static async start(opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<ArtDebugClient> {
    const c = new ArtDebugClient(opts);
    await c.start();
    ArtDebugClient.live.add(c);
    return c;
  }

  /** Stops every adapter a test file started (use in `after`). */
  static async closeAll(): Promise<void> {
    await Promise.all([...ArtDebugClient.live].map(c => c.close()));
  }

  /**
   * disconnect (terminating the run), then the adapter's exit, killing it after 3 s. Not DebugClient.stop(): its
   * disconnect has no timeout, and waits forever on an adapter that already ended.
   */
  async close(): Promise<void> {
    ArtDebugClient.live.delete(this);
    // DebugClient keeps the child process private; the exit is what this waits for.
    const proc = (this as unknown as { _adapterProcess: ChildProcess | null })._adapterProcess;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>(resolve => proc.once('exit', () => resolve()));
    const within = (ms: number) => new Promise<void>(resolve => setTimeout(resolve, ms).unref());
    await Promise.race([this.disconnectRequest({ terminateDebuggee: true }).catch(() => undefined), exited, within(5000)]);
    await Promise.race([exited, within(3000)]);
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill();
      await exited;
    }
  }

  /** How many `stopped` / `terminated` events came so far. */
  count(event: 'stopped' | 'terminated'): number {
    return this.counts.get(event) ?? 0;
  }

  /** Everything the adapter printed through output events of the given categories (all when none given). */
  output(...categories: string[]): string {
    return this.outputs
      .filter(e => !categories.length || categories.includes(e.body.category ?? 'console'))
      .map(e => e.body.output)
      .join('');
  }

  /**
   * initialize, launch, `setup` (breakpoints), configurationDone, as VS Code orders them; resolves with the launch
   * response, rejects with the adapter's message when the launch fails.
   */
  async launchWith(
    args: Record<string, unknown>,
    setup: (c: ArtDebugClient) => Promise<void> = async () => {},
  ): Promise<DebugProtocol.LaunchResponse> {
    const initialized = this.waitForEvent('initialized');
    const init = await this.initializeRequest({ adapterID: 'art', clientID: 'test', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
    assert.ok(init.body?.supportsConfigurationDoneRequest, 'the adapter supports configurationDone');
    const launched = this.launchRequest(args as DebugProtocol.LaunchRequestArguments);
    launched.catch(() => {}); // the caller gets the rejection; it must not count as unhandled meanwhile
    await initialized;
    await setup(this);
    await this.configurationDoneRequest();
    return launched;
  }

  /** The variables of the top frame's scope `scopeName`, by name. */
  async variables(scopeName: string): Promise<Record<string, string>> {
    const ref = await this.scopeReference(scopeName);
    const vars = await this.variablesRequest({ variablesReference: ref });
    return Object.fromEntries(vars.body.variables.map(v => [v.name, v.value]));
  }

  /** The variablesReference of the top frame's scope `scopeName`. */
  async scopeReference(scopeName: string): Promise<number> {
    const frames = await this.stackTraceRequest({ threadId: 1 });
    const scopes = await this.scopesRequest({ frameId: frames.body.stackFrames[0].id });
    const scope = scopes.body.scopes.find(s => s.name === scopeName);
    assert.ok(scope, `no "${scopeName}" scope: ${scopes.body.scopes.map(s => s.name).join(', ')}`);
    return scope.variablesReference;
  }
}
