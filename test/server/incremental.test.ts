// Incremental edits over LSP: after a burst of range edits (each one analysed, or several merged before the
// debounce fires) the published diagnostics are exactly those of a fresh check of the final text.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { checkArt, parseArt } from '../../core/art';
import { LineIndex } from '../../core/common/text';
import { FIXTURES, LspClient, fileUri } from './lspClient';
import { prng } from '../support/random';

let client: LspClient;
before(async () => {
  client = await LspClient.start({ settings: { diagnostics: { debounceMs: 0 } } });
});
after(async () => {
  await client?.stop();
});

const PIECES = ['Q', '#', '#2:', 'Q3: [serach] x\n', '\n', '----\n', 'Input: y\n', '[EOQ]', 'Ans: z\n', 'x'];

/** A random replacement in `doc`, as an LSP range change, and the document after it. */
function randomEdit(doc: TextDocument, r: () => number) {
  const text = doc.getText();
  const start = Math.floor(r() * text.length);
  const end = Math.min(text.length, start + Math.floor(r() * 10));
  const change = { range: { start: doc.positionAt(start), end: doc.positionAt(end) }, text: PIECES[Math.floor(r() * PIECES.length)] };
  return { change, doc: TextDocument.update(doc, [change], doc.version + 1) };
}

const expected = (text: string) => {
  const index = new LineIndex(text);
  return checkArt(parseArt(text)).map(d => `${JSON.stringify(index.range(d.span))} ${d.code}`);
};

test('random range edits: published diagnostics equal a fresh check of the final text', async () => {
  const r = prng(42);
  const uri = fileUri(join(FIXTURES, 'programs/search.art'));
  let doc = TextDocument.create(uri, 'art', 1, readFileSync(join(FIXTURES, 'programs/search.art'), 'utf8'));
  await client.open(uri, doc.getText(), 'art', 1);
  for (let round = 0; round < 40; round++) {
    const edit = randomEdit(doc, r);
    doc = edit.doc;
    const change = edit.change;
    const published = await client.change(uri, doc.version, [change]);
    const got = published.diagnostics.map(d => `${JSON.stringify(d.range)} ${d.code}`);
    assert.deepEqual(got, expected(doc.getText()), `after edit ${round}`);
  }
});

test('bursts of edits merged before one analysis: still exactly a fresh check', async () => {
  const r = prng(7);
  const uri = fileUri(join(FIXTURES, 'programs/arithmetic.art'));
  let doc = TextDocument.create(uri, 'art', 1, readFileSync(join(FIXTURES, 'programs/arithmetic.art'), 'utf8'));
  await client.open(uri, doc.getText(), 'art', 1);
  for (let round = 0; round < 15; round++) {
    const burst = 2 + Math.floor(r() * 5);
    let last: Promise<unknown> = Promise.resolve();
    for (let k = 0; k < burst; k++) {
      const edit = randomEdit(doc, r);
      doc = edit.doc;
      const change = edit.change;
      // Only the last version's diagnostics are awaited; earlier ones may be superseded before they are published.
      last =
        k === burst - 1
          ? client.change(uri, doc.version, [change])
          : client.notify('textDocument/didChange', { textDocument: { uri, version: doc.version }, contentChanges: [change] });
    }
    const published = (await last) as { diagnostics: { range: unknown; code?: unknown }[] };
    assert.deepEqual(
      published.diagnostics.map(d => `${JSON.stringify(d.range)} ${d.code}`),
      expected(doc.getText()),
      `after burst ${round}`,
    );
  }
});
