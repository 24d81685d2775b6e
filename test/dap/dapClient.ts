// A small Debug Adapter Protocol client for the tests: it starts the built adapter (dist/debugAdapter.js) as a
// child process and speaks DAP over its stdio with Content-Length framing, as nvim-dap or VS Code would.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import type { DebugProtocol } from '@vscode/debugprotocol';

export const ADAPTER = join(__dirname, '../../dist/debugAdapter.js');

export class DapError extends Error {
  constructor(readonly response: DebugProtocol.Response) {
    super(response.body?.error?.format ?? response.message ?? `${response.command} failed`);
  }
}

export class DapClient {
  readonly events: DebugProtocol.Event[] = [];
  readonly stderr: string[] = [];
  private seq = 1;
  private buffer = Buffer.alloc(0);
  private readonly pending = new Map<number, (r: DebugProtocol.Response) => void>();
  private readonly listeners = new Set<() => void>();
  private exited = false;

  /** Every adapter still running: a test that fails half-way must not leave one behind to hang the test process. */
  private static readonly live = new Set<DapClient>();

  private constructor(readonly proc: ChildProcessWithoutNullStreams) {
    DapClient.live.add(this);
    proc.stdout.on('data', (d: Buffer) => this.receive(d));
    proc.stderr.on('data', (d: Buffer) => this.stderr.push(String(d)));
    proc.on('exit', () => {
      this.exited = true;
      DapClient.live.delete(this);
      for (const l of this.listeners) l();
    });
  }

  /** Closes every adapter a test file started (use in `after`). */
  static async closeAll(): Promise<void> {
    await Promise.all([...DapClient.live].map((c) => c.close()));
  }

  static start(opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): DapClient {
    return new DapClient(spawn(process.execPath, [ADAPTER], { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: 'pipe' }));
  }

  /** Sends a request; resolves with the response, rejects with a DapError when it failed. */
  request<R extends DebugProtocol.Response = DebugProtocol.Response>(command: string, args?: unknown, timeoutMs = 20_000): Promise<R> {
    const seq = this.seq++;
    const msg: DebugProtocol.Request = { seq, type: 'request', command, arguments: args };
    const json = JSON.stringify(msg);
    this.proc.stdin.write(`Content-Length: ${Buffer.byteLength(json, 'utf8')}\r\n\r\n${json}`);
    return new Promise<R>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(seq);
        reject(new Error(`no response to "${command}" within ${timeoutMs} ms${this.stderrTail()}`));
      }, timeoutMs);
      this.pending.set(seq, r => {
        clearTimeout(timer);
        if (r.success) resolve(r as R);
        else reject(new DapError(r));
      });
    });
  }

  /** The number of events so far: wait for events after this point with `waitFor(..., mark)`. */
  mark(): number {
    return this.events.length;
  }

  /** The first event named `name` (and matching `accept`) received at or after index `from`. */
  waitFor<E extends DebugProtocol.Event = DebugProtocol.Event>(name: string, from = 0, accept: (e: E) => boolean = () => true, timeoutMs = 20_000): Promise<E> {
    const find = () => this.events.slice(from).find(e => e.event === name && accept(e as E)) as E | undefined;
    const found = find();
    if (found) return Promise.resolve(found);
    return new Promise<E>((resolve, reject) => {
      const check = () => {
        const e = find();
        if (e) {
          done();
          resolve(e);
        } else if (this.exited) {
          done();
          reject(new Error(`the adapter exited before a "${name}" event${this.stderrTail()}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no "${name}" event within ${timeoutMs} ms; events: ${this.events.slice(from).map(e => e.event).join(', ')}${this.stderrTail()}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.listeners.delete(check);
      };
      this.listeners.add(check);
    });
  }

  /** Everything the adapter printed through output events of the given categories. */
  output(...categories: string[]): string {
    return this.events
      .filter((e): e is DebugProtocol.OutputEvent => e.event === 'output')
      .filter(e => !categories.length || categories.includes(e.body.category ?? 'console'))
      .map(e => e.body.output)
      .join('');
  }

  /** initialize, launch, the breakpoints, configurationDone, as VS Code orders them; resolves with the launch response. */
  async launch(args: Record<string, unknown>, setup: (c: DapClient) => Promise<void> = async () => {}): Promise<DebugProtocol.LaunchResponse> {
    const init = await this.request<DebugProtocol.InitializeResponse>('initialize', { adapterID: 'art', clientID: 'test', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
    if (!init.body?.supportsConfigurationDoneRequest) throw new Error('the adapter does not support configurationDone');
    const launched = this.request<DebugProtocol.LaunchResponse>('launch', args);
    await this.waitFor('initialized');
    await setup(this);
    await this.request('configurationDone');
    return launched;
  }

  async close(): Promise<void> {
    if (this.exited) return;
    await this.request('disconnect', { terminateDebuggee: true }, 5000).catch(() => undefined);
    await new Promise<void>(resolve => {
      if (this.exited) return resolve();
      const t = setTimeout(() => {
        this.proc.kill();
        resolve();
      }, 3000);
      this.proc.once('exit', () => {
        clearTimeout(t);
        resolve();
      });
    });
  }

  private stderrTail(): string {
    const s = this.stderr.join('').trim();
    return s ? `\nadapter stderr: ${s.slice(-800)}` : '';
  }

  private receive(data: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, data]);
    for (;;) {
      const headerEnd = this.buffer.indexOf('\r\n\r\n');
      if (headerEnd < 0) return;
      const m = /Content-Length: (\d+)/i.exec(this.buffer.subarray(0, headerEnd).toString('ascii'));
      if (!m) throw new Error(`bad DAP header: ${this.buffer.subarray(0, headerEnd).toString()}`);
      const length = Number(m[1]);
      const start = headerEnd + 4;
      if (this.buffer.length < start + length) return;
      const msg = JSON.parse(this.buffer.subarray(start, start + length).toString('utf8')) as DebugProtocol.ProtocolMessage;
      this.buffer = this.buffer.subarray(start + length);
      if (msg.type === 'response') {
        const r = msg as DebugProtocol.Response;
        this.pending.get(r.request_seq)?.(r);
        this.pending.delete(r.request_seq);
      } else if (msg.type === 'event') {
        this.events.push(msg as DebugProtocol.Event);
        for (const l of [...this.listeners]) l();
      }
    }
  }
}
