// Random edits of the fixture agents: reading, checking, compiling, monitoring and formatting never throw, every
// span lies inside the document, and formatting (when it formats) is idempotent and keeps the meaning.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Span } from '../../../core/common/text';
import { StreamMonitor, automatonToMermaid, checkAgentFile, compileAgent, formatAgentText, monitorText, parseAgentFile } from '../../../core/agent';
import { applyEdits, fixtureAgentFiles, meaning, prng, reactTrace } from './helpers';

const ROUNDS = 2000;
const random = prng(20230601);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
const SNIPPETS = [
  '(',
  ')',
  '"',
  ';',
  ':',
  '\\',
  '\n',
  ' ',
  '[x]',
  ':env-input',
  '(next ',
  '(until ',
  '(or ',
  'Tht',
  '(:text "t")',
  '(define z',
  '\u00a0',
];

function mutate(text: string): string {
  const lines = text.split('\n');
  const at = () => Math.floor(random() * (text.length + 1));
  const line = () => Math.floor(random() * lines.length);
  switch (Math.floor(random() * 7)) {
    case 0: {
      const i = at();
      return text.slice(0, i) + pick(SNIPPETS) + text.slice(i);
    }
    case 1: {
      const i = at();
      return text.slice(0, i) + text.slice(i + 1 + Math.floor(random() * 3));
    }
    case 2: {
      const i = line();
      lines.splice(i, 0, lines[i]);
      return lines.join('\n');
    }
    case 3: {
      const [i, j] = [line(), line()];
      [lines[i], lines[j]] = [lines[j], lines[i]];
      return lines.join('\n');
    }
    case 4:
      lines.splice(line(), 1);
      return lines.join('\n');
    case 5: {
      const i = Math.floor(random() * Math.max(0, text.length - 1));
      return text.slice(0, i) + text[i + 1] + text[i] + text.slice(i + 2);
    }
    default: {
      const i = at();
      const j = at();
      return text.slice(0, i) + text.slice(Math.min(i, j), Math.max(i, j)) + text.slice(i);
    }
  }
}

function inside(span: Span, length: number, what: string): void {
  assert.ok(Number.isInteger(span.start) && Number.isInteger(span.end), what);
  assert.ok(span.start >= 0 && span.start <= span.end && span.end <= length, `${what}: ${span.start}-${span.end} outside 0-${length}`);
}

test(`${ROUNDS} random edits of the fixture agents never throw and keep every span inside the document`, () => {
  const corpus = fixtureAgentFiles().map(f => f.text);
  corpus.push(corpus[0] + corpus[3]);
  const trace = reactTrace().slice(0, 400);
  let formatted = 0;
  for (let round = 0; round < ROUNDS; round++) {
    let text = pick(corpus);
    const edits = 1 + Math.floor(random() * 3);
    for (let e = 0; e < edits; e++) text = mutate(text);
    const context = `round ${round}: ${JSON.stringify(text)}`;
    try {
      const file = parseAgentFile(text);
      const ds = checkAgentFile(file);
      for (const d of ds) {
        inside(d.span, text.length, `${d.code} span`);
        for (const r of d.related ?? []) inside(r.span, text.length, `${d.code} related`);
        for (const f of d.fixes ?? []) for (const e of f.edits) inside(e.span, text.length, `${d.code} fix`);
      }
      for (const a of file.agents) {
        inside(a.span, text.length, 'agent');
        for (const s of a.states) inside(s.span, text.length, 'state');
      }
      const fix = ds.find(d => d.fixes?.length)?.fixes?.[0];
      if (fix && round % 4 === 0) checkAgentFile(parseAgentFile(applyEdits(text, fix.edits)));
      if (round % 5 === 0) {
        for (const a of file.agents) {
          const c = compileAgent(a);
          automatonToMermaid(c);
          const batch = monitorText(c, trace, { complete: true });
          const m = new StreamMonitor(c, { complete: true });
          for (let i = 0; i < trace.length; i += 37) m.feed(trace.slice(i, i + 37));
          m.end();
          assert.deepEqual(m.result(), batch);
        }
      }
      const out = round % 2 === 0 ? formatAgentText(text) : null;
      if (out !== null) {
        formatted++;
        assert.equal(formatAgentText(out), out, 'formatting is idempotent');
        assert.deepEqual(meaning(out), meaning(text), 'formatting keeps the meaning');
      }
    } catch (e) {
      assert.fail(`${context}\n${e instanceof Error ? e.stack : String(e)}`);
    }
  }
  assert.ok(formatted > ROUNDS / 20, `only ${formatted} edits were formattable`);
});
