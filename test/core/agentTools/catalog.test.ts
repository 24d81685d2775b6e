// The agent tools are declared once (core/agentTools/catalog.ts) and both shells offer exactly what is declared:
// `art mcp` lists every tool under its name with the declared inputs and outputs (over the MCP SDK's own client), and
// package.json's `contributes.languageModelTools` (what the editor registers) is the declarations' (the manifest test
// checks the file is generated; this one that a declaration changed shows in both lists).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { AGENT_TOOLS, editorToolName, inputJsonSchema, languageModelTools } from '../../../core/agentTools/catalog';
import { createArtMcpServer } from '../../../core/cli/mcp';

const root = join(import.meta.dirname, '../../..');

async function mcpTools() {
  const { server, close } = createArtMcpServer({ cwd: root, env: {}, log: () => {} });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'catalog', version: '1' });
  await client.connect(clientSide);
  try {
    return (await client.listTools()).tools;
  } finally {
    await client.close();
    await close();
  }
}

describe('the agent tools: one declaration, two shells', () => {
  test('names, editor names and reference names are unique', () => {
    type Tool = (typeof AGENT_TOOLS)[number];
    for (const key of [(t: Tool) => t.name, editorToolName, (t: Tool) => t.editor.referenceName]) {
      const all = AGENT_TOOLS.map(key);
      assert.equal(new Set(all).size, all.length, all.join(', '));
    }
  });

  test('art mcp lists exactly the declared tools, each with its declared inputs, required inputs and outputs', async () => {
    const listed = await mcpTools();
    assert.deepEqual(
      listed.map(t => t.name),
      AGENT_TOOLS.map(t => t.name),
    );
    for (const t of AGENT_TOOLS) {
      const m = listed.find(x => x.name === t.name)!;
      const declared = inputJsonSchema(t) as { properties?: Record<string, unknown>; required?: string[] };
      assert.deepEqual(Object.keys(m.inputSchema.properties ?? {}), Object.keys(declared.properties ?? {}), t.name);
      assert.deepEqual(m.inputSchema.required ?? [], declared.required ?? [], t.name);
      assert.deepEqual(Object.keys(m.outputSchema?.properties ?? {}), Object.keys(t.output), t.name);
      assert.ok(m.description?.startsWith(t.description), `${t.name}: its description is the declaration's`);
    }
  });

  test("the editor's tools in package.json are the declared ones, inputs and descriptions included", () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    assert.deepEqual(pkg.contributes.languageModelTools, languageModelTools());
    for (const t of AGENT_TOOLS) {
      const declared = pkg.contributes.languageModelTools.find((x: { name: string }) => x.name === editorToolName(t));
      assert.deepEqual(Object.keys(declared.inputSchema.properties ?? {}), Object.keys(t.input), t.name);
    }
  });
});
