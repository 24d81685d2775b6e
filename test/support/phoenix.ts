// Arize Phoenix, a real engine that takes OpenTelemetry traces over OTLP/HTTP, for the phoenix suite (test/phoenix,
// `npm run test:phoenix`): `phoenix serve` from the PyPI package arize-phoenix, installed by `npm run setup` in a
// virtualenv outside the checkout (~/.cache/art-studio/phoenix-venv, or ART_PHOENIX_VENV). Each start is a server
// of its own on 127.0.0.1, on free ports, with its database in a temporary folder; stop() ends it and removes that.
// Its spans are read back through its REST API (`GET /v1/projects/{project}/spans`).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './telemetry';
import { setupError } from './provision';

export const PHOENIX_VENV =
  process.env.ART_PHOENIX_VENV ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'art-studio', 'phoenix-venv');
const PHOENIX = join(PHOENIX_VENV, 'bin', 'phoenix');

/** The one line that says Phoenix is missing and how to get it, or undefined when it is there. */
export function phoenixMissing(): string | undefined {
  if (existsSync(PHOENIX)) return undefined;
  const where = process.env.ART_PHOENIX_VENV ? `${PHOENIX_VENV} (from ART_PHOENIX_VENV)` : PHOENIX_VENV;
  return `phoenix suite: Arize Phoenix is not installed: no ${PHOENIX} in ${where}; \`npm run setup\` installs it from PyPI`;
}

/** Fails the calling test file with that one line when Phoenix is missing. */
export function requirePhoenix(): void {
  const missing = phoenixMissing();
  if (!missing) return;
  throw setupError(missing);
}

/** A span as Phoenix's REST API returns it. */
export interface PhoenixSpan {
  name: string;
  context: { trace_id: string; span_id: string };
  parent_id: string | null;
  span_kind: string;
  status_code: string;
  status_message: string;
  start_time: string;
  end_time: string;
  attributes: Record<string, unknown>;
  events: { name: string; timestamp: string; attributes: Record<string, unknown> }[];
}

export class Phoenix {
  private log = '';
  private constructor(
    private readonly child: ChildProcess,
    readonly baseURL: string,
    private readonly dir: string,
  ) {
    child.stdout?.on('data', d => (this.log += d));
    child.stderr?.on('data', d => (this.log += d));
  }

  /** `phoenix serve` on free ports; resolves once it answers /healthz (its start takes 11 s here when quiet, about 50 s at a load average of 25). */
  static async start(timeoutMs = 240_000): Promise<Phoenix> {
    requirePhoenix();
    const [port, grpc] = [await freePort(), await freePort()];
    const dir = mkdtempSync(join(tmpdir(), 'art-phoenix-'));
    const child = spawn(PHOENIX, ['serve'], {
      env: {
        ...process.env,
        PHOENIX_HOST: '127.0.0.1',
        PHOENIX_PORT: String(port),
        PHOENIX_GRPC_PORT: String(grpc),
        PHOENIX_WORKING_DIR: dir,
        PHOENIX_TELEMETRY_ENABLED: 'false',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const phoenix = new Phoenix(child, `http://127.0.0.1:${port}`, dir);
    const exited = new Promise<never>((_, reject) =>
      child.once('exit', code => reject(new Error(`phoenix serve exited (${code}) before it was ready:\n${phoenix.log.slice(-2000)}`))),
    );
    const end = Date.now() + timeoutMs;
    // Its readiness is a state with no event to await: poll /healthz.
    for (;;) {
      const ok = await Promise.race([
        fetch(`${phoenix.baseURL}/healthz`).then(
          r => r.ok,
          () => false,
        ),
        exited,
      ]).catch(async e => {
        await phoenix.stop();
        throw e;
      });
      if (ok) return phoenix;
      if (Date.now() > end) {
        await phoenix.stop();
        throw new Error(`phoenix serve did not answer /healthz within ${timeoutMs} ms:\n${phoenix.log.slice(-2000)}`);
      }
      await new Promise(r => setTimeout(r, 200));
    }
  }

  /** Every span of a project, read back through the REST API (all pages). */
  async spans(project = 'default'): Promise<PhoenixSpan[]> {
    const out: PhoenixSpan[] = [];
    let cursor: string | null = null;
    do {
      const url = new URL(`${this.baseURL}/v1/projects/${encodeURIComponent(project)}/spans`);
      url.searchParams.set('limit', '1000');
      if (cursor) url.searchParams.set('cursor', cursor);
      const r = await fetch(url);
      if (r.status === 404) return [];
      if (!r.ok) throw new Error(`phoenix: GET ${url}: ${r.status} ${await r.text()}`);
      const page = (await r.json()) as { data: PhoenixSpan[]; next_cursor: string | null };
      out.push(...page.data);
      cursor = page.next_cursor;
    } while (cursor);
    return out;
  }

  /** Ends the server (SIGTERM, then SIGKILL after 10 s) and removes its database. */
  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const gone = new Promise<void>(done => this.child.once('exit', () => done()));
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
      await gone;
      clearTimeout(timer);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
