// A local server that answers as the model hub does (`/<owner>/<repo>/resolve/main/<file>`, HEAD and byte ranges),
// for the tests of getting local models (`art model pull`, *Download a Local Model…*): the hub is not reachable here,
// and node-llama-cpp's resolver takes another hub endpoint (HF_ENDPOINT).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A GGUF-looking file of `bytes` bytes (the magic, then a counter pattern): the downloader does not parse it. */
export function ggufBytes(bytes: number): Buffer {
  const b = Buffer.alloc(bytes);
  b.write('GGUF', 0, 'latin1');
  for (let i = 4; i < bytes; i++) b[i] = i % 251;
  return b;
}

export interface Hub {
  url: string;
  requests: string[];
  /** The Range header of each GET of a file ('-' for none), in order. */
  ranges: string[];
  close: () => Promise<void>;
  /** Resolves when the server has sent `n` bytes of file content in all. */
  sent: (n: number) => Promise<void>;
}

/**
 * Serves `files` (path under /owner/repo/resolve/main/ -> content) as the hub does, `chunk` bytes per write, paced.
 * `stallAfter`: a GET from the file's first byte sends that many bytes, then holds the connection open (a download that
 * has its later parts whole and its first one not).
 */
export async function modelHub(files: Record<string, Buffer>, opts: { paceMs?: number; chunk?: number; stallAfter?: number } = {}): Promise<Hub> {
  const requests: string[] = [];
  const ranges: string[] = [];
  let total = 0;
  const waiters: { n: number; resolve: () => void }[] = [];
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    requests.push(`${req.method} ${path}`);
    const body = files[path];
    if (!body) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Entry not found"}');
      return;
    }
    const m = /bytes=(\d+)-(\d*)/.exec(req.headers.range ?? '');
    const start = m ? Number(m[1]) : 0;
    const end = m && m[2] ? Number(m[2]) : body.length - 1;
    res.writeHead(m ? 206 : 200, {
      'content-length': end - start + 1,
      'accept-ranges': 'bytes',
      'content-type': 'application/octet-stream',
      ...(m ? { 'content-range': `bytes ${start}-${end}/${body.length}` } : {}),
    });
    if (req.method === 'HEAD') return void res.end();
    ranges.push(req.headers.range ?? '-');
    const chunk = opts.chunk ?? 1 << 20;
    const stall = start === 0 && opts.stallAfter !== undefined ? opts.stallAfter : Infinity;
    let at = start;
    const step = () => {
      if (res.destroyed || at - start >= stall) return;
      if (at > end) return void res.end();
      const piece = body.subarray(at, Math.min(end + 1, at + chunk, start + stall));
      at += piece.length;
      total += piece.length;
      for (const w of waiters.filter(w => total >= w.n)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      res.write(piece, () => (opts.paceMs ? setTimeout(step, opts.paceMs) : step()));
    };
    step();
  });
  await new Promise<void>(r => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    ranges,
    sent: n => (total >= n ? Promise.resolve() : new Promise(resolve => waiters.push({ n, resolve }))),
    close: () =>
      new Promise(r => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** One request a hostile hub saw: its method, path and Authorization header. */
export interface SeenRequest {
  method: string;
  path: string;
  authorization?: string;
}

export interface HostileHub {
  url: string;
  requests: SeenRequest[];
  close: () => Promise<void>;
}

/**
 * A hub mirror that answers each path as its route says (a redirect elsewhere, a 401 asking for the token, a body
 * without a length, a manifest naming 5,000 parts, a connection cut): 404 for any other path. Records every request
 * with its Authorization header, so a test sees where a token went.
 */
export async function hostileHub(routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void>): Promise<HostileHub> {
  const requests: SeenRequest[] = [];
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    requests.push({ method: req.method ?? '', path, ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
    const route = routes[path] ?? Object.entries(routes).find(([p]) => p.endsWith('*') && path.startsWith(p.slice(0, -1)))?.[1];
    if (route) route(req, res);
    else res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Entry not found"}');
  });
  await new Promise<void>(r => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    close: () =>
      new Promise(r => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Answers with `body` whole, its length announced (HEAD: the headers alone). */
export function serveWhole(res: ServerResponse, body: Buffer, headers: Record<string, string> = {}, req?: IncomingMessage): void {
  res.writeHead(200, { 'content-length': body.length, 'content-type': 'application/octet-stream', ...headers });
  res.end(req?.method === 'HEAD' ? undefined : body);
}
