// `art model pull` against a hostile mirror (issue 37, item 4), each an attack that worked before: a redirect to another
// origin got the user's HF_TOKEN; a manifest naming a split model of 5,000 parts opened thousands of sockets; a body
// without a length had no cap and one cut short was reported whole; a Content-Disposition name replaced the default
// model; a planted progress file (`.partial/NAME.ipull`) that is a link was written through; a served name `.partial`
// was an internal error. Mirrors on 127.0.0.1 (test/support/modelHub.ts); `HF_TOKEN` given through the environment.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listModelFiles, pullModel, PullError } from '../../../core/model/modelFiles';
import { DEFAULT_LOCAL_MODEL } from '../../../core/model/defaultModel';
import { ggufBytes, hostileHub, serveWhole, type HostileHub } from '../../support/modelHub';

const TOKEN = 'hf_attackTestToken0000000000000000';
const tmp = () => mkdtempSync(join(tmpdir(), 'art-pull-attack-'));
const oneLine = (pattern: RegExp) => (e: unknown) => {
  assert.ok(e instanceof PullError, `not a PullError: ${(e as Error).stack}`);
  assert.ok(!e.message.includes('\n'), e.message);
  assert.match(e.message, pattern);
  return true;
};

// node-llama-cpp read the token from the process's environment: the attacks set it there as a user would.
let saved: string | undefined;
before(() => {
  saved = process.env.HF_TOKEN;
  process.env.HF_TOKEN = TOKEN;
});
after(() => {
  if (saved === undefined) delete process.env.HF_TOKEN;
  else process.env.HF_TOKEN = saved;
});

