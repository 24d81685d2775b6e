// The server's documents answer exactly as vscode-languageserver-textdocument's do (positions, offsets, line ranges,
// text) after any series of changes, with \n, \r\n and lone \r, including edits that make or split a \r\n. The
// reference is a library document made afresh from the text after each change: the library's own line offsets go
// wrong after a change whose range starts past the last line (lineCount 5 for a text of 3 lines), ours do not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TextDocumentContentChangeEvent } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { lineBreakEnds } from '../../core/common/text';
import { ServerDocument, serverDocuments } from '../../server/document';

/** A small seeded generator (mulberry32), so that a failure can be replayed. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = ['a', 'bc', ' ', '\n', '\r\n', '\r', 'Q1: [x]', 'é', '—', '\n\n'];
const piece = (r: () => number) => PIECES[Math.floor(r() * PIECES.length)];
const text = (r: () => number, n: number) => Array.from({ length: n }, () => piece(r)).join('');

function same(ours: TextDocument, theirs: TextDocument, what: string): void {
  assert.equal(ours.getText(), theirs.getText(), `${what}: text`);
  assert.equal(ours.lineCount, theirs.lineCount, `${what}: lineCount`);
  const length = theirs.getText().length;
  for (let o = -1; o <= length + 1; o++) assert.deepEqual(ours.positionAt(o), theirs.positionAt(o), `${what}: positionAt(${o})`);
  for (let line = -1; line <= theirs.lineCount + 1; line++) {
    for (let character = -1; character <= 12; character++)
      assert.equal(ours.offsetAt({ line, character }), theirs.offsetAt({ line, character }), `${what}: offsetAt(${line}:${character})`);
    assert.deepEqual(ours.getLineRange(line), theirs.getLineRange(line), `${what}: getLineRange(${line})`);
    assert.equal(ours.getEOLCharacters(line), theirs.getEOLCharacters(line), `${what}: getEOLCharacters(${line})`);
  }
}

test('the server document answers as the library document does, after every change of random series', () => {
  for (let seed = 1; seed <= 60; seed++) {
    const r = random(seed);
    const initial = text(r, 1 + Math.floor(r() * 30));
    let ours = serverDocuments.create('file:///x.art', 'art', 1, initial);
    let theirs = TextDocument.create('file:///x.art', 'art', 1, initial);
    same(ours, theirs, `seed ${seed}, initial`);
    for (let i = 0; i < 25; i++) {
      const length = theirs.getText().length;
      const changes: TextDocumentContentChangeEvent[] = [];
      for (let k = 1 + Math.floor(r() * 2); k > 0; k--) {
        if (r() < 0.05) changes.push({ text: text(r, Math.floor(r() * 10)) });
        else {
          const a = theirs.positionAt(Math.floor(r() * (length + 1)));
          const b =
            r() < 0.2 ? { line: a.line + Math.floor(r() * 3), character: Math.floor(r() * 8) } : theirs.positionAt(Math.floor(r() * (length + 1)));
          changes.push({ range: r() < 0.5 ? { start: a, end: b } : { start: b, end: a }, text: r() < 0.3 ? '' : text(r, Math.floor(r() * 4)) });
        }
      }
      // Positions asked between changes: the line starts exist and are updated in place, not found again.
      if (r() < 0.7) ours.positionAt(0);
      ours = serverDocuments.update(ours, changes, ours.version + 1);
      // The reference applies one change at a time to a fresh document (see the top of this file).
      for (const change of changes)
        theirs = TextDocument.update(TextDocument.create('file:///x.art', 'art', theirs.version, theirs.getText()), [change], theirs.version);
      theirs = TextDocument.create('file:///x.art', 'art', ours.version, theirs.getText());
      // Or the line starts found a stretch at a time first, as the first analysis of a large text does.
      if (r() < 0.3) {
        const end = ours.getText().length;
        for (let o = 0; o < end; o += 1 + Math.floor(r() * 5)) (ours as ServerDocument).prepareLines(o);
      }
      same(ours, theirs, `seed ${seed}, change ${i} ${JSON.stringify(changes)}`);
    }
  }
});

test('line starts: \\n, \\r\\n and lone \\r, in any order', () => {
  assert.deepEqual(lineBreakEnds('a\nb\r\nc\rd\r\r\n\n'), [2, 5, 7, 9, 11, 12]);
  assert.deepEqual(lineBreakEnds(''), []);
  assert.deepEqual(lineBreakEnds('\r'), [1]);
  assert.deepEqual(lineBreakEnds('x\r\n'), [3]);
});

test('a document from elsewhere is refused by name, not changed silently', () => {
  const other = TextDocument.create('file:///y.art', 'art', 1, 'x');
  assert.throws(() => serverDocuments.update(other, [{ text: 'y' }], 2), /file:\/\/\/y\.art was not made by serverDocuments\.create/);
  assert.ok(serverDocuments.create('u', 'art', 1, '') instanceof ServerDocument);
});
