// The generic s-expression tree of an `.agent` file, read by the peggy grammar (agent.peggy), with its syntax
// problems split out. parse.ts gives the tree its meaning (agents, states, behaviors); the formatter prints it.
import type { Fix } from '../common/diagnostics';
import { LineIndex, type Span } from '../common/text';
import { parse as parseRaw } from './agent.parser';
import type { RawItem, SAtom, SKeyword, SString } from './grammarTypes';

export type { SAtom, SKeyword, SString };

export interface SList {
  kind: 'list';
  items: SExpr[];
  /** False when the `)` is missing; the span then ends with the last item. */
  closed: boolean;
  span: Span;
}

export type SExpr = SAtom | SKeyword | SString | SList;

export interface SComment {
  /** The text after `;`. */
  text: string;
  /** From `;` to the end of the line. */
  span: Span;
}

export interface SyntaxProblem {
  message: string;
  span: Span;
  fixes?: Fix[];
}

export interface SExprFile {
  forms: SExpr[];
  comments: SComment[];
  problems: SyntaxProblem[];
  /** Lists nest deeper than MAX_NESTING: nothing was read; the one problem says so. */
  tooDeep: boolean;
}

/**
 * How deep lists may nest (a `(define` is level 1). Every pass over the tree (reading, checking, compiling,
 * formatting, monitoring, the editor's features) recurses along the nesting, so a deeper file is refused here, once,
 * with one diagnostic, before any pass sees it. Real specs nest about ten deep; the grammar itself overflows the
 * stack a few thousand deep.
 */
export const MAX_NESTING = 1000;

const TOO_DEEP = `Lists are nested too deeply to read (the limit is ${MAX_NESTING} levels): split the formula into simpler ones.`;

/** Reads s-expressions. Never throws: every problem is a SyntaxProblem and reading goes on. */
export function readSExprs(text: string): SExprFile {
  const out: SExprFile = { forms: [], comments: [], problems: [], tooDeep: false };
  let read = readRepaired(text, []);
  // No repair yet, so the offsets are the text's own; the grammar fails (null) only for a nesting depth far past the limit.
  const deep = read ? tooDeep(read.items) : null;
  if (!read || deep) {
    out.tooDeep = true;
    out.problems.push({ message: TOO_DEEP, span: deep ? { start: deep.start, end: deep.start + 1 } : { start: 0, end: Math.min(1, text.length) } });
    return out;
  }
  // Unbalanced parentheses: let the indentation say where a `)` is missing or extra, so that one mistake gives
  // one diagnostic instead of a cascade. Only a file that is unbalanced is ever repaired.
  const repairs: Repair[] = [];
  for (let round = 0; round < MAX_REPAIRS; round++) {
    const repair = findRepair(read.text, read.items);
    if (!repair) break;
    repairs.push(repair.kind === 'insert' ? { kind: 'insert', at: read.map.end(repair.at) } : { kind: 'delete', at: read.map.start(repair.at) });
    const next = readRepaired(text, repairs);
    // Keep a repair only when it makes the parentheses more balanced (an odd layout may point the wrong way).
    if (!next || tooDeep(next.items) || imbalance(next.items) >= imbalance(read.items)) {
      repairs.pop();
      break;
    }
    read = next;
  }
  const { items, map } = read;
  const lines = new LineIndex(text);
  const repaired = new WeakSet<SList>(); // lists closed by a `)` the indentation asked for

  const convert = (raw: RawItem[]): SExpr[] => {
    const forms: SExpr[] = [];
    for (const item of raw) {
      const span = { start: map.start(item.span.start), end: map.end(item.span.end) };
      switch (item.kind) {
        case 'comment':
          out.comments.push({ text: item.text, span });
          break;
        case 'error':
          out.problems.push({ message: item.message, span, fixes: strayCloseFix(item.message, span) });
          break;
        case 'list': {
          const closedByRepair = item.closed && map.isInserted(item.span.end - 1);
          const list: SList = { kind: 'list', items: convert(item.items), closed: item.closed && !closedByRepair, span };
          forms.push(list);
          if (closedByRepair) {
            repaired.add(list);
            out.problems.push({
              message: `'(' is never closed: a ')' is probably missing at the end of line ${lines.position(span.end).line + 1}`,
              span: { start: span.start, end: span.start + 1 },
              fixes: [{ title: "Insert ')'", preferred: true, edits: [{ span: { start: span.end, end: span.end }, newText: ')' }] }],
            });
          }
          break;
        }
        case 'string': {
          for (const p of item.problems)
            out.problems.push({ message: p.message, span: { start: map.start(p.span.start), end: map.end(p.span.end) } });
          if (!item.terminated) {
            out.problems.push({
              message: "unterminated string: the closing '\"' is missing",
              span,
              fixes: [{ title: 'Close the string', preferred: true, edits: [{ span: { start: span.end, end: span.end }, newText: '"' }] }],
            });
          }
          forms.push({ kind: 'string', value: item.value, terminated: item.terminated, span });
          break;
        }
        default:
          forms.push({ ...item, span });
      }
    }
    return forms;
  };
  out.forms = convert(items);
  for (const r of repairs) {
    if (r.kind !== 'delete') continue;
    const span = { start: r.at, end: r.at + 1 };
    out.problems.push({
      message: "unmatched ')': it closes a list too early (the lines after it are indented into it)",
      span,
      fixes: strayCloseFix("unmatched ')'", span),
    });
  }
  for (const form of out.forms) if (form.kind === 'list' && !form.closed && !repaired.has(form)) out.problems.push(unclosed(form, repaired));
  out.problems.sort((a, b) => a.span.start - b.span.start);
  return out;
}

