// A deterministic automaton over a small alphabet of character classes, written out as a regular expression (state
// elimination) and as a GBNF grammar (one rule per state). The decoding constraints (core/agent/constrain.ts)
// build their automata here; the output is the plain regular-expression syntax that vLLM, SGLang and Python's `re`
// all read (groups, `|`, `*`, `?`, character classes; no lookaround, no backreferences), in the subset that every
// engine reads the same (core/common/portableSyntax.ts): the automaton is first made portable (portableDfa), so that
// no class has to leave out a non-ASCII character.
import { charSetText, isAscii, type SyntaxForm } from './portableSyntax';

/** The alphabet: `chars[i]` are the characters of symbol i; the symbol `other` (if any) is every character not listed. */
export interface Alphabet {
  chars: string[][];
  /** Index of the symbol that stands for every character outside all `chars`; -1 when there is none. */
  other: number;
}

/** A deterministic automaton; symbol i of `next[s][i]` is the alphabet's symbol i. */
export interface Automaton<A> {
  alphabet: A;
  start: number;
  accept: boolean[];
  /** next[s][symbol]: the target state, or -1 (no way on). */
  next: number[][];
}

export type Dfa = Automaton<Alphabet>;

/**
 * A symbol of the portable alphabet: ASCII characters (written in a class), non-ASCII characters (each written out),
 * or every non-ASCII character (a negated ASCII class). Symbols may overlap: a non-ASCII character of a prompt text
 * is both its own symbol and one of "every non-ASCII character".
 */
export interface PortableSymbol {
  ascii: number[];
  literals: string[];
  nonAscii: boolean;
}

export type PortableDfa = Automaton<PortableSymbol[]>;

/** Keeps only the states that are reachable and can still reach an accepting state, merged where equivalent (Moore). */
export function minimizeDfa<A>(d: Automaton<A>): Automaton<A> {
  const symbols = d.next[d.start].length;
  // Useful states: reachable from start and co-reachable to an accepting state.
  const reach = new Set<number>([d.start]);
  const queue = [d.start];
  while (queue.length)
    for (const t of d.next[queue.pop()!])
      if (t >= 0 && !reach.has(t)) {
        reach.add(t);
        queue.push(t);
      }
  const live = new Set<number>([...reach].filter(s => d.accept[s]));
  for (let changed = true; changed;) {
    changed = false;
    for (const s of reach)
      if (!live.has(s) && d.next[s].some(t => t >= 0 && live.has(t))) {
        live.add(s);
        changed = true;
      }
  }
  if (!live.has(d.start)) return { alphabet: d.alphabet, start: 0, accept: [false], next: [new Array(symbols).fill(-1)] };
  const states = [...live].sort((a, b) => a - b);
  const target = (s: number, a: number) => (d.next[s][a] >= 0 && live.has(d.next[s][a]) ? d.next[s][a] : -1);
  let block = new Map<number, number>(states.map(s => [s, d.accept[s] ? 1 : 0]));
  for (;;) {
    const sig = new Map<string, number>();
    const refined = new Map<number, number>();
    for (const s of states) {
      const key = `${block.get(s)}|${Array.from({ length: symbols }, (_, a) => (target(s, a) < 0 ? -1 : block.get(target(s, a)))).join(',')}`;
      if (!sig.has(key)) sig.set(key, sig.size);
      refined.set(s, sig.get(key)!);
    }
    const before = new Set(block.values()).size;
    block = refined;
    if (sig.size === before) break;
  }
  // Number the blocks in breadth-first order from the start, so the output is stable.
  const order = new Map<number, number>();
  const rep = new Map<number, number>();
  for (const s of states) if (!rep.has(block.get(s)!)) rep.set(block.get(s)!, s);
  const q = [block.get(d.start)!];
  order.set(q[0], 0);
  for (let i = 0; i < q.length; i++) {
    const s = rep.get(q[i])!;
    for (let a = 0; a < symbols; a++) {
      const t = target(s, a);
      if (t < 0) continue;
      const b = block.get(t)!;
      if (!order.has(b)) {
        order.set(b, order.size);
        q.push(b);
      }
    }
  }
  const accept: boolean[] = [];
  const next: number[][] = [];
  for (const [b, i] of order) {
    const s = rep.get(b)!;
    accept[i] = d.accept[s];
    next[i] = Array.from({ length: symbols }, (_, a) => (target(s, a) < 0 ? -1 : order.get(block.get(target(s, a))!)!));
  }
  return { alphabet: d.alphabet, start: 0, accept, next };
}

