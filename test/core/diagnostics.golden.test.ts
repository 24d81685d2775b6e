// Golden diagnostics: every fixture under test/fixtures/diagnostics/{art,agent}/ is checked by core (checkArt,
// checkAgentFile) and the result compared with its sibling `.golden` file, one diagnostic a line:
//
//   [line:col..line:col] code: message
//
// Lines and columns are 1-based, as an editor shows them; columns count UTF-16 code units (LSP's default); the end
// is exclusive (the column just after the last character of the range). An empty golden means: no diagnostic.
// `<code>.art` / `<code>.agent` (and `<code>-<variant>.*`) must produce that code; `<code>.ok.*` is the close
// correct case that must not. Every code of DESIGN.md's two tables has both (checked below).
//
// After a deliberate change of a range or a message, rewrite the goldens and review the diff by eye:
//   ART_UPDATE_GOLDEN=1 node scripts/test.mjs golden
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { AGENT_DIAGNOSTIC_CODES, checkAgentFile, parseAgentFile } from '../../core/agent';
import { ART_DIAGNOSTIC_CODES, checkArt, parseArt } from '../../core/art';
import type { Diagnostic } from '../../core/common/diagnostics';
import { LineIndex } from '../../core/common/text';

const FIXTURES = join(__dirname, '../fixtures/diagnostics');
const UPDATE = process.env.ART_UPDATE_GOLDEN === '1';

/** The golden text of a file's diagnostics (empty when there are none; else one line each, ending in a newline). */
function goldenOf(text: string, diagnostics: Diagnostic[]): string {
  const index = new LineIndex(text);
  const at = (offset: number) => {
    const p = index.position(offset);
    return `${p.line + 1}:${p.character + 1}`;
  };
  return diagnostics.map(d => `[${at(d.span.start)}..${at(d.span.end)}] ${d.code}: ${d.message}\n`).join('');
}

const languages = [
  { dir: 'art', ext: '.art', codes: ART_DIAGNOSTIC_CODES, check: (text: string) => checkArt(parseArt(text)) },
  { dir: 'agent', ext: '.agent', codes: AGENT_DIAGNOSTIC_CODES, check: (text: string) => checkAgentFile(parseAgentFile(text)) },
];

for (const lang of languages) {
  const dir = join(FIXTURES, lang.dir);
  const fixtures = readdirSync(dir)
    .filter(f => f.endsWith(lang.ext))
    .sort();
  const codesOf = (golden: string) =>
    new Set(
      golden
        .split('\n')
        .filter(Boolean)
        .map(l => /^\[[\d:.]+\] ([\w-]+): /.exec(l)?.[1]),
    );

  describe(`golden diagnostics: ${lang.ext}`, () => {
    for (const name of fixtures) {
      test(name, () => {
        const text = readFileSync(join(dir, name), 'utf8');
        const got = goldenOf(text, lang.check(text));
        const goldenPath = join(dir, `${name}.golden`);
        if (UPDATE) writeFileSync(goldenPath, got);
        assert.ok(existsSync(goldenPath), `${goldenPath} is missing: write it with ART_UPDATE_GOLDEN=1 node scripts/test.mjs golden`);
        const want = readFileSync(goldenPath, 'utf8');
        assert.equal(
          got,
          want,
          `${name}: diagnostics differ from ${name}.golden (if the change is meant, ART_UPDATE_GOLDEN=1 node scripts/test.mjs golden)`,
        );
        // A fixture named after a code shows that code; its `.ok` variant does not.
        const code = name.slice(0, -lang.ext.length).replace(/\.ok$/, '');
        const named = Object.keys(lang.codes)
          .filter(c => code === c || code.startsWith(`${c}-`))
          .sort((a, b) => b.length - a.length)[0];
        if (named && name.endsWith(`.ok${lang.ext}`)) assert.ok(!codesOf(want).has(named), `${name} must not produce ${named}`);
        else if (named) assert.ok(codesOf(want).has(named), `${name} must produce ${named}`);
      });
    }

    test('every code has a fixture that produces it and a close one that does not', () => {
      for (const code of Object.keys(lang.codes)) {
        assert.ok(
          fixtures.some(f => f === `${code}${lang.ext}` || (f.startsWith(`${code}-`) && !f.endsWith(`.ok${lang.ext}`))),
          `no fixture ${code}${lang.ext}`,
        );
        assert.ok(fixtures.includes(`${code}.ok${lang.ext}`), `no fixture ${code}.ok${lang.ext}`);
      }
    });

    test('no golden without its fixture', () => {
      for (const g of readdirSync(dir).filter(f => f.endsWith('.golden')))
        assert.ok(fixtures.includes(g.slice(0, -'.golden'.length)), `${g} has no fixture`);
    });
  });
}
