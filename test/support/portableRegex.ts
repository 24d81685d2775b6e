// The tests' stand-in for the regex engines of vLLM and SGLang: JavaScript's RegExp with the `u` flag (code points,
// as xgrammar and Python's re read them), after a check that the regex stays in the subset every engine reads the
// same (core/common/portableSyntax.ts): classes of ASCII characters only; no `\x` escape (xgrammar reads every hex
// digit after it); no control character escape that xgrammar's converter turns into `\xNN` just before a hex digit;
// no class starting with `^` but a negated one; no `.`, `\s`, `\d`, `\w` (each engine has its own idea of them).

/** xgrammar writes these control characters by name; every other one as `\xNN`. */
const NAMED_CONTROLS = new Set([0, 7, 8, 9, 10, 11, 12, 13, 27]);
const HEX = /^[0-9a-fA-F]$/;

/** What in `regex` the engines would read differently; empty when it is portable. */
export function portableRegexProblems(regex: string): string[] {
  const cs = [...regex];
  const problems: string[] = [];
  const at = (i: number) => `at ${i}: ${JSON.stringify(cs.slice(Math.max(0, i - 8), i + 8).join(''))}`;
  /** The code point of the escape or character at i, and where the next one starts. */
  const read = (i: number): [number, number] => {
    if (cs[i] !== '\\') return [cs[i].codePointAt(0)!, i + 1];
    const e = cs[i + 1];
    if (e === 'u') {
      const h = cs.slice(i + 2, i + 6).join('');
      if (!/^[0-9a-fA-F]{4}$/.test(h)) problems.push(`\\u without four hex digits ${at(i)}`);
      return [parseInt(h, 16), i + 6];
    }
    if (e === 'x') problems.push(`a \\x escape ${at(i)}`);
    if ('sSdDwWbBpP'.includes(e)) problems.push(`\\${e}, read differently by each engine, ${at(i)}`);
    const named: Record<string, number> = { n: 10, r: 13, t: 9, f: 12, v: 11 };
    return [named[e] ?? e.codePointAt(0)!, i + 2];
  };
  for (let i = 0; i < cs.length;) {
    if (cs[i] === '.') problems.push(`. (any character), read differently by each engine, ${at(i)}`);
    if (cs[i] !== '[') {
      i = read(i)[1];
      continue;
    }
    const open = i;
    i++;
    const negated = cs[i] === '^';
    if (negated) i++;
    if (cs[i] === '\\' && cs[i + 1] === '^' && !negated) problems.push(`a class starting with \\^ (xgrammar reads a negated class) ${at(open)}`);
    while (i < cs.length && cs[i] !== ']') {
      const [code, end] = read(i);
      if (code >= 0x80) problems.push(`a non-ASCII character (U+${code.toString(16).toUpperCase()}) in a class ${at(i)}`);
      if (cs[i] === '\\' && (code < 0x20 || code === 0x7f) && !NAMED_CONTROLS.has(code) && HEX.test(cs[end] ?? ''))
        problems.push(`a control character before a hex digit in a class (xgrammar writes it \\xNN) ${at(i)}`);
      i = end;
    }
    if (i >= cs.length) problems.push(`an unclosed class ${at(open)}`);
    i++;
  }
  return problems;
}

/** The whole-text matcher of a constraint's regex, after checking that it is portable (throws when not). */
export function portableRegExp(regex: string): RegExp {
  const problems = portableRegexProblems(regex);
  if (problems.length)
    throw new Error(`not portable: ${problems.slice(0, 3).join('; ')}${problems.length > 3 ? `; and ${problems.length - 3} more` : ''}`);
  return new RegExp(`^(?:${regex})$`, 'u');
}