/**
 * The automaton over the portable alphabet. Its ASCII characters and the non-ASCII characters the alphabet lists
 * keep their own symbols; every other non-ASCII character can only be read by "every non-ASCII character", which
 * also reads the listed ones. So that symbol leads to where all of them lead at once: a state of the result is a
 * set of states of `d` and accepts what all of them accept (subset construction, then minimised). The language is
 * then `d`'s, less the texts that `d` would refuse with some unlisted non-ASCII character put in place of another
 * non-ASCII character: the most a portable constraint can keep without letting anything through that `d` refuses.
 * The non-ASCII characters of the `unlisted` symbols are not written out either (they count as unlisted ones), which
 * keeps the constraint small where they would have to be written out on almost every transition.
 */
export function portableDfa(d: Dfa, unlisted: ReadonlySet<number> = new Set()): PortableDfa {
  const { chars, other } = d.alphabet;
  const listed = new Set(chars.flat());
  const symbols: PortableSymbol[] = [];
  /** For each portable symbol, the symbols of `d` its characters may be. */
  const from: number[][] = [];
  chars.forEach((cs, i) => {
    const ascii =
      i === other
        ? Array.from({ length: 0x80 }, (_, c) => c).filter(c => !listed.has(String.fromCharCode(c)))
        : cs.filter(isAscii).map(c => c.codePointAt(0)!);
    if (ascii.length) {
      symbols.push({ ascii, literals: [], nonAscii: false });
      from.push([i]);
    }
    const literals = i === other || unlisted.has(i) ? [] : cs.filter(c => !isAscii(c));
    if (literals.length) {
      symbols.push({ ascii: [], literals, nonAscii: false });
      from.push([i]);
    }
  });
  if (other >= 0) {
    symbols.push({ ascii: [], literals: [], nonAscii: true });
    from.push(chars.flatMap((cs, i) => (i === other || !cs.every(isAscii) ? [i] : [])));
  }
  const sets: number[][] = [];
  const ids = new Map<string, number>();
  const id = (set: number[]) => {
    const key = set.join(',');
    let i = ids.get(key);
    if (i === undefined) {
      i = sets.length;
      ids.set(key, i);
      sets.push(set);
    }
    return i;
  };
  const start = id([d.start]);
  const accept: boolean[] = [];
  const next: number[][] = [];
  for (let k = 0; k < sets.length; k++) {
    accept[k] = sets[k].every(q => d.accept[q]);
    next[k] = from.map(syms => {
      const targets = new Set<number>();
      for (const q of sets[k])
        for (const a of syms) {
          const t = d.next[q][a];
          if (t < 0) return -1;
          targets.add(t);
        }
      return id([...targets].sort((x, y) => x - y));
    });
  }
  return minimizeDfa({ alphabet: symbols, start, accept, next });
}

// ---- regular expressions ----

type Re = { k: 'eps' } | { k: 'set'; syms: number[] } | { k: 'cat'; parts: Re[] } | { k: 'alt'; parts: Re[]; opt: boolean } | { k: 'star'; r: Re };

const EPS: Re = { k: 'eps' };

function cat(...rs: Re[]): Re {
  const parts: Re[] = [];
  for (const r of rs) {
    if (r.k === 'eps') continue;
    if (r.k === 'cat') parts.push(...r.parts);
    else parts.push(r);
  }
  return parts.length === 0 ? EPS : parts.length === 1 ? parts[0] : { k: 'cat', parts };
}

