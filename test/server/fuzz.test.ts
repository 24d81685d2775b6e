// Random edits of fixture files sent as didChange, each followed by a request of every kind at a random place:
// no handler may throw (guards log `[handler] ...` when one does) and the server stays up.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { FIXTURES, LspClient, fileUri } from './lspClient';
import { prng } from '../support/random';

let client: LspClient;
before(async () => {
  client = await LspClient.start({ settings: { diagnostics: { debounceMs: 0 } } });
});
after(async () => {
  await client?.stop();
});

const SNIPPETS = [
  '[',
  ']',
  '#',
  '#1',
  'Q',
  'Q2: [search] x\n',
  '#3:',
  '\n',
  '(',
  ')',
  '"',
  ':',
  ':states',
  'next ',
  'Ans:',
  '----\n',
  '：',
  '\r\n',
  '[EOQ]',
];
const REQUESTS = [
  'textDocument/hover',
  'textDocument/completion',
  'textDocument/definition',
  'textDocument/references',
  'textDocument/documentSymbol',
  'textDocument/foldingRange',
  'textDocument/semanticTokens/full',
  'textDocument/formatting',
  'textDocument/codeAction',
  'art/programs',
];

for (const [file, languageId, seed] of [
  ['programs/arithmetic.art', 'art', 7],
  ['agents/reflexion.agent', 'art-agent', 11],
] as const) {
  test(`random edits of ${file}: every request answers, nothing throws`, async () => {
    const random = prng(seed);
    const uri = fileUri(join(FIXTURES, `fuzz-${file.replace(/\//g, '-')}`));
    let doc = TextDocument.create(uri, languageId, 1, readFileSync(join(FIXTURES, file), 'utf8'));
    await client.open(uri, doc.getText(), languageId);
    for (let i = 0; i < 120; i++) {
      const len = doc.getText().length;
      const a = Math.floor(random() * (len + 1));
      const b = Math.min(len, a + Math.floor(random() * 12));
      const text = random() < 0.5 ? SNIPPETS[Math.floor(random() * SNIPPETS.length)] : '';
      const change = { range: { start: doc.positionAt(a), end: doc.positionAt(b) }, text };
      doc = TextDocument.create(uri, languageId, doc.version + 1, TextDocument.applyEdits(doc, [{ range: change.range, newText: text }]));
      await client.notify('textDocument/didChange', { textDocument: { uri, version: doc.version }, contentChanges: [change] });
      const method = REQUESTS[i % REQUESTS.length];
      const position = doc.positionAt(Math.floor(random() * (doc.getText().length + 1)));
      const range = { start: position, end: position };
      await client.request(method, {
        textDocument: { uri },
        position,
        range,
        context: { includeDeclaration: true, diagnostics: [], triggerKind: 1 },
        options: { tabSize: 2, insertSpaces: true },
      });
    }
    const last = await client.waitForDiagnostics(uri, doc.version);
    const lines = doc.getText().split(/\r\n|\r|\n/).length;
    for (const d of last.diagnostics) assert.ok(d.range.end.line < lines, `range outside the document: ${JSON.stringify(d.range)}`);
    const failures = client.logs.filter(l => /^\[[\w/]+\]|uncaught|unhandled/.test(l));
    assert.deepEqual(failures, []);
    assert.equal(client.process.exitCode, null);
  });
}