/** Runs `work` against a mirror answering `routes`, with a models folder of its own; both are gone after. */
async function withMirror(routes: Parameters<typeof hostileHub>[0], work: (hub: HostileHub, dir: string) => Promise<void>): Promise<void> {
  const hub = await hostileHub(routes);
  const dir = tmp();
  try {
    await work(hub, dir);
  } finally {
    await hub.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('art model pull against a hostile mirror: the token', () => {
  /** Asks for the token (401) until it is given, then answers as `then` says. */
  const asksForToken =
    (then: (req: IncomingMessage, res: ServerResponse) => void) =>
    (req: IncomingMessage, res: ServerResponse): void => {
      if (!req.headers.authorization) res.writeHead(401, { 'www-authenticate': 'Bearer realm="hub"' }).end('{"error":"give your token"}');
      else then(req, res);
    };

  test('a mirror that asks for HF_TOKEN gets it, and the origin it redirects to never does, even when that origin asks', async () => {
    const body = ggufBytes(1 << 20);
    const cdn = await hostileHub({ '/blob/*': asksForToken((req, res) => serveWhole(res, body, {}, req)) });
    const hub = await hostileHub({
      '/o/r/resolve/main/m.gguf': asksForToken((_req, res) => void res.writeHead(302, { location: `${cdn.url}blob/m.gguf` }).end()),
    });
    const dir = tmp();
    try {
      await assert.rejects(pullModel({ uri: 'hf:o/r/m.gguf', dir, hubEndpoint: hub.url, env: { HF_TOKEN: TOKEN } }), oneLine(/401/));
      assert.deepEqual(
        cdn.requests.filter(r => r.authorization),
        [],
        'the other origin got the token',
      );
      assert.ok(
        hub.requests.some(r => r.authorization === `Bearer ${TOKEN}`),
        `the hub it was given for gets it: ${JSON.stringify(hub.requests)}`,
      );
    } finally {
      await Promise.all([hub.close(), cdn.close()]);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a redirect to another origin that serves without a token is followed, without the token', async () => {
    const body = ggufBytes(1 << 20);
    const cdn = await hostileHub({ '/blob/m.gguf': (req, res) => serveWhole(res, body, {}, req) });
    const hub = await hostileHub({
      '/o/r/resolve/main/m.gguf': asksForToken((_req, res) => void res.writeHead(302, { location: `${cdn.url}blob/m.gguf` }).end()),
    });
    const dir = tmp();
    try {
      const path = await pullModel({ uri: 'hf:o/r/m.gguf', dir, hubEndpoint: hub.url, env: { HF_TOKEN: TOKEN } });
      assert.ok(readFileSync(path).equals(body));
      assert.deepEqual(
        cdn.requests.filter(r => r.authorization),
        [],
      );
    } finally {
      await Promise.all([hub.close(), cdn.close()]);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a URL on the hub host but another port (another origin) gets no token, even when it asks', async () => {
    const other = await hostileHub({ '/o/r/resolve/main/m.gguf': asksForToken((req, res) => serveWhole(res, ggufBytes(1024), {}, req)) });
    const hub = await hostileHub({});
    const dir = tmp();
    try {
      await assert.rejects(
        pullModel({ uri: `${other.url}o/r/resolve/main/m.gguf`, dir, hubEndpoint: hub.url, env: { HF_TOKEN: TOKEN } }),
        oneLine(/401/),
      );
      assert.deepEqual(
        other.requests.filter(r => r.authorization),
        [],
      );
    } finally {
      await Promise.all([hub.close(), other.close()]);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('art model pull against a hostile mirror: what its lines show', () => {
  test("no line shows the mirror URL's password, the URI's query or the token a mirror echoes", async () => {
    await withMirror(
      {
        '/o/r/resolve/main/m.gguf': (_req, res) =>
          void res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `the token ${TOKEN} is not valid here` })),
        '/files/m.gguf': (_req, res) => void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Entry not found"}'),
      },
      async (hub, dir) => {
        // Before: "Request cannot be constructed from a URL that includes credentials: http://hubuser:MirrorPassw0rd@…".
        const withPassword = hub.url.replace('http://', 'http://hubuser:MirrorPassw0rd@');
        for (const uri of ['hf:o/r/m.gguf', 'hf:o/r'])
          await assert.rejects(pullModel({ uri, dir, env: { HF_ENDPOINT: withPassword } }), (e: unknown) => {
            assert.doesNotMatch((e as Error).message, /MirrorPassw0rd/);
            return oneLine(/HF_ENDPOINT/)(e);
          });
        // Before: the hub's own words, the token in them, were the line's end.
        await assert.rejects(pullModel({ uri: 'hf:o/r/m.gguf', dir, hubEndpoint: hub.url, env: { HF_TOKEN: TOKEN } }), (e: unknown) => {
          assert.ok(!(e as Error).message.includes(TOKEN.slice(3)), (e as Error).message);
          return oneLine(/401/)(e);
        });
        // Before: the URI, a signed URL's signature in its query, began the line.
        await assert.rejects(pullModel({ uri: `${hub.url}files/m.gguf?X-Amz-Signature=SignedUrlSecret123`, dir }), (e: unknown) => {
          assert.doesNotMatch((e as Error).message, /SignedUrlSecret123/);
          return oneLine(/404/)(e);
        });
      },
    );
  });
});

describe('art model pull against a hostile mirror: bounds', () => {
  test('a mirror that sends nothing ends the pull: the manifest as a file (the idle bound, shortened here)', async () => {
    // Before: the manifest had no bound (the pull waited for good, whatever the docs said of 60 s); a file had one.
    await withMirror(
      {
        '/v2/o/r/manifests/latest': () => {},
        '/o/r/resolve/main/m.gguf': (_req, res) => void res.writeHead(200, { 'content-length': 1024 }).write('GGUF'),
      },
      async (hub, dir) => {
        await assert.rejects(
          pullModel({ uri: 'hf:o/r', dir, hubEndpoint: hub.url, idleMs: 200 }),
          oneLine(/answered nothing for 0\.2 s for the manifest/),
        );
        await assert.rejects(pullModel({ uri: 'hf:o/r/m.gguf', dir, hubEndpoint: hub.url, idleMs: 200 }), oneLine(/sent nothing for 0\.2 s/));
      },
    );
  });

  test('an error answer with an endless body is read no further than its first words', async () => {
    // Before: the whole body was read into memory (512 MB sent, 1.2 GB held), and an endless one until memory ran out.
    const chunk = Buffer.alloc(1 << 20, 'x');
    let sent = 0;
    let closed!: Promise<void>;
    await withMirror(
      {
        '/o/r/resolve/main/m.gguf': (_req, res) => {
          closed = new Promise(done => res.on('close', done));
          res.writeHead(500, { 'content-type': 'text/plain' });
          const more = () => (sent < 128 << 20 && !res.destroyed ? res.write(chunk, () => ((sent += chunk.length), more())) : res.end());
          more();
        },
      },
      async (hub, dir) => {
        await assert.rejects(pullModel({ uri: 'hf:o/r/m.gguf', dir, hubEndpoint: hub.url }), oneLine(/answered 500/));
        await closed;
        assert.ok(sent < 32 << 20, `${sent >> 20} MB of the error's body were taken`);
      },
    );
  });

  test('a manifest naming a split model of 5,000 parts is refused in one line, before any part is asked for', async () => {
    await withMirror(
      {
        '/v2/o/r/manifests/Q4_K_M': (_req, res) =>
          void res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ ggufFile: { rfilename: 'm-Q4_K_M-00001-of-05000.gguf' } })),
      },
      async (hub, dir) => {
        await assert.rejects(pullModel({ uri: 'hf:o/r:Q4_K_M', dir, hubEndpoint: hub.url }), oneLine(/5000 parts/));
        assert.deepEqual(
          hub.requests.filter(r => r.path.includes('/resolve/')),
          [],
          'parts were asked for',
        );
      },
    );
  });

  test('a body without a length stops at the cap; one cut short is never a model; one with no framing is refused', async () => {
    const chunk = ggufBytes(64 << 10);
    const hub = await hostileHub({
      // 8 MB in chunks, no length: past the pull's cap of 1 MB.
      '/o/r/resolve/main/endless.gguf': (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        let n = 0;
        const more = () => (n++ < 128 ? res.write(chunk, more) : res.end());
        more();
      },
      // 512 KB, no length, then the connection is cut.
      '/o/r/resolve/main/cut.gguf': (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        let n = 0;
        const more = () => (n++ < 8 ? res.write(chunk, more) : res.destroy());
        more();
      },
      // A length announced, half of it sent, then the connection cut.
      '/o/r/resolve/main/half.gguf': (_req, res) => {
        res.writeHead(200, { 'content-length': 2 * chunk.length, 'content-type': 'application/octet-stream' });
        res.write(chunk, () => res.destroy());
      },
      // HTTP/1.0's way: neither a length nor chunks, the end of the body is the end of the connection.
      '/o/r/resolve/main/unframed.gguf': (req, res) => {
        res.socket!.end(`HTTP/1.1 200 OK\r\nconnection: close\r\n\r\n${chunk.toString('latin1')}`, 'latin1');
        req.resume();
      },
    });
    const dir = tmp();
    try {
      await assert.rejects(pullModel({ uri: 'hf:o/r/endless.gguf', dir, hubEndpoint: hub.url, maxBytes: 1 << 20 }), oneLine(/1 MB/));
      await assert.rejects(pullModel({ uri: 'hf:o/r/cut.gguf', dir, hubEndpoint: hub.url }), oneLine(/cut short|broke off/));
      await assert.rejects(pullModel({ uri: 'hf:o/r/half.gguf', dir, hubEndpoint: hub.url }), oneLine(/cut short|broke off/));
      await assert.rejects(pullModel({ uri: 'hf:o/r/unframed.gguf', dir, hubEndpoint: hub.url }), oneLine(/no size/));
      assert.deepEqual(listModelFiles(dir), [], 'a download cut short was reported whole');
    } finally {
      await hub.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('art model pull against a hostile mirror: names and progress files', () => {
  test('a Content-Disposition name never replaces the default model; a name already in the folder is refused', async () => {
    const body = ggufBytes(256 << 10);
    await withMirror(
      {
        '/files/other.gguf': (req, res) =>
          serveWhole(res, body, { 'content-disposition': `attachment; filename="${DEFAULT_LOCAL_MODEL.file}"` }, req),
      },
      async (hub, dir) => {
        const mine = join(dir, DEFAULT_LOCAL_MODEL.file);
        writeFileSync(mine, 'the default model, as the user has it');
        const path = await pullModel({ uri: `${hub.url}files/other.gguf`, dir, hubEndpoint: hub.url });
        assert.equal(path, join(dir, 'other.gguf'));
        assert.equal(readFileSync(mine, 'utf8'), 'the default model, as the user has it');
        writeFileSync(path, 'an older other.gguf');
        await assert.rejects(pullModel({ uri: `${hub.url}files/other.gguf`, dir, hubEndpoint: hub.url }), oneLine(/exists already/));
        assert.equal(readFileSync(path, 'utf8'), 'an older other.gguf');
      },
    );
  });

  test('a planted progress file that is a link is refused and the file it points to is unchanged', async () => {
    const body = ggufBytes(256 << 10);
    await withMirror({ '/o/r/resolve/main/m.gguf': (req, res) => serveWhole(res, body, {}, req) }, async (hub, dir) => {
      const victim = join(tmp(), 'victim');
      writeFileSync(victim, 'precious\n');
      mkdirSync(join(dir, '.partial'));
      symlinkSync(victim, join(dir, '.partial/m.gguf.ipull'));
      await assert.rejects(pullModel({ uri: 'hf:o/r/m.gguf', dir, hubEndpoint: hub.url }), oneLine(/symbolic link/));
      assert.equal(readFileSync(victim, 'utf8'), 'precious\n');
      assert.deepEqual(listModelFiles(dir), []);
    });
  });

  test('a planted progress file that does not match (sparse, 1.6 GB) is not resumed: the pull starts over', async () => {
    const body = ggufBytes(256 << 10);
    await withMirror({ '/o/r/resolve/main/m.gguf': (req, res) => serveWhole(res, body, {}, req) }, async (hub, dir) => {
      mkdirSync(join(dir, '.partial'));
      writeFileSync(join(dir, '.partial/m.gguf.ipull'), '');
      truncateSync(join(dir, '.partial/m.gguf.ipull'), 1_600_000_000);
      const path = await pullModel({ uri: 'hf:o/r/m.gguf', dir, hubEndpoint: hub.url });
      assert.ok(readFileSync(path).equals(body));
      assert.deepEqual(readdirSync(join(dir, '.partial')), [], 'the planted file is gone');
    });
  });

  test('a planted NAME.ipull.json that is a FIFO is not read: the pull starts over', async () => {
    // Before: the description was read with readFileSync, which waits on a FIFO for a writer: the pull (and, for
    // Download a Local Model…, the extension host) blocked for good, deaf to Ctrl-C and Cancel.
    const body = ggufBytes(256 << 10);
    await withMirror({ '/o/r/resolve/main/m.gguf': (req, res) => serveWhole(res, body, {}, req) }, async (hub, dir) => {
      mkdirSync(join(dir, '.partial'));
      writeFileSync(join(dir, '.partial/m.gguf.ipull'), body.subarray(0, 1000));
      execFileSync('mkfifo', [join(dir, '.partial/m.gguf.ipull.json')]);
      await assert.rejects(pullModel({ uri: 'hf:o/r/m.gguf', dir, hubEndpoint: hub.url }), oneLine(/m\.gguf\.ipull\.json: not a regular file/));
      assert.deepEqual(listModelFiles(dir), []);
    });
  });

  test('a served name that is not a plain .gguf file name (".partial") is one line', async () => {
    await withMirror(
      {
        '/v2/o/r/manifests/latest': (_req, res) =>
          void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ggufFile: { rfilename: '.partial' } })),
        '/o/r/resolve/main/.partial': (req, res) => serveWhole(res, ggufBytes(1024), {}, req),
      },
      async (hub, dir) => {
        await assert.rejects(pullModel({ uri: 'hf:o/r', dir, hubEndpoint: hub.url }), oneLine(/not a plain \.gguf file name/));
        await assert.rejects(
          pullModel({ uri: `${hub.url}o/r/resolve/main/.partial`, dir, hubEndpoint: hub.url }),
          oneLine(/not a plain \.gguf file name/),
        );
        assert.ok(!existsSync(join(dir, '.partial')) || readdirSync(join(dir, '.partial')).length === 0);
      },
    );
  });
});