function alt(a: Re, b: Re, alphabet: readonly PortableSymbol[]): Re {
  let opt = false;
  const syms = new Set<number>();
  const parts: Re[] = [];
  const seen = new Set<string>();
  const add = (r: Re) => {
    if (r.k === 'eps') opt = true;
    else if (r.k === 'set') r.syms.forEach(s => syms.add(s));
    else if (r.k === 'alt') {
      if (r.opt) opt = true;
      r.parts.forEach(add);
    } else {
      const key = printRe(r, alphabet);
      if (!seen.has(key)) {
        seen.add(key);
        parts.push(r);
      }
    }
  };
  add(a);
  add(b);
  if (syms.size) parts.unshift({ k: 'set', syms: [...syms].sort((x, y) => x - y) });
  // x* | eps is x*.
  if (opt && parts.length === 1 && parts[0].k === 'star') return parts[0];
  if (!parts.length) return EPS;
  if (parts.length === 1 && !opt) return parts[0];
  return { k: 'alt', parts, opt };
}

function star(r: Re): Re {
  if (r.k === 'eps') return EPS;
  if (r.k === 'star') return r;
  if (r.k === 'alt' && r.opt) return star({ ...r, opt: false });
  return { k: 'star', r };
}

/** A set of symbols as one regex atom or GBNF item (the portable subset: core/common/portableSyntax.ts). */
function symbolsText(syms: readonly number[], alphabet: readonly PortableSymbol[], form: SyntaxForm): string {
  const ascii: number[] = [];
  const literals: string[] = [];
  let nonAscii = false;
  for (const s of syms) {
    ascii.push(...alphabet[s].ascii);
    literals.push(...alphabet[s].literals);
    nonAscii ||= alphabet[s].nonAscii;
  }
  return charSetText({ ascii, literals, nonAscii }, form);
}

const printed = new WeakMap<Re, string>();

function printRe(r: Re, alphabet: readonly PortableSymbol[]): string {
  let s = printed.get(r);
  if (s === undefined) printed.set(r, (s = printReOnce(r, alphabet)));
  return s;
}

function printReOnce(r: Re, alphabet: readonly PortableSymbol[]): string {
  const group = (s: string) => `(${s})`;
  switch (r.k) {
    case 'eps':
      return '';
    case 'set':
      return symbolsText(r.syms, alphabet, 'regex');
    case 'cat':
      return r.parts.map(p => (p.k === 'alt' && !p.opt ? group(printRe(p, alphabet)) : printRe(p, alphabet))).join('');
    case 'alt': {
      const body = r.parts.map(p => printRe(p, alphabet)).join('|');
      if (!r.opt) return body;
      const single = r.parts.length === 1 && r.parts[0].k === 'set';
      return single ? `${body}?` : `${group(body)}?`;
    }
    case 'star': {
      const inner = printRe(r.r, alphabet);
      const atomic = r.r.k === 'set';
      return atomic ? `${inner}*` : `${group(inner)}*`;
    }
  }
}

/** No portable regex or grammar matches nothing at all: every class matches some character (a negated one, in xgrammar 0.1.27, every non-ASCII character). */
const EMPTY = 'the automaton accepts no text: there is no constraint to write (check for an empty language first)';

/** The language of the automaton as a regular expression (state elimination, cheapest state first). */
export function dfaToRegex(d: PortableDfa): string {
  const n = d.accept.length;
  if (!d.accept.some(Boolean)) throw new Error(EMPTY);
  const S = n;
  const F = n + 1;
  const edges = new Map<number, Map<number, Re>>();
  const into = new Map<number, Set<number>>();
  const add = (p: number, q: number, r: Re) => {
    let m = edges.get(p);
    if (!m) edges.set(p, (m = new Map()));
    const old = m.get(q);
    m.set(q, old ? alt(old, r, d.alphabet) : r);
    if (p !== q) {
      let i = into.get(q);
      if (!i) into.set(q, (i = new Set()));
      i.add(p);
    }
  };
  add(S, d.start, EPS);
  for (let s = 0; s < n; s++) {
    if (d.accept[s]) add(s, F, EPS);
    const byTarget = new Map<number, number[]>();
    d.next[s].forEach((t, a) => {
      if (t >= 0) byTarget.set(t, [...(byTarget.get(t) ?? []), a]);
    });
    for (const [t, syms] of byTarget) add(s, t, { k: 'set', syms });
  }
  const remaining = new Set(Array.from({ length: n }, (_, i) => i));
  const incoming = (k: number) => [...(into.get(k) ?? [])];
  while (remaining.size) {
    // Eliminate the state whose elimination writes the least (Delgado and Morais's weight: the length each of its
    // incoming and outgoing expressions is copied with, and its loop's, over the paths through it).
    let best = -1;
    let bestCost = Infinity;
    for (const k of remaining) {
      const out = edges.get(k) ?? new Map<number, Re>();
      const ins = incoming(k);
      const outs = [...out.keys()].filter(q => q !== k);
      const len = (r: Re) => printRe(r, d.alphabet).length;
      const loop = out.get(k);
      const cost =
        ins.reduce((n, p) => n + len(edges.get(p)!.get(k)!) * (outs.length - 1), 0) +
        outs.reduce((n, q) => n + len(out.get(q)!) * (ins.length - 1), 0) +
        (loop ? len(loop) * (ins.length * outs.length - 1) : 0);
      if (cost < bestCost) {
        best = k;
        bestCost = cost;
      }
    }
    const k = best;
    remaining.delete(k);
    const out = edges.get(k) ?? new Map<number, Re>();
    const loop = out.get(k);
    const mid = loop ? star(loop) : EPS;
    for (const p of incoming(k)) {
      const pk = edges.get(p)!.get(k)!;
      edges.get(p)!.delete(k);
      for (const [q, kq] of out) if (q !== k) add(p, q, cat(pk, mid, kq));
    }
    for (const q of out.keys()) into.get(q)?.delete(k);
    into.delete(k);
    edges.delete(k);
  }
  const r = edges.get(S)?.get(F);
  if (!r) throw new Error(EMPTY);
  return printRe(r, d.alphabet);
}

