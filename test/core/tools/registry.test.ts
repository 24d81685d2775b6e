import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILTIN_TOOLS } from '../../../core/art/knownTools';
import { createToolRegistry, defaultCorpus, UNTRUSTED_MESSAGE } from '../../../core/tools/registry';
import { CORPUS_DIR, PYTHON, REPO, ctx } from './helpers';

let workspace: string;
let marker: string;

before(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'art-reg-'));
  marker = join(workspace, 'ran.txt');
  await writeFile(
    join(workspace, '.art-tools.json'),
    JSON.stringify({
      tools: [
        { kind: 'command', name: 'touch marker', command: ['touch', marker] },
        { kind: 'command', name: 'calculator', command: ['echo', 'user calculator'], description: 'A user tool replacing the built-in.' },
        { kind: 'mcp', command: [process.execPath, join(REPO, 'test/fixtures/mcp-tools-server.mjs')], tools: { reverse: 'flip' } },
      ],
    }),
  );
});
after(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe('tool registry', () => {
  test('every built-in tool is there; names match case-insensitively with spaces folded', async () => {
    const reg = await createToolRegistry({ workspaceRoot: REPO, corpusDir: CORPUS_DIR, pythonPath: PYTHON, toolsFile: undefined, trusted: true });
    try {
      for (const t of BUILTIN_TOOLS) assert.equal(reg.get(t.name)?.info.name, t.name, t.name);
      assert.equal(reg.get('Generate   Python code')?.info.name, 'generate python code');
      assert.equal(reg.get('string  permutation ')?.info.name, 'string permutation');
      assert.equal(reg.get('think step-by-step'), undefined, 'a sub-step the model answers is no tool');
      const r = await reg.get('CALCULATOR')!.run({ instruction: '6 * 7' }, ctx());
      assert.deepEqual(r.ok && r.output, '42');
    } finally {
      await reg.dispose();
    }
  });

  test('ReACT Search/Lookup and ART search/lookup stay distinct by exact spelling', async () => {
    const reg = await createToolRegistry({ workspaceRoot: REPO, trusted: true });
    try {
      assert.equal(reg.get('Search')?.info.origin, 'react');
      assert.equal(reg.get('search')?.info.origin, 'art');
      assert.equal(reg.get('Lookup')?.info.origin, 'react');
      assert.equal(reg.get('lookup')?.info.origin, 'art');
      // The default corpus is the workspace's examples/corpus.
      const s = await reg.get('Search')!.run({ instruction: 'Milhouse' }, ctx());
      assert.ok(s.ok);
      assert.match(s.output, /^Milhouse Mussolini Van Houten/);
      const l = await reg.get('Lookup')!.run({ instruction: 'named after' }, ctx());
      assert.deepEqual(l.ok && l.output, '(Result 1 / 1) Milhouse was named after U.S. president Richard Nixon, whose middle name was Milhous.');
    } finally {
      await reg.dispose();
    }
  });

  test('user tools join the catalog and take precedence over built-ins', async () => {
    const reg = await createToolRegistry({ workspaceRoot: workspace, corpusDir: CORPUS_DIR, trusted: true });
    try {
      assert.deepEqual(reg.problems, []);
      assert.equal(reg.get('calculator')?.info.origin, 'user');
      const r = await reg.get('calculator')!.run({ instruction: '1 + 1' }, ctx());
      assert.deepEqual(r.ok && r.output, 'user calculator');
      const names = reg
        .catalog()
        .all()
        .map(t => t.name);
      for (const n of ['touch marker', 'flip', 'search', 'code execute']) assert.ok(names.includes(n), n);
      assert.equal(reg.catalog().get('Calculator')?.origin, 'user');
    } finally {
      await reg.dispose();
    }
  });

  test('untrusted: nothing runs, no MCP server starts, declared names still feed the catalog', async () => {
    // An MCP "server" that would leave a mark if it were started.
    const mcpMarker = join(workspace, 'mcp-started.txt');
    await writeFile(
      join(workspace, 'untrusted-tools.json'),
      JSON.stringify({
        tools: [
          { kind: 'command', name: 'touch marker', command: ['touch', marker] },
          { kind: 'mcp', command: ['touch', mcpMarker], tools: { reverse: 'flip' } },
        ],
      }),
    );
    const reg = await createToolRegistry({
      workspaceRoot: workspace,
      corpusDir: CORPUS_DIR,
      pythonPath: PYTHON,
      toolsFile: 'untrusted-tools.json',
      trusted: false,
    });
    try {
      assert.deepEqual(reg.problems, []);
      for (const name of ['touch marker', 'flip', 'code execute', 'execute', 'search', 'calculator', 'Search', 'string edit']) {
        const tool = reg.get(name);
        assert.ok(tool, name);
        const r = await tool.run({ instruction: '1 + 1', previousAnswer: 'print(1)' }, ctx());
        assert.equal(r.ok, false, name);
        assert.equal(!r.ok ? r.error : '', `${UNTRUSTED_MESSAGE} [${tool.info.name}].`);
        assert.match(!r.ok ? r.error : '', /^Tools do not run in an untrusted workspace/);
      }
      const { existsSync } = await import('node:fs');
      assert.equal(existsSync(marker), false, 'the command never ran');
      assert.equal(existsSync(mcpMarker), false, 'the MCP server was never started');
      const names = reg
        .catalog()
        .all()
        .map(t => t.name);
      assert.ok(names.includes('flip') && names.includes('touch marker'));
      assert.equal(reg.catalog().get('flip')?.origin, 'user');
    } finally {
      await reg.dispose();
    }
  });
});

test('the default search corpus: the workspace corpus/ folder, else examples/corpus/', () => {
  const root = mkdtempSync(join(tmpdir(), 'art-corpus-'));
  assert.equal(defaultCorpus(root), join(root, 'examples/corpus'));
  mkdirSync(join(root, 'corpus'));
  assert.equal(defaultCorpus(root), join(root, 'corpus'));
});
