// Random edits of the corpus never make the parser throw, every range stays inside the document, and the
// incremental path gives exactly what a full parse and check gives.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ArtIncremental, checkArt, parseArt } from '../../../core/art';
import type { Diagnostic } from '../../../core/common/diagnostics';
import { FIXTURES } from '../../support/fixtures';
import { prng } from '../../support/random';

const PIECES = [
  'Q',
  '#',
  ':',
  '：',
  '[',
  ']',
  '\n',
  '\r\n',
  '\r',
  ' ',
  'Q7: [',
  '#3:',
  'Ans:',
  'Input:',
  '----',
  '[EOQ]',
  '%s',
  'Description: (',
  '#12',
  '—',
];

function mutate(text: string, r: () => number): string {
  const lines = text.split('\n');
  const pick = (n: number) => Math.floor(r() * n);
  switch (pick(7)) {
    case 0: {
      // insert a piece
      const at = pick(text.length + 1);
      return text.slice(0, at) + PIECES[pick(PIECES.length)] + text.slice(at);
    }
    case 1: {
      // delete a range of characters
      const at = pick(text.length + 1);
      return text.slice(0, at) + text.slice(at + 1 + pick(20));
    }
    case 2: // delete a line
      lines.splice(pick(lines.length), 1);
      return lines.join('\n');
    case 3: {
      // duplicate a line
      const i = pick(lines.length);
      lines.splice(i, 0, lines[i]);
      return lines.join('\n');
    }
    case 4: {
      // swap two lines
      const i = pick(lines.length);
      const j = pick(lines.length);
      [lines[i], lines[j]] = [lines[j], lines[i]];
      return lines.join('\n');
    }
    case 5: {
      // swap two characters
      const i = pick(text.length);
      if (i + 1 >= text.length) return text;
      return text.slice(0, i) + text[i + 1] + text[i] + text.slice(i + 2);
    }
    default: {
      // replace a character with a random one
      const i = pick(text.length);
      return text.slice(0, i) + String.fromCharCode(32 + pick(95)) + text.slice(i + 1);
    }
  }
}

const key = (d: Diagnostic) => `${d.span.start}-${d.span.end}:${d.code}:${d.message}:${JSON.stringify(d.fixes ?? [])}`;

// The fixture libraries (search.art has defects on purpose) and the broken files of the CLI tests.
const sources = [
  ...readdirSync(join(FIXTURES, 'programs')).map(f => join(FIXTURES, 'programs', f)),
  ...readdirSync(join(FIXTURES, 'check')).map(f => join(FIXTURES, 'check', f)),
].map(f => readFileSync(f, 'utf8'));

describe('.art fuzz', () => {
  test('3000 random edits: no throw, every range inside the document', () => {
    const r = prng(20231121);
    for (let i = 0; i < 3000; i++) {
      let text = sources[i % sources.length];
      const edits = 1 + Math.floor(r() * 4);
      for (let k = 0; k < edits; k++) text = mutate(text, r);
      let diagnostics: Diagnostic[];
      try {
        diagnostics = checkArt(parseArt(text));
      } catch (e) {
        assert.fail(`iteration ${i} threw ${(e as Error).stack}\n--- input ---\n${text}`);
      }
      for (const d of diagnostics) {
        assert.ok(
          d.span.start >= 0 && d.span.start <= d.span.end && d.span.end <= text.length,
          `iteration ${i}: ${d.code} ${JSON.stringify(d.span)} outside 0..${text.length}`,
        );
        for (const f of d.fixes ?? []) for (const e of f.edits) assert.ok(e.span.start >= 0 && e.span.end <= text.length, `fix range of ${d.code}`);
      }
    }
  });

  test('incremental updates equal a full parse and check after every edit', () => {
    const r = prng(7);
    for (const source of sources) {
      const inc = new ArtIncremental();
      let text = source;
      for (let i = 0; i < 150; i++) {
        text = mutate(text, r);
        const got = inc.update(text);
        const full = parseArt(text);
        assert.deepEqual(got.doc, full, `doc after edit ${i}`);
        assert.deepEqual(got.diagnostics.map(key), checkArt(full).map(key), `diagnostics after edit ${i}`);
      }
    }
  });

  test('incremental updates given the edited region equal a full parse and check', () => {
    const r = prng(11);
    for (const source of sources) {
      const inc = new ArtIncremental();
      let text = source;
      inc.update(text);
      for (let i = 0; i < 150; i++) {
        // Like an editor: a replacement at a known place (deletions, insertions of markers, lines, separators).
        const start = Math.floor(r() * (text.length + 1));
        const oldEnd = Math.min(text.length, start + Math.floor(r() * 12));
        const inserted = r() < 0.5 ? PIECES[Math.floor(r() * PIECES.length)] : '';
        text = text.slice(0, start) + inserted + text.slice(oldEnd);
        const got = inc.update(text, { start, oldEnd, newEnd: start + inserted.length });
        const full = parseArt(text);
        assert.deepEqual(got.doc, full, `doc after edit ${i}`);
        assert.deepEqual(got.diagnostics.map(key), checkArt(full).map(key), `diagnostics after edit ${i}`);
      }
    }
  });

  test('an edit inside one program re-parses only that program', () => {
    const text = readFileSync(join(FIXTURES, 'programs/search.art'), 'utf8');
    const inc = new ArtIncremental();
    assert.equal(inc.update(text).reparsed, parseArt(text).programs.length);
    const edited = text.replace('Where was Mark Twain born?', 'Where was Mark Twain raised?');
    assert.ok(inc.update(edited).reparsed <= 2, 'the edited program and at most the one before it');
  });
});
