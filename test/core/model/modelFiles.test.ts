// Getting local model files (core/model/modelFiles.ts over core/model/download.ts): `hf:` URIs resolved against a local
// server that answers as the hub does (`/<owner>/<repo>/resolve/main/<file>`, ranges), since the hub is not reachable
// here. Progress, cancellation with the partial file kept and resumed, the default model's digest, the
// models folder and the listing.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listModelFiles, modelsFolder, pullModel, PullError } from '../../../core/model/modelFiles';
import { DEFAULT_LOCAL_MODEL } from '../../../core/model/defaultModel';
import { ggufBytes, modelHub as hub } from '../../support/modelHub';

const tmp = () => mkdtempSync(join(tmpdir(), 'art-models-'));

describe('local model files', () => {
  test('the models folder is outside any workspace: ART_MODELS_DIR, else the XDG cache, else ~/.cache', () => {
    assert.equal(modelsFolder({ ART_MODELS_DIR: '/m' }), '/m');
    assert.equal(modelsFolder({ XDG_CACHE_HOME: '/c' }), '/c/art-studio/models');
    assert.match(modelsFolder({}), /\.cache\/art-studio\/models$/);
  });

  test('an hf: URI is resolved through the hub and downloaded with progress; the listing shows it', async () => {
    const body = ggufBytes(3 << 20);
    const h = await hub({ '/someone/tiny-GGUF/resolve/main/tiny-q8.gguf': body });
    const dir = tmp();
    try {
      const seen: number[] = [];
      const path = await pullModel({
        uri: 'hf:someone/tiny-GGUF/tiny-q8.gguf',
        dir,
        hubEndpoint: h.url,
        onProgress: p => seen.push(p.downloadedBytes / p.totalBytes),
      });
      assert.ok(readFileSync(path).equals(body), 'the file is the served one, whole');
      assert.ok(seen.length > 0 && seen.at(-1) === 1, `progress reported up to the whole file: ${seen.join(', ')}`);
      assert.ok(
        h.requests.every(r => r.endsWith('/someone/tiny-GGUF/resolve/main/tiny-q8.gguf')),
        h.requests.join('\n'),
      );
      const listed = listModelFiles(dir);
      assert.deepEqual(
        listed.map(f => [f.path, f.bytes]),
        [[path, body.length]],
      );
    } finally {
      await h.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a cancelled pull leaves no file under a model name, and the next pull resumes it: the bytes already there are not fetched again', async () => {
    const body = ggufBytes(4 << 20);
    const file = '/someone/tiny-GGUF/resolve/main/slow.gguf';
    const dir = tmp();
    // The hub sends 256 KB, then holds the connection; the pull is cancelled once it has written them.
    const stallAfter = 256 << 10;
    const first = await hub({ [file]: body }, { chunk: 64 << 10, stallAfter });
    try {
      const ac = new AbortController();
      let written!: () => void;
      const allWritten = new Promise<void>(r => (written = r));
      const pulling = pullModel({
        uri: 'hf:someone/tiny-GGUF/slow.gguf',
        dir,
        hubEndpoint: first.url,
        signal: ac.signal,
        onProgress: p => {
          if (p.downloadedBytes >= stallAfter) written();
        },
      });
      await allWritten;
      ac.abort();
      await assert.rejects(
        pulling,
        (e: unknown) => e instanceof PullError && /cancelled; nothing was added.*the same pull resumes it/.test(e.message),
      );
      assert.deepEqual(listModelFiles(dir), [], 'a cancelled download is not a model');
    } finally {
      await first.close();
    }
    const second = await hub({ [file]: body });
    try {
      const path = await pullModel({ uri: 'hf:someone/tiny-GGUF/slow.gguf', dir, hubEndpoint: second.url });
      assert.ok(readFileSync(path).equals(body), 'the file is whole and right');
      assert.deepEqual(
        listModelFiles(dir).map(f => f.path),
        [path],
      );
      assert.deepEqual(second.ranges, [`bytes=${stallAfter}-`], 'only the rest is fetched');
      assert.deepEqual(readdirSync(join(dir, '.partial')), [], 'no progress file is left');
    } finally {
      await second.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a split model: every part is downloaded and moved beside the models, the listing shows its first part', async () => {
    const parts = [ggufBytes(1 << 20), ggufBytes(512 << 10)];
    const h = await hub({
      '/someone/tiny-GGUF/resolve/main/big-00001-of-00002.gguf': parts[0],
      '/someone/tiny-GGUF/resolve/main/big-00002-of-00002.gguf': parts[1],
    });
    const dir = tmp();
    try {
      const path = await pullModel({ uri: 'hf:someone/tiny-GGUF/big-00001-of-00002.gguf', dir, hubEndpoint: h.url });
      // Named as the hub names them (never as a server's headers would): the first part is the model.
      assert.equal(path, join(dir, 'big-00001-of-00002.gguf'));
      assert.ok(readFileSync(path).equals(parts[0]), 'the first part, whole');
      assert.ok(readFileSync(join(dir, 'big-00002-of-00002.gguf')).equals(parts[1]), 'the second part beside it, whole');
      assert.deepEqual(
        listModelFiles(dir).map(f => f.name),
        ['big-00001-of-00002.gguf'],
      );
    } finally {
      await h.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a split model named in capitals (.GGUF): each part is asked for and kept under its own name', async () => {
    // Before: every part's name was made with ".gguf", the first one's too, so the URI's own file was asked for under
    // another name and the hub answered 404.
    const parts = [ggufBytes(256 << 10), ggufBytes(128 << 10)];
    const h = await hub({ '/o/r/resolve/main/M-00001-of-00002.GGUF': parts[0], '/o/r/resolve/main/M-00002-of-00002.GGUF': parts[1] });
    const dir = tmp();
    try {
      const path = await pullModel({ uri: 'hf:o/r/M-00001-of-00002.GGUF', dir, hubEndpoint: h.url });
      assert.equal(path, join(dir, 'M-00001-of-00002.GGUF'));
      assert.ok(readFileSync(join(dir, 'M-00002-of-00002.GGUF')).equals(parts[1]));
    } finally {
      await h.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the default model keeps its file name and its digest is checked: a wrong file is refused', async () => {
    const [, owner, repo, name] = /^hf:([^/]+)\/([^/]+)\/(.+)$/.exec(DEFAULT_LOCAL_MODEL.uri)!;
    const h = await hub({ [`/${owner}/${repo}/resolve/main/${name}`]: ggufBytes(1 << 20) });
    const dir = tmp();
    try {
      await assert.rejects(
        pullModel({ dir, hubEndpoint: h.url }),
        (e: unknown) => e instanceof PullError && e.message.includes(`not ${DEFAULT_LOCAL_MODEL.name}'s`) && e.message.includes('it was removed'),
      );
      assert.deepEqual(listModelFiles(dir), [], 'the wrong file is not left as the model');
    } finally {
      await h.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the default model already in the folder with its digest is not downloaded again', async () => {
    const h = await hub({});
    const dir = tmp();
    try {
      // A file of the right size but not the right digest is fetched again (and here refused: the hub has nothing).
      writeFileSync(join(dir, DEFAULT_LOCAL_MODEL.file), Buffer.alloc(16));
      await assert.rejects(pullModel({ dir, hubEndpoint: h.url }), PullError);
      assert.ok(h.requests.length > 0, 'a wrong file makes the pull ask the hub');
    } finally {
      await h.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a cancel while the hub has not answered ends the pull at once', async () => {
    // Holds every request unanswered (a hub out of reach) until the test ends, then answers 404 so that the
    // resolver, still waiting in the background after the cancel, ends too.
    const held: ServerResponse[] = [];
    const silent = createServer((_req, res) => held.push(res));
    await new Promise<void>(r => silent.listen(0, '127.0.0.1', r));
    const asked = new Promise<void>(r => silent.once('request', () => r()));
    const dir = tmp();
    try {
      const ac = new AbortController();
      const pulling = pullModel({
        uri: 'hf:someone/tiny-GGUF/x.gguf',
        dir,
        hubEndpoint: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`,
        signal: ac.signal,
      });
      await asked;
      ac.abort();
      await assert.rejects(pulling, (e: unknown) => e instanceof PullError && /cancelled/.test(e.message));
    } finally {
      for (const res of held) res.writeHead(404).end();
      silent.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a URI the hub does not have is one line naming it and the fix', async () => {
    const h = await hub({});
    const dir = tmp();
    try {
      await assert.rejects(pullModel({ uri: 'hf:nobody/nothing/none.gguf', dir, hubEndpoint: h.url }), (e: unknown) => {
        assert.ok(e instanceof PullError);
        assert.ok(!e.message.includes('\n'), e.message);
        assert.match(e.message, /^hf:nobody\/nothing\/none\.gguf: /);
        return true;
      });
    } finally {
      await h.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
