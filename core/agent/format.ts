// Pretty-printing of `.agent` files in the layout of the papers' specs (the corpus style):
//
//   (define react-agent
//     (:states
//       (Obs (:text "[Observation]") (:flags :env-input))
//       ...)
//     (:behavior
//       (next Ques
//             (until (next Tht Act Act-Inp Obs)
//                    Final-Tht)
//             Ans)))
//
// A define and its clauses put each part on its own line. Any other list stays on one line when it fits in
// WIDTH columns; else (and always, for the behavior formula and its direct arguments when they hold a compound
// formula) the first argument stays beside the operator, the others align under it, names pack onto a line and
// every compound argument gets a line of its own. Comments are kept where they are (own line or end of line);
// atoms and strings are copied as written.
import type { Span } from '../common/text';
import { readSExprs, type SComment, type SExpr, type SList } from './sexpr';

const WIDTH = 80;

interface Line {
  indent: number;
  text: string;
  comment?: string;
}

type Element = { kind: 'item'; node: SExpr; span: Span } | { kind: 'comment'; comment: SComment; span: Span };

/** The file pretty-printed, or null when it has syntax errors (it would not be safe to move things around). */
export function formatAgentText(text: string): string | null {
  const file = readSExprs(text);
  if (file.problems.length) return null;
  const printer = new Printer(text, file.comments);
  const lines = printer.top(file.forms);
  if (!lines.length) return '';
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  return lines.map(render).join(eol) + eol;
}

function render(l: Line): string {
  if (!l.text && l.comment === undefined) return '';
  const comment = l.comment === undefined ? '' : `${l.text ? ' ' : ''};${l.comment.trimEnd()}`;
  return ' '.repeat(l.indent) + l.text + comment;
}

class Printer {
  constructor(
    private readonly text: string,
    private readonly comments: SComment[],
  ) {}

  top(forms: SExpr[]): Line[] {
    const out: Line[] = [];
    let prev: Element | null = null;
    for (const el of this.elements(forms, { start: 0, end: this.text.length })) {
      if (el.kind === 'comment' && prev && this.sameLine(prev.span.end, el.span.start)) {
        out[out.length - 1].comment = el.comment.text;
        continue;
      }
      // A blank line after every top-level form; elsewhere only where the source had one.
      if (prev && (prev.kind === 'item' || this.blankBetween(prev.span.end, el.span.start))) out.push({ indent: 0, text: '' });
      if (el.kind === 'comment') out.push({ indent: 0, text: '', comment: el.comment.text });
      else out.push(...this.node(el.node, 0, null));
      prev = el;
    }
    return out;
  }

  /** Items of a list (or of the file) with the comments that sit directly among them, in document order. */
  private elements(items: SExpr[], within: Span): Element[] {
    const els: Element[] = items.map(node => ({ kind: 'item', node, span: node.span }));
    for (const c of this.comments) {
      if (c.span.start < within.start || c.span.end > within.end) continue;
      if (items.some(i => i.kind === 'list' && i.span.start < c.span.start && c.span.start < i.span.end)) continue;
      els.push({ kind: 'comment', comment: c, span: c.span });
    }
    return els.sort((a, b) => a.span.start - b.span.start);
  }

  private sameLine(from: number, to: number): boolean {
    return !/[\r\n]/.test(this.text.slice(from, to));
  }

  private blankBetween(from: number, to: number): boolean {
    return (this.text.slice(from, to).match(/\r\n|\r|\n/g)?.length ?? 0) >= 2;
  }

  private hasComment(span: Span): boolean {
    return this.comments.some(c => c.span.start > span.start && c.span.start < span.end);
  }

  private flat(node: SExpr): string {
    if (node.kind !== 'list') return this.text.slice(node.span.start, node.span.end);
    return `(${node.items.map(i => this.flat(i)).join(' ')})`;
  }

  /** Lines of a node printed from column `col`; the first line continues the caller's line. */
  private node(node: SExpr, col: number, formulaDepth: number | null): Line[] {
    if (node.kind !== 'list') return [{ indent: col, text: this.flat(node) }];
    const head = node.items[0];
    if (head?.kind === 'atom' && head.name === 'define' && col === 0) return this.vertical(node, col, null, 2);
    if (head?.kind === 'keyword' && (head.name === 'states' || head.name === 'behavior') && node.items.length > 1) {
      return this.vertical(node, col, head.name === 'behavior' ? 0 : null, 1);
    }
    return this.smart(node, col, formulaDepth);
  }

