// The program formatter: normalises the spacing of marker lines and nothing else (answers may hold code, so their
// bodies are never touched). `Q2:[ code  execute ]run` becomes `Q2: [code execute] run`; `Ans:18` becomes
// `Ans: 18`; trailing blanks after a marker or a `]` are dropped. Returns minimal edits, in document order.
import { applyEdits, type TextEdit } from '../common/diagnostics';
import type { ArtDocument, Marked, Step } from './ast';
import { parseArt } from './parse';

const BLANK = /^[ \t]*$/;

export function formatArt(doc: ArtDocument): TextEdit[] {
  const text = doc.text;
  const edits: TextEdit[] = [];
  const replace = (start: number, end: number, newText: string) => {
    if (start <= end && text.slice(start, end) !== newText) edits.push({ span: { start, end }, newText });
  };
  /** After `at`: the blanks up to the end of the line become one space before text, nothing before a line break. */
  const oneSpaceAfter = (at: number) => {
    let e = at;
    while (e < text.length && (text[e] === ' ' || text[e] === '\t')) e++;
    const c = text[e];
    replace(at, e, e >= text.length || c === '\n' || c === '\r' ? '' : ' ');
  };
  const markerPart = (m: Marked | null) => {
    if (m) oneSpaceAfter(m.marker.end);
  };

  for (const p of doc.programs) {
    markerPart(p.description);
    markerPart(p.input);
    for (const s of p.steps) {
      step(text, s, replace, oneSpaceAfter);
      if (s.answer) markerPart(s.answer);
    }
    for (const a of p.strayAnswers) markerPart(a);
    markerPart(p.ans);
  }
  return edits.sort((a, b) => a.span.start - b.span.start);
}

function step(text: string, s: Step, replace: (start: number, end: number, newText: string) => void, oneSpaceAfter: (at: number) => void): void {
  // `Q2 :` → `Q2:` (the number and the colon as written, ASCII or fullwidth).
  const marker = `Q${text.slice(s.numberSpan.start, s.numberSpan.end)}${text[s.marker.end - 1]}`;
  if (text.slice(s.marker.start, s.marker.end) !== marker) replace(s.marker.start, s.marker.end, marker);
  const b = s.bracketSpan;
  if (!b) {
    oneSpaceAfter(s.marker.end); // a bare `Qk:` (the template's slot) or a query without a name
    return;
  }
  const between = text.slice(s.marker.end, b.start);
  if (BLANK.test(between)) replace(s.marker.end, b.start, ' ');
  if (s.unclosedBracket || text[b.end - 1] !== ']') return; // leave a broken query to its diagnostic
  const inner = text.slice(b.start + 1, b.end - 1);
  const folded = inner.trim().replace(/\s+/g, ' ');
  if (folded) replace(b.start + 1, b.end - 1, folded);
  oneSpaceAfter(b.end);
}

export function formatArtText(text: string): string {
  return applyEdits(text, formatArt(parseArt(text)));
}
