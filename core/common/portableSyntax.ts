// The part of regular-expression and GBNF syntax that every constraint engine reads the same: xgrammar (behind vLLM
// and SGLang; 0.1.27 reads non-ASCII classes wrongly, later releases fix it but a server may not have one yet),
// llama.cpp's GBNF parser, Python's `re` and JavaScript's RegExp with the `u` flag. Every decoding constraint is
// written through here (core/common/regular.ts for agent specs, core/protocols/constraints.ts for ART programs and
// MultiTool-CoT triggers).
//
// - A character class holds ASCII only. xgrammar 0.1.27 cuts a class's code points to their low byte: a non-ASCII
//   character in a class of more than one character matches the wrong character (U+2028 in a class matches `(`),
//   and a negated class lets every non-ASCII character through whatever it lists. So a non-ASCII character that is
//   allowed is a literal of its own (`([a-z]|é)`, GBNF `([a-z] | "é")`), and "every non-ASCII character" is the
//   one form both read alike: a negated class of ASCII characters (`[^\u0000-\u007f]`, or `[^\]\n]` for "anything
//   but `]` and a newline"). A class can therefore never leave out one non-ASCII character while letting the others
//   through: the automaton is made to need no such class (portableDfa in regular.ts).
// - Escapes: `\uXXXX` (and GBNF `\UXXXXXXXX`), `\n`, `\r`, `\t` and a backslash before punctuation. Never `\xNN`:
//   xgrammar reads every hex digit after `\x` (`\x411` is U+0411; llama.cpp reads `A1`), and its regex converter
//   turns a control character into `\xNN` itself, so in a regex class control characters come last, where a
//   backslash or `]` follows them. Never `\f`, `\v`, `\b` in GBNF: llama.cpp rejects them.
// - A regex class never starts with `^` unless negated: xgrammar's converter writes `\^` as a bare `^`.

export type SyntaxForm = 'regex' | 'gbnf';

const REGEX_META = new Set([...'\\^$.|?*+()[]{}/']);
const ASCII_END = 0x80;

/** The character (its first code point) is ASCII: the only kind a portable class may hold. */
export const isAscii = (c: string) => c.codePointAt(0)! < ASCII_END;

/** Printable and not white space: written as itself; everything else is escaped. */
const visible = (c: string) => /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(c);

function hexEscape(code: number, form: SyntaxForm): string | null {
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, '0')}`;
  // An astral character: JavaScript knows no \U, Python's re no \u{...}; its UTF-8 is read alike by all.
  return form === 'gbnf' ? `\\U${code.toString(16).padStart(8, '0')}` : null;
}

/** One character outside a class, escaped for the form (a regex atom, or the inside of a GBNF string). */
function literalChar(c: string, form: SyntaxForm): string {
  if (c === '\n') return '\\n';
  if (c === '\r') return '\\r';
  if (c === '\t') return '\\t';
  if (form === 'regex' ? REGEX_META.has(c) : c === '\\' || c === '"') return `\\${c}`;
  if (c === ' ' || visible(c)) return c;
  return hexEscape(c.codePointAt(0)!, form) ?? c;
}

/** A string matched as itself: a regex sequence, or a GBNF string literal `"..."`. */
export function literal(s: string, form: SyntaxForm): string {
  const body = [...s].map(c => literalChar(c, form)).join('');
  return form === 'gbnf' ? `"${body}"` : body;
}

/** An ASCII character inside a class. */
function classChar(code: number, form: SyntaxForm): string {
  const c = String.fromCharCode(code);
  if (c === '\n') return '\\n';
  if (c === '\r') return '\\r';
  if (c === '\t') return '\\t';
  if (code < 0x20 || code === 0x7f) return hexEscape(code, form)!;
  if (c === '\\' || c === ']' || c === '[') return `\\${c}`;
  if (c === '^' || c === '-') return form === 'regex' ? `\\${c}` : hexEscape(code, form)!;
  if (c === '"' && form === 'gbnf') return hexEscape(code, form)!;
  return c;
}

const isControl = (code: number) => code < 0x20 || code === 0x7f;

/** The inside of a class over ASCII code points: printable characters first (`^` not first), control characters last. */
function classBody(codes: readonly number[], form: SyntaxForm): string {
  const set = new Set(codes);
  if (set.size === ASCII_END) return `${classChar(0, form)}-${classChar(0x7f, form)}`;
  const runs = (keep: (code: number) => boolean): string[] => {
    const out: string[] = [];
    for (let lo = 0; lo < ASCII_END; lo++) {
      if (!set.has(lo) || !keep(lo)) continue;
      let hi = lo;
      while (hi + 1 < ASCII_END && set.has(hi + 1) && keep(hi + 1)) hi++;
      out.push(
        hi - lo >= 2 ? `${classChar(lo, form)}-${classChar(hi, form)}` : hi > lo ? classChar(lo, form) + classChar(hi, form) : classChar(lo, form),
      );
      lo = hi;
    }
    return out;
  };
  const printable = runs(c => !isControl(c) && c !== 0x5e);
  const controls = runs(isControl);
  const caret = set.has(0x5e) ? [classChar(0x5e, form)] : [];
  return (printable.length ? [...printable, ...caret, ...controls] : [...controls, ...caret]).join('');
}

/**
 * A set of characters: `ascii` code points (below 0x80), `literals` (non-ASCII characters, each written out) and,
 * with `nonAscii`, every non-ASCII character (the literals are then among them).
 * The set must not be empty.
 */
export interface CharSet {
  ascii: readonly number[];
  literals?: readonly string[];
  nonAscii?: boolean;
}

/** A set of characters as one regex atom or GBNF item, in the portable subset (see the head of this file). */
export function charSetText(set: CharSet, form: SyntaxForm): string {
  const ascii = [...new Set(set.ascii)].sort((a, b) => a - b);
  if (ascii.some(c => c < 0 || c >= ASCII_END)) throw new Error(`charSetText: not ASCII: ${ascii.join(', ')}`);
  const parts: string[] = [];
  if (set.nonAscii) {
    const inAscii = new Set(ascii);
    const excluded = Array.from({ length: ASCII_END }, (_, c) => c).filter(c => !inAscii.has(c));
    // A negated class of the ASCII characters left out: those, and every non-ASCII character.
    parts.push(`[^${classBody(excluded.length ? excluded : Array.from({ length: ASCII_END }, (_, c) => c), form)}]`);
    if (!excluded.length) parts.unshift(`[${classBody(ascii, form)}]`);
  } else {
    if (ascii.length === 1) parts.push(literal(String.fromCharCode(ascii[0]), form));
    else if (ascii.length) parts.push(`[${classBody(ascii, form)}]`);
    for (const c of [...new Set(set.literals ?? [])].sort()) {
      if (c.codePointAt(0)! < ASCII_END || [...c].length !== 1) throw new Error(`charSetText: not one non-ASCII character: ${JSON.stringify(c)}`);
      parts.push(literal(c, form));
    }
  }
  if (!parts.length) throw new Error('charSetText: an empty set of characters');
  return parts.length === 1 ? parts[0] : form === 'gbnf' ? `(${parts.join(' | ')})` : `(${parts.join('|')})`;
}

/** Any character but the given ASCII ones (every non-ASCII character included): `[^...]`. */
export function anyCharExcept(chars: string, form: SyntaxForm): string {
  const codes = [...chars].map(c => c.codePointAt(0)!);
  if (!codes.length || codes.some(c => c >= ASCII_END))
    throw new Error(`anyCharExcept: only ASCII characters can be left out portably, not ${JSON.stringify(chars)}`);
  return `[^${classBody(codes, form)}]`;
}
