// The runner's streaming scanner and the editor's parser read one syntax: over the same generated texts (every
// separator and description variant the parser knows) they must put the end of a program at the same place, and
// the scanner fed in any chunking must read what it reads from the whole text, at a cost per chunk that does not
// grow with the text.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseArt } from '../../../core/art/parse';
import { ArtScanner, scanProgram } from '../../../core/protocols/artScan';
import { ArtProtocol } from '../../../core/protocols/artProtocol';
import { prng } from '../../support/random';

const HEADER = 'Description: (Sums) Add numbers.\nInput: 2 + 2\nQ1:';
const FIRST = ' [think step-by-step] add them\n#1: four\nQ2: [code execute] print(2 + 2)\n#2: 4\nQ3: [EOQ]\nAns: 4';

/** Lines that start another program, as the parser reads them. */
const STARTS = [
  '---',
  '----',
  '------------------',
  '  ----  ',
  '——',
  '――',
  '―――――',
  '─────',
  'Description: (Next) another task',
  'Descripton: (Next) misspelled as in the ART library',
  'Desciption: misspelled',
  'Descriptio: misspelled',
  'description: lower case',
  'Description： fullwidth colon',
  'Input: a new input',
  'Input： fullwidth',
];

/** Text after the first program's answer that the scanner must read as the end (before `Ans:` for some). */
function variants(): { name: string; written: string }[] {
  const out: { name: string; written: string }[] = [];
  for (const start of STARTS) {
    for (const gap of ['\n', '\n\n', '\r\n', '\n  \n']) {
      // After `Ans:`, and in the middle of a program whose steps were written (the parser starts a new program at a
      // later `Input:`/`Description:` or a separator).
      out.push({ name: `after Ans, ${JSON.stringify(gap)} ${start}`, written: `${FIRST}${gap}${start}\nQ1: [EOQ]\nAns: x` });
      out.push({
        name: `after #1, ${JSON.stringify(gap)} ${start}`,
        written: ` [think step-by-step] add\n#1: four${gap}${start}\nInput: more\nQ1: [EOQ]\nAns: x`,
      });
    }
  }
  return out;
}

describe('scanner and parser agree on where a program ends', () => {
  for (const v of variants()) {
    test(v.name, () => {
      const doc = parseArt(HEADER + v.written);
      assert.ok(doc.programs.length >= 2 || doc.separators.length >= 1, 'the parser reads another program or a separator');
      const scan = scanProgram(v.written);
      assert.notEqual(scan.endAt, null, 'the scanner ends the program');
      const endInDoc = HEADER.length + scan.endAt!;
      const firstEnd = doc.programs[0].span.end;
      // The scanner stops at the line break before the next program's first line; the parser's program ends at its
      // last non-blank line: the same place once the blank lines between are dropped.
      assert.equal((HEADER + v.written).slice(0, endInDoc).trimEnd().length, firstEnd);
      const next = doc.separators[0]?.start ?? doc.programs[1].span.start;
      assert.equal((HEADER + v.written).slice(endInDoc, next).trim(), '', 'nothing but blank lines between');
    });
  }

  test('a line the parser does not read as a program start continues the answer for both', () => {
    for (const line of ['--', '—', 'Descriptions are long', 'Describe: no', 'Inputs: no', '- - -']) {
      const written = ` [think] a\n#1: four\n${line}\nQ2: [EOQ]\nAns: 4`;
      const scan = scanProgram(written);
      assert.equal(scan.endAt, null, line);
      assert.equal(parseArt(HEADER + written).programs.length, 1, line);
      assert.equal(scan.steps[0].answer, `four\n${line}`);
    }
  });
});

describe('the scanner fed chunk by chunk', () => {
  const texts = [
    FIRST,
    ' [generate python code] write\nmore words\n#1:\n# a comment\nx = 1\r\nQ2: [code execute] #1\n#2: 1\nQ3: [EOQ]\nAns: 1\n----\nInput: y',
    ' [search] who\n#1: a long answer\nover lines\n\nQ2: [EOQ]\nAns: done\nDescription: next',
    ...variants()
      .slice(0, 20)
      .map(v => v.written),
  ];

  test('any chunking reads what the whole text reads, at every prefix', () => {
    const rand = prng(7);
    for (let round = 0; round < 300; round++) {
      const text = texts[round % texts.length];
      const scanner = new ArtScanner('Q1:');
      let at = 0;
      while (at < text.length) {
        at = Math.min(text.length, at + 1 + Math.floor(rand() * 6));
        const prefix = text.slice(0, at);
        assert.deepEqual(scanner.scan(prefix), scanProgram(prefix), `round ${round} at ${at}`);
      }
    }
  });

  test('a text that changed other than by growing is read afresh', () => {
    const scanner = new ArtScanner('Q1:');
    scanner.scan(' [code execute] print(1)\n#1: 1\nQ2: [code execute] print(2)\n');
    const edited = ' [code execute] print(100)\n#1: 100\nQ2: [code execute] print(2)\n#';
    assert.deepEqual(scanner.scan(edited), scanProgram(edited));
    const cut = ' [code execute] print(1)\n';
    assert.deepEqual(scanner.scan(cut), scanProgram(cut));
  });

  test('each chunk costs the lines it completes plus the unfinished one, not a pass over the text', () => {
    const lines = 2000;
    const body = Array.from({ length: lines }, (_, i) => `line ${i} of a long answer`).join('\n');
    const text = ` [code execute] run\n#1:\n${body}`;
    const scanner = new ArtScanner('Q1:');
    let chunks = 0;
    for (let at = 8; at < text.length; at += 8) {
      scanner.scan(text.slice(0, at));
      chunks++;
    }
    scanner.scan(text);
    chunks++;
    assert.ok(scanner.linesRead <= lines + 2 + chunks, `${scanner.linesRead} lines read for ${lines + 2} lines in ${chunks} chunks`);
  });

  test('the ART protocol reads the task input through the parser', () => {
    const p = new ArtProtocol(`demo\n${HEADER}`, HEADER, { get: () => undefined });
    const ds = p.detect(' [think] x\n#');
    assert.equal(ds.length, 1);
    const q = new ArtProtocol('x', 'Input：  spaced input  \nQ1:', { get: n => (n === 'code execute' ? ({} as never) : undefined) });
    const b = q.detect(' [code execute] #0\n#')[0];
    assert.equal(b.type === 'boundary' ? b.call?.answers?.get(0) : null, 'spaced input');
  });
});