  /** `(HEAD...` on the first line (the first `headCount` items), then every other part on its own line. */
  private vertical(list: SList, col: number, childDepth: number | null, headCount: number): Line[] {
    const els = this.elements(list.items, list.span);
    const indent = col + 2;
    const headItems: SExpr[] = [];
    let i = 0;
    while (i < els.length && headItems.length < headCount) {
      const el = els[i];
      if (el.kind !== 'item' || (headItems.length > 0 && el.node.kind !== 'atom')) break;
      headItems.push(el.node);
      i++;
    }
    const lines: Line[] = [{ indent: col, text: `(${headItems.map(h => this.flat(h)).join(' ')}` }];
    let prevEnd = headItems.length ? headItems[headItems.length - 1].span.end : list.span.start + 1;
    for (; i < els.length; i++) {
      const el = els[i];
      if (el.kind === 'comment' && this.sameLine(prevEnd, el.span.start) && lines[lines.length - 1].comment === undefined) {
        lines[lines.length - 1].comment = el.comment.text;
      } else {
        if (this.blankBetween(prevEnd, el.span.start)) lines.push({ indent: 0, text: '' });
        if (el.kind === 'comment') lines.push({ indent, text: '', comment: el.comment.text });
        else lines.push(...this.node(el.node, indent, childDepth));
      }
      prevEnd = el.span.end;
    }
    return close(lines, indent);
  }

  /** One line when it fits; else the first argument beside the head and the rest aligned under it. */
  private smart(list: SList, col: number, depth: number | null): Line[] {
    const items = list.items;
    const forced = depth !== null && depth <= 1 && items.slice(1).some(i => i.kind === 'list');
    const comments = this.hasComment(list.span);
    if (!comments) {
      const flat = this.flat(list);
      if (!forced && col + flat.length <= WIDTH) return [{ indent: col, text: flat }];
    }
    if (!items.length) return close([{ indent: col, text: '(' }], col + 1);
    const childDepth = depth === null ? null : depth + 1;
    const els = this.elements(items, list.span);
    const [first, ...rest] = els;
    let lines: Line[];
    let argCol: number;
    let lastWasName = false;
    let startNewLine = false;
    if (first.kind === 'item') {
      const headLines = this.node(first.node, col + 1, childDepth);
      lines = [{ indent: col, text: `(${headLines[0].text}`, comment: headLines[0].comment }, ...headLines.slice(1)];
      const singleName = headLines.length === 1 && first.node.kind !== 'list';
      argCol = singleName ? col + 1 + headLines[0].text.length + 1 : col + 1;
      startNewLine = !singleName;
    } else {
      lines = [{ indent: col, text: '(', comment: first.comment.text }];
      argCol = col + 1;
      startNewLine = true;
    }
    let prevEnd = first.span.end;
    let onHeadLine = !startNewLine;
    for (const el of rest) {
      const last = lines[lines.length - 1];
      if (el.kind === 'comment') {
        if (this.sameLine(prevEnd, el.span.start) && last.comment === undefined) last.comment = el.comment.text;
        else lines.push({ indent: argCol, text: '', comment: el.comment.text });
        startNewLine = true;
      } else {
        const isName = el.node.kind !== 'list';
        const sub = this.node(el.node, argCol, childDepth);
        const lineEnd = last.indent + last.text.length;
        const canJoin =
          last.comment === undefined && !startNewLine && (onHeadLine || (isName && lastWasName && lineEnd + 1 + sub[0].text.length <= WIDTH));
        if (canJoin) {
          last.text += ` ${sub[0].text}`;
          last.comment = sub[0].comment;
          lines.push(...sub.slice(1));
        } else {
          lines.push(...sub);
        }
        onHeadLine = false;
        startNewLine = !isName;
        lastWasName = isName;
      }
      prevEnd = el.span.end;
    }
    return close(lines, argCol);
  }
}

/** Append the list's `)`: on the last line, or on a line of its own when the last line is a comment alone. */
function close(lines: Line[], indent: number): Line[] {
  const last = lines[lines.length - 1];
  if (!last.text && last.comment !== undefined) lines.push({ indent, text: ')' });
  else last.text += ')';
  return lines;
}