/** The language of the automaton as a GBNF grammar (llama.cpp syntax): `root ::= s0`, one right-linear rule per state. */
export function dfaToGbnf(d: PortableDfa): string {
  if (!d.accept.some(Boolean)) throw new Error(EMPTY);
  const lines = [`root ::= s${d.start}`];
  d.next.forEach((row, s) => {
    const byTarget = new Map<number, number[]>();
    row.forEach((t, a) => {
      if (t >= 0) byTarget.set(t, [...(byTarget.get(t) ?? []), a]);
    });
    const alts = [...byTarget].map(([t, syms]) => `${symbolsText(syms, d.alphabet, 'gbnf')} s${t}`);
    if (d.accept[s]) alts.unshift('""');
    lines.push(`s${s} ::= ${alts.join(' | ')}`);
  });
  return lines.join('\n') + '\n';
}

/** A character inside a class of llama.cpp's GBNF (which reads any code point in a class, negated or not). */
function exactClassChar(c: string): string {
  const code = c.codePointAt(0)!;
  if (c === '\n') return '\\n';
  if (c === '\r') return '\\r';
  if (c === '\t') return '\\t';
  if (code < 0x20 || code === 0x7f || '\\]["^-'.includes(c) || !/^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(c))
    return code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\U${code.toString(16).padStart(8, '0')}`;
  return c;
}

/**
 * The automaton's language as llama.cpp's GBNF, exactly: a class may list or leave out any character, non-ASCII
 * ones too (llama.cpp reads them right; the portable subset of dfaToGbnf is for engines that do not). One
 * right-linear rule per state, `root ::= s0`.
 */
export function dfaToExactGbnf(d: Dfa): string {
  if (!d.accept.some(Boolean)) throw new Error(EMPTY);
  const { chars, other } = d.alphabet;
  const listed = chars.flat();
  const lines = [`root ::= s${d.start}`];
  d.next.forEach((row, s) => {
    const byTarget = new Map<number, number[]>();
    row.forEach((t, a) => {
      if (t >= 0) byTarget.set(t, [...(byTarget.get(t) ?? []), a]);
    });
    const alts = [...byTarget].map(([t, syms]) => {
      const taken = new Set(syms.flatMap(a => (a === other ? [] : chars[a])));
      const set = syms.includes(other)
        ? `[^${listed
            .filter(c => !taken.has(c))
            .map(exactClassChar)
            .join('')}]`
        : `[${[...taken].map(exactClassChar).join('')}]`;
      // "Every character but none" is any character: GBNF has no empty negated class.
      return `${set === '[^]' ? '[\\u0001-\\U0010ffff]' : set} s${t}`;
    });
    if (d.accept[s]) alts.unshift('""');
    lines.push(`s${s} ::= ${alts.join(' | ')}`);
  });
  return lines.join('\n') + '\n';
}
