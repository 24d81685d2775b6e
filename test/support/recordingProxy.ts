// A pass-through HTTP proxy on 127.0.0.1 in front of a real server (llamaServer.ts): every request is forwarded as it
// is and its answer streamed back unchanged, and the proxy records what the client sent (path and JSON body) and how
// many requests were in flight at once. The real-server tests read from it what only the wire shows: the field a
// constraint went in, the tools offered, the concurrency an evaluation reached, that a cached run sent nothing.
import { request } from 'node:http';
import { LoopbackServer } from './loopback';

export interface ProxiedRequest {
  method: string;
  path: string;
  /** The JSON body (undefined for a GET or a body that is not JSON). */
  body: Record<string, any> | undefined;
  /** The status the server answered. */
  status?: number;
}

export class RecordingProxy extends LoopbackServer {
  readonly requests: ProxiedRequest[] = [];
  /** The most requests in flight at once. */
  maxInFlight = 0;
  private inFlight = 0;

  constructor(private readonly target: string) {
    super();
  }

  /** The model requests (POSTs to a completions route), in order. */
  get completions(): ProxiedRequest[] {
    return this.requests.filter(r => r.method === 'POST' && /\/completions$/.test(r.path));
  }

  start(): Promise<this> {
    const target = new URL(this.target);
    return this.listen((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', c => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        let body: Record<string, any> | undefined;
        try {
          body = raw.length ? JSON.parse(raw.toString('utf8')) : undefined;
        } catch {
          body = undefined;
        }
        const rec: ProxiedRequest = { method: req.method ?? 'GET', path: (req.url ?? '').replace(/\?.*$/, ''), body };
        this.requests.push(rec);
        this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight);
        let done = false;
        const finish = () => {
          if (!done) this.inFlight--;
          done = true;
        };
        const out = request(
          // A connection of its own per request (no pooled socket a client's abort could have destroyed).
          {
            host: target.hostname,
            port: target.port,
            method: req.method,
            path: req.url,
            headers: { ...req.headers, host: target.host },
            agent: false,
          },
          up => {
            rec.status = up.statusCode;
            res.writeHead(up.statusCode ?? 502, up.headers);
            up.pipe(res);
            up.on('end', finish);
            up.on('error', finish);
          },
        );
        out.on('error', e => {
          finish();
          if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { message: `proxy: ${e.message}` } }));
        });
        // The client went away (an abort at a stop or a tool call): the request to the server ends too.
        res.on('close', () => {
          if (!done) out.destroy();
          finish();
        });
        out.end(raw);
      });
    });
  }
}