const MAX_REPAIRS = 20;

/** The span of a list nested deeper than MAX_NESTING, or null; iterative, so any depth is measured. */
function tooDeep(items: RawItem[]): Span | null {
  const stack: { items: RawItem[]; depth: number }[] = [{ items, depth: 0 }];
  while (stack.length) {
    const { items: xs, depth } = stack.pop()!;
    for (const x of xs) {
      if (x.kind !== 'list') continue;
      if (depth + 1 > MAX_NESTING) return x.span;
      stack.push({ items: x.items, depth: depth + 1 });
    }
  }
  return null;
}

/** How many `)` are missing at the end of the file or the next `(define`, plus how many have no list to close. */
function imbalance(items: RawItem[]): number {
  let n = 0;
  const strays = (xs: RawItem[]) => {
    for (const x of xs) {
      if (x.kind === 'error' && x.message.startsWith("unmatched ')'")) n++;
      else if (x.kind === 'list') strays(x.items);
    }
  };
  strays(items);
  for (const top of items) {
    for (let l: RawItem | undefined = top; l?.kind === 'list' && !l.closed; l = l.items[l.items.length - 1]) n++;
  }
  return n;
}

/** A virtual edit of the text: a `)` inserted at `at`, or the `)` at `at` deleted. */
interface Repair {
  kind: 'insert' | 'delete';
  at: number;
}

/** Offsets of the repaired text mapped back to the original. */
interface OffsetMap {
  start(o: number): number;
  end(o: number): number;
  /** The repaired text's character at `o` is an inserted `)`. */
  isInserted(o: number): boolean;
}

/** Parse the text with the repairs applied; null when the grammar cannot (pathological nesting depth). */
function readRepaired(original: string, repairs: Repair[]): { text: string; items: RawItem[]; map: OffsetMap } | null {
  let text = original;
  let map: OffsetMap = { start: o => o, end: o => o, isInserted: () => false };
  if (repairs.length) {
    const sorted = [...repairs].sort((a, b) => a.at - b.at || (a.kind === 'insert' ? -1 : 1));
    const parts: string[] = [];
    const origin: number[] = [];
    const inserted = new Set<number>();
    let from = 0;
    for (const r of sorted) {
      for (let i = from; i < r.at; i++) origin.push(i);
      parts.push(original.slice(from, r.at));
      if (r.kind === 'insert') {
        inserted.add(origin.length);
        origin.push(r.at);
        parts.push(')');
        from = r.at;
      } else {
        from = r.at + 1;
      }
    }
    for (let i = from; i < original.length; i++) origin.push(i);
    parts.push(original.slice(from));
    text = parts.join('');
    const at = (o: number) => (o < origin.length ? origin[o] : original.length);
    map = {
      start: at,
      end: o => (o === 0 ? 0 : inserted.has(o - 1) ? origin[o - 1] : at(o - 1) + 1),
      isInserted: o => inserted.has(o),
    };
  }
  try {
    return { text, items: parseRaw(text), map };
  } catch {
    // The grammar accepts every input; only a pathological nesting depth can overflow the stack.
    return null;
  }
}

