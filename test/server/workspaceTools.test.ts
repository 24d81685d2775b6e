// Workspace tools: the server reads `.art-tools.json` at the workspace root, and its tools take part in
// completion, hover, semantic tokens and `tool-name-typo`; a change of the file (a watched-file event) re-checks.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CompletionList, Hover, MarkupContent } from 'vscode-languageserver-protocol';
import { LspClient, fileUri } from './lspClient';

let dir: string;
let client: LspClient;

const toolsFile = (tools: object[]) => JSON.stringify({ tools }, null, 2);
const TEXT = 'Input: a b c\nQ1: [word cuont] a b c\n#1: 3\nQ2: [EOQ]\nAns: 3\n';

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'art-lsp-tools-'));
  writeFileSync(
    join(dir, '.art-tools.json'),
    toolsFile([{ kind: 'command', name: 'word count', description: 'Counts the words of its input.', command: ['wc', '-w'] }]),
  );
  client = await LspClient.start({ rootPath: dir, settings: { diagnostics: { debounceMs: 0 } } });
});
after(async () => {
  await client?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('a workspace tool: typo warning against it, completion with its description, hover', async () => {
  const uri = fileUri(join(dir, 'lib.art'));
  const p = await client.open(uri, TEXT);
  const typo = p.diagnostics.find(d => d.code === 'tool-name-typo');
  assert.ok(typo, JSON.stringify(p.diagnostics));
  assert.match(String(typo.message), /word count/);

  const list = await client.request<CompletionList>('textDocument/completion', { textDocument: { uri }, position: { line: 1, character: 5 } });
  const item = list.items.find(i => i.label === 'word count');
  assert.ok(item, list.items.map(i => i.label).join(','));
  assert.match((item.documentation as MarkupContent).value, /Counts the words/);

  const fixed = await client.change(uri, 2, [{ range: { start: { line: 1, character: 5 }, end: { line: 1, character: 15 } }, text: 'word count' }]);
  assert.deepEqual(fixed.diagnostics, []);
  const h = await client.request<Hover>('textDocument/hover', { textDocument: { uri }, position: { line: 1, character: 7 } });
  assert.match((h.contents as MarkupContent).value, /workspace tool/);
});

test('changing the tool file re-checks open documents', async () => {
  const uri = fileUri(join(dir, 'lib2.art'));
  const text = 'Input: a\nQ1: [word count] a\n#1: 1\nQ2: [EOQ]\nAns: 1\n';
  const p = await client.open(uri, text);
  assert.deepEqual(p.diagnostics, []);
  writeFileSync(join(dir, '.art-tools.json'), toolsFile([{ kind: 'command', name: 'word counts', command: ['wc', '-w'] }]));
  const republished = client.waitForPublish(
    d => d.uri === uri && d.diagnostics.some(x => x.code === 'tool-name-typo'),
    'typo after the tool file changed',
  );
  await client.notify('workspace/didChangeWatchedFiles', { changes: [{ uri: fileUri(join(dir, '.art-tools.json')), type: 2 }] });
  const d = await republished;
  assert.match(String(d.diagnostics[0].message), /word counts/);
});

test('a named pipe as the tool file: diagnostics still come, and the log says it is not a regular file', async () => {
  const fifoDir = mkdtempSync(join(tmpdir(), 'art-lsp-fifo-'));
  const made = spawnSync('mkfifo', [join(fifoDir, '.art-tools.json')]);
  assert.equal(made.status, 0, String(made.stderr));
  const other = await LspClient.start({ rootPath: fifoDir, settings: { diagnostics: { debounceMs: 0 } } });
  try {
    const p = await other.open(fileUri(join(fifoDir, 'lib.art')), TEXT);
    assert.deepEqual(
      p.diagnostics.map(d => d.code),
      [],
    );
    assert.ok(
      other.logs.some(l => /\.art-tools\.json: not a regular file \(a named pipe\)/.test(l)),
      other.logs.join('\n'),
    );
  } finally {
    await other.stop();
    rmSync(fifoDir, { recursive: true, force: true });
  }
});
