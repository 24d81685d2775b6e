// A small GBNF recogniser for the tests (llama.cpp syntax, the part the constraint compiler writes and a bit more):
// rules `name ::= alternatives`, sequences of "literals", [classes] / [^classes] with \n \t \r \\ \" \[ \] \xNN
// \uNNNN \UNNNNNNNN escapes and ranges, rule references, ( groups ) and the * + ? suffixes. Recognition computes, for an
// item at a text offset, the set of offsets where it can end (memoised per rule and offset): fine for grammars without
// left recursion, which is all the tests give it.
//
// It refuses what the engines read differently (core/common/portableSyntax.ts): an escape llama.cpp rejects (`\f`,
// `\v`, `\b`, ...), `\xNN` followed by another hex digit (xgrammar reads all of them: `\x411` is U+0411, llama.cpp
// reads `A1`), and a non-ASCII character in a class (xgrammar 0.1.27 cuts it to its low byte, and a negated class
// lets every non-ASCII character through whatever it lists), unless it reads for llama.cpp alone.

type Item =
  | { k: 'lit'; text: string }
  | { k: 'class'; negated: boolean; ranges: [number, number][] }
  | { k: 'ref'; name: string }
  | { k: 'group'; alts: Item[][] }
  | { k: 'rep'; item: Item; min: number; max: number };

export class Gbnf {
  private readonly rules = new Map<string, Item[][]>();

  /** `llamaCpp`: read as llama.cpp alone does, which takes non-ASCII characters in classes (the local model's exact grammars). */
  constructor(source: string, opts: { llamaCpp?: boolean } = {}) {
    let i = 0;
    const src = source;
    const fail = (msg: string): never => {
      throw new Error(`GBNF: ${msg} at offset ${i}: ${JSON.stringify(src.slice(i, i + 20))}`);
    };
    const skip = (newlines: boolean) => {
      for (;;) {
        if (src[i] === '#') while (i < src.length && src[i] !== '\n') i++;
        else if (src[i] === ' ' || src[i] === '\t' || (newlines && (src[i] === '\n' || src[i] === '\r'))) i++;
        else return;
      }
    };
    const name = () => {
      const m = /^[A-Za-z0-9-]+/.exec(src.slice(i));
      if (!m) fail('a rule name expected');
      i += m![0].length;
      return m![0];
    };
    const char = (): number => {
      if (src[i] !== '\\') {
        const code = src.codePointAt(i)!;
        i += code > 0xffff ? 2 : 1;
        return code;
      }
      const e = src[i + 1];
      i += 2;
      const hex = (n: number) => {
        const h = src.slice(i, i + n);
        if (!/^[0-9a-fA-F]+$/.test(h) || h.length !== n) fail('a hex escape expected');
        i += n;
        return parseInt(h, 16);
      };
      if (e === 'x') {
        const code = hex(2);
        if (/[0-9a-fA-F]/.test(src[i] ?? ''))
          fail(`\\x${src.slice(i - 2, i)} followed by the hex digit ${src[i]}: xgrammar reads all the hex digits, llama.cpp two`);
        return code;
      }
      if (e === 'u') return hex(4);
      if (e === 'U') return hex(8);
      const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"', '[': '[', ']': ']' };
      if (!(e in simple)) fail(`unknown escape \\${e} (llama.cpp rejects it)`);
      return simple[e].codePointAt(0)!;
    };
    const alternatives = (inGroup: boolean): Item[][] => {
      const alts: Item[][] = [[]];
      for (;;) {
        skip(inGroup);
        const c = src[i];
        if (c === undefined || c === '\n' || c === '\r' || (inGroup && c === ')')) return alts;
        if (c === '|') {
          i++;
          alts.push([]);
          continue;
        }
        let item: Item;
        if (c === '"') {
          i++;
          let text = '';
          while (src[i] !== '"') {
            if (i >= src.length) fail('an unclosed string');
            text += String.fromCodePoint(char());
          }
          i++;
          item = { k: 'lit', text };
        } else if (c === '[') {
          i++;
          const negated = src[i] === '^';
          if (negated) i++;
          const ranges: [number, number][] = [];
          const ascii = (code: number) => {
            if (code >= 0x80 && !opts.llamaCpp)
              fail(`a non-ASCII character (U+${code.toString(16).toUpperCase().padStart(4, '0')}) in a class: xgrammar 0.1.27 does not read it`);
            return code;
          };
          while (src[i] !== ']') {
            if (i >= src.length) fail('an unclosed class');
            const lo = ascii(char());
            if (src[i] === '-' && src[i + 1] !== ']') {
              i++;
              ranges.push([lo, ascii(char())]);
            } else ranges.push([lo, lo]);
          }
          i++;
          item = { k: 'class', negated, ranges };
        } else if (c === '(') {
          i++;
          const inner = alternatives(true);
          if (src[i] !== ')') fail('")" expected');
          i++;
          item = { k: 'group', alts: inner };
        } else item = { k: 'ref', name: name() };
        const suffix = src[i];
        if (suffix === '*' || suffix === '+' || suffix === '?') {
          i++;
          item = { k: 'rep', item, min: suffix === '+' ? 1 : 0, max: suffix === '?' ? 1 : Infinity };
        }
        alts[alts.length - 1].push(item);
      }
    };
    for (;;) {
      skip(true);
      if (i >= src.length) break;
      const n = name();
      skip(false);
      if (!src.startsWith('::=', i)) fail('"::=" expected');
      i += 3;
      this.rules.set(n, alternatives(false));
    }
    if (!this.rules.has('root')) throw new Error('GBNF: no root rule');
    for (const alts of this.rules.values()) for (const a of alts) for (const it of a) this.checkRefs(it);
  }