/** Column of `offset` when only blanks precede it on its line; else -1. */
function lineStartColumn(text: string, offset: number): number {
  let i = offset;
  while (i > 0 && (text[i - 1] === ' ' || text[i - 1] === '\t')) i--;
  return i === 0 || text[i - 1] === '\n' || text[i - 1] === '\r' ? offset - i : -1;
}

function column(text: string, offset: number): number {
  let i = offset;
  while (i > 0 && text[i - 1] !== '\n' && text[i - 1] !== '\r') i--;
  return offset - i;
}

/**
 * Where the indentation contradicts an unbalanced structure (a part of a list always sits right of its `(`).
 * A list left open: the first list with a part that starts a later line at or left of the list's `(`; a `)`
 * goes after the part before. An unmatched `)`: the first list closed before that `)` whose next sibling starts
 * a later line right of the list's `(`; its own `)` is the extra one. A file without indentation says nothing.
 */
function findRepair(text: string, items: RawItem[]): Repair | null {
  const unclosed = items.some(i => i.kind === 'list' && !i.closed);
  const firstStray = items.find(i => i.kind === 'error' && i.message.startsWith("unmatched ')'"));
  if ((!unclosed && !firstStray) || !/[\r\n][ \t]+[^\s;]/.test(text)) return null;
  let best: Repair | null = null;
  const consider = (r: Repair) => {
    if (!best || r.at < best.at) best = r;
  };
  const walk = (siblings: RawItem[]) => {
    const forms = siblings.filter(s => s.kind !== 'comment' && s.kind !== 'error');
    forms.forEach((item, index) => {
      if (item.kind !== 'list') return;
      const col = column(text, item.span.start);
      if (unclosed) {
        const parts = item.items.filter(s => s.kind !== 'comment' && s.kind !== 'error');
        for (let k = 1; k < parts.length; k++) {
          const c = lineStartColumn(text, parts[k].span.start);
          if (c >= 0 && c <= col) {
            consider({ kind: 'insert', at: parts[k - 1].span.end });
            break;
          }
        }
      }
      if (firstStray && item.closed && item.span.end <= firstStray.span.start) {
        const next = forms[index + 1];
        const c = next ? lineStartColumn(text, next.span.start) : -1;
        if (c > col) consider({ kind: 'delete', at: item.span.end - 1 });
      }
      walk(item.items);
    });
  };
  walk(items);
  return best;
}

function strayCloseFix(message: string, span: Span): Fix[] | undefined {
  if (!message.startsWith("unmatched ')'")) return undefined;
  return [{ title: "Remove the unmatched ')'", preferred: true, edits: [{ span, newText: '' }] }];
}
/**
 * Lists left open all end at the same place (the end of the file or the next `(define`), so one problem is
 * reported per top-level form: at the innermost open `(`, with a fix that closes them all where they end.
 */
function unclosed(top: SList, repaired: WeakSet<SList>): SyntaxProblem {
  let innermost = top;
  let count = 1;
  for (;;) {
    const last = innermost.items[innermost.items.length - 1];
    if (!last || last.kind !== 'list' || last.closed || repaired.has(last)) break;
    innermost = last;
    count++;
  }
  const closers = ')'.repeat(count);
  return {
    message: count === 1 ? "'(' is never closed: one ')' is missing" : `'(' is never closed: ${count} ')' are missing`,
    span: { start: innermost.span.start, end: innermost.span.start + 1 },
    fixes: [{ title: `Insert '${closers}'`, preferred: true, edits: [{ span: { start: top.span.end, end: top.span.end }, newText: closers }] }],
  };
}
