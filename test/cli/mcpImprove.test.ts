// The MCP tool `improve` in process (an SDK Client over the InMemoryTransport), against the scripted model that learns
// only from the demonstrations in its prompt (test/support/kindsModel.ts): the structured result (checked by the
// client against the tool's output schema) and the progress notifications.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createArtMcpServer } from '../../core/cli/mcp';
import { ScriptedServer } from '../support/scriptedServer';
import { KINDS_LIBRARY, jsonl, kindsData, useKindsModel } from '../support/kindsModel';

const work = mkdtempSync(join(tmpdir(), 'art-mcp-improve-'));
let server: ScriptedServer;
let client: Client;
before(async () => {
  server = useKindsModel(await new ScriptedServer({ tokenDelayMs: 0 }).start());
  const { server: mcp } = createArtMcpServer({ cwd: work, env: { ...process.env }, log: () => {} });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await mcp.connect(b);
  client = new Client({ name: 'art-mcp-test', version: '1' });
  await client.connect(a);
  writeFileSync(join(work, 'kinds.art'), KINDS_LIBRARY);
  writeFileSync(join(work, 'train.jsonl'), jsonl(kindsData(3, 100)));
  writeFileSync(join(work, 'dev.jsonl'), jsonl(kindsData(2, 200)));
  writeFileSync(join(work, 'test.jsonl'), jsonl(kindsData(4, 300)));
});
after(async () => {
  await client.close();
  await server.close();
});

describe('art mcp: improve', () => {
  test('proposes a library with a significant gain, with progress', async () => {
    const progress: { message?: string }[] = [];
    const r = (await client.callTool(
      {
        name: 'improve',
        arguments: {
          library: 'kinds.art',
          train: 'train.jsonl',
          dev: 'dev.jsonl',
          test: 'test.jsonl',
          budget: 400,
          seed: 3,
          baseURL: server.baseURL,
          model: 'scripted',
          task: 'Arithmetic',
        },
      },
      undefined,
      { onprogress: p => void progress.push(p) },
    )) as { isError?: boolean; structuredContent?: any; content: { text: string }[] };
    assert.ok(!r.isError, r.content[0].text);
    const d = r.structuredContent;
    assert.ok(d.significant && d.improved.correct > d.baseline.correct && d.added.length > 0);
    assert.ok(existsSync(d.out) && d.out === join(work, 'kinds.improved.art'));
    assert.ok(progress.some(p => /bootstrap round 1/.test(p.message ?? '')));
  });
});