  private checkRefs(it: Item): void {
    if (it.k === 'ref' && !this.rules.has(it.name)) throw new Error(`GBNF: undefined rule ${it.name}`);
    if (it.k === 'group') it.alts.forEach(a => a.forEach(x => this.checkRefs(x)));
    if (it.k === 'rep') this.checkRefs(it.item);
  }

  /** The whole text is in the language of `root`. */
  accepts(text: string): boolean {
    const codes = [...text].map(c => c.codePointAt(0)!);
    const memo = new Map<string, Set<number>>();
    const seq = (items: Item[], from: number): Set<number> => {
      let at = new Set([from]);
      for (const it of items) {
        const next = new Set<number>();
        for (const p of at) for (const e of ends(it, p)) next.add(e);
        at = next;
        if (!at.size) break;
      }
      return at;
    };
    const ends = (it: Item, p: number): Set<number> => {
      switch (it.k) {
        case 'lit': {
          const cs = [...it.text].map(c => c.codePointAt(0)!);
          return cs.every((c, j) => codes[p + j] === c) ? new Set([p + cs.length]) : new Set();
        }
        case 'class': {
          if (p >= codes.length) return new Set();
          const inside = it.ranges.some(([lo, hi]) => codes[p] >= lo && codes[p] <= hi);
          return inside !== it.negated ? new Set([p + 1]) : new Set();
        }
        case 'ref': {
          const key = `${it.name}@${p}`;
          let r = memo.get(key);
          if (!r) {
            memo.set(key, new Set()); // no left recursion: a cycle at the same offset adds nothing
            r = new Set<number>();
            for (const a of this.rules.get(it.name)!) for (const e of seq(a, p)) r.add(e);
            memo.set(key, r);
          }
          return r;
        }
        case 'group': {
          const r = new Set<number>();
          for (const a of it.alts) for (const e of seq(a, p)) r.add(e);
          return r;
        }
        case 'rep': {
          const r = new Set<number>();
          let frontier = new Set([p]);
          if (it.min === 0) r.add(p);
          for (let n = 1; n <= it.max && frontier.size; n++) {
            const next = new Set<number>();
            for (const q of frontier) for (const e of ends(it.item, q)) if (e !== q && !r.has(e)) next.add(e);
            if (n >= it.min) next.forEach(e => r.add(e));
            frontier = next;
          }
          return r;
        }
      }
    };
    return ends({ k: 'ref', name: 'root' }, 0).has(codes.length);
  }
}
