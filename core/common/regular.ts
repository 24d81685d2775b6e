// A deterministic automaton over a small alphabet of character classes, written out as a regular expression (state
// elimination) and as a GBNF grammar (one rule per state). The decoding constraints (core/agent/constrain.ts)
// build their automata here; the output is the plain regular-expression syntax that vLLM, SGLang and Python's `re`
// all read (groups, `|`, `*`, `?`, character classes; no lookaround, no backreferences).

/** The alphabet: `chars[i]` are the characters of symbol i; the symbol `other` (if any) is every character not listed. */
export interface Alphabet {
  chars: string[][];
  /** Index of the symbol that stands for every character outside all `chars`; -1 when there is none. */
  other: number;
}

export interface Dfa {
  alphabet: Alphabet;
  start: number;
  accept: boolean[];
  /** next[s][symbol]: the target state, or -1 (no way on). */
  next: number[][];
}

/** Keeps only the states that are reachable and can still reach an accepting state, merged where equivalent (Moore). */
export function minimizeDfa(d: Dfa): Dfa {
  const symbols = d.alphabet.chars.length;
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

function alt(a: Re, b: Re, alphabet: Alphabet): Re {
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

const REGEX_META = new Set([...'\\^$.|?*+()[]{}/']);

function escapeCodeUnit(c: string): string | null {
  if (c === '\n') return '\\n';
  if (c === '\r') return '\\r';
  if (c === '\t') return '\\t';
  if (c === '\f') return '\\f';
  if (c === '\v') return '\\v';
  const code = c.charCodeAt(0);
  if (code < 0x20 || (code >= 0x7f && code <= 0xa0) || /\s/.test(c)) return `\\u${code.toString(16).padStart(4, '0')}`;
  return null;
}

/** A character class or a single escaped character, for regexes (gbnf false) or GBNF (gbnf true). */
export function classText(syms: readonly number[], alphabet: Alphabet, gbnf = false): string {
  const has = new Set(syms);
  // GBNF (llama.cpp) knows only \x, \u, \t, \r, \n and escaped \\ " [ ]: everything else special goes as \uXXXX.
  const hex = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  const special = (c: string) => c === '\\' || c === ']' || c === '[' || c === '^' || c === '-' || c === '"';
  const inClass = gbnf
    ? (c: string) => (c === '\n' ? '\\n' : c === '\t' ? '\\t' : c === '\r' ? '\\r' : escapeCodeUnit(c) !== null || special(c) ? hex(c) : c)
    : (c: string) => escapeCodeUnit(c) ?? (special(c) && c !== '"' ? `\\${c}` : c);
  if (alphabet.other >= 0 && has.has(alphabet.other)) {
    const excluded = alphabet.chars.flatMap((cs, i) => (has.has(i) ? [] : cs));
    return excluded.length ? `[^${excluded.map(inClass).join('')}]` : gbnf ? '[^\\x00]' : '[\\s\\S]';
  }
  const chars = syms.flatMap(s => alphabet.chars[s]);
  if (chars.length === 1 && !gbnf) {
    const c = chars[0];
    return escapeCodeUnit(c) ?? (REGEX_META.has(c) ? `\\${c}` : c);
  }
  return `[${chars.map(inClass).join('')}]`;
}

const printed = new WeakMap<Re, string>();

function printRe(r: Re, alphabet: Alphabet): string {
  let s = printed.get(r);
  if (s === undefined) printed.set(r, (s = printReOnce(r, alphabet)));
  return s;
}

function printReOnce(r: Re, alphabet: Alphabet): string {
  const group = (s: string) => `(${s})`;
  switch (r.k) {
    case 'eps':
      return '';
    case 'set':
      return classText(r.syms, alphabet);
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

/** The language of the automaton as a regular expression (state elimination, cheapest state first). */
export function dfaToRegex(d: Dfa): string {
  const n = d.accept.length;
  if (!d.accept.some(Boolean)) return '[^\\s\\S]';
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
    // Eliminate the state with the fewest paths through it.
    let best = -1;
    let bestCost = Infinity;
    for (const k of remaining) {
      const outs = [...(edges.get(k)?.keys() ?? [])].filter(q => q !== k).length;
      const cost = incoming(k).length * outs;
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
  return r ? printRe(r, d.alphabet) : '[^\\s\\S]';
}

/** The language of the automaton as a GBNF grammar (llama.cpp syntax): `root ::= s0`, one right-linear rule per state. */
export function dfaToGbnf(d: Dfa): string {
  if (!d.accept.some(Boolean)) return 'root ::= [^\\x00-\\U0010FFFF]\n';
  const lines = [`root ::= s${d.start}`];
  d.next.forEach((row, s) => {
    const byTarget = new Map<number, number[]>();
    row.forEach((t, a) => {
      if (t >= 0) byTarget.set(t, [...(byTarget.get(t) ?? []), a]);
    });
    const alts = [...byTarget].map(([t, syms]) => `${classText(syms, d.alphabet, true)} s${t}`);
    if (d.accept[s]) alts.unshift('""');
    lines.push(`s${s} ::= ${alts.join(' | ')}`);
  });
  return lines.join('\n') + '\n';
}
