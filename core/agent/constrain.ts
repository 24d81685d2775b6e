// Decoding constraints for agent specs: at a pause point, the text the model may write up to the next
// `:env-input` state (its prompt text included: the runner stops there) or to the end of a run, as a regular
// expression and as a GBNF grammar, for servers that enforce them while decoding.
//
// The language is exactly what the decoding monitor accepts, because the automaton is built by running the monitor:
// a state of the automaton is the monitor's own state (its automaton positions and the held-back tail that may
// still become a prompt text), and a transition is the monitor fed one more character. So "free text" can never
// contain a prompt text where the monitor would read a state (leftmost, longest match first), by construction.
// Characters that occur in no prompt text behave alike and form two symbols (white space, which alone may come
// before the first state, and everything else), so the automaton stays small. It is then made portable
// (core/common/regular.ts portableDfa), so that every engine reads its regex and grammar the same: no class leaves out
// a non-ASCII character, which costs the rare texts where an unknown non-ASCII character stands where a prompt
// text's non-ASCII character would start or continue that prompt text.
import type { CompiledAgent } from './compile';
import { StreamMonitor } from './monitor';
import { dfaToExactGbnf, dfaToGbnf, dfaToRegex, minimizeDfa, portableDfa, type Alphabet, type Dfa } from '../common/regular';
import { isAscii } from '../common/portableSyntax';

export interface Constraint {
  /** A regular expression for the whole continuation (no anchors, no lookaround). */
  regex: string;
  /** The same language as a GBNF grammar (llama.cpp syntax; the start rule is `root`). */
  gbnf: string;
  /**
   * The exact language as llama.cpp's GBNF, where the portable forms leave out texts no engine can be trusted to read
   * alike (a class that leaves out one non-ASCII character); absent when the portable forms are exact already.
   */
  exactGbnf?: string;
}

/** Where the model starts writing: the monitor's positions (null before the first state) and its held-back tail. */
export interface PausePoint {
  positions: readonly number[] | null;
  /** Text after the last decided offset that may still become a prompt text (`StreamMonitor.text.slice(safeLength)`). */
  tail?: string;
}

/** What JavaScript's `\s` matches (the monitor's notion of white space), listed so that GBNF can say it too. */
const SPACES = [
  '\t',
  '\n',
  '\v',
  '\f',
  '\r',
  ' ',
  '\u00a0',
  '\u1680',
  ...Array.from({ length: 11 }, (_, i) => String.fromCharCode(0x2000 + i)),
  '\u2028',
  '\u2029',
  '\u202f',
  '\u205f',
  '\u3000',
  '\ufeff',
];

interface MonitorState {
  positions: readonly number[] | null;
  tail: string;
  /** An `:env-input` state's prompt text ended the text: nothing may follow. */
  stopped: boolean;
}

const cache = new WeakMap<CompiledAgent, Map<string, Constraint | null>>();

/**
 * The constraint at a pause point, cached per agent and monitor state; null when no text is on spec from there
 * (no portable regex or grammar matches nothing at all: core/common/portableSyntax.ts).
 */
export function agentConstraint(agent: CompiledAgent, at: PausePoint = { positions: null }): Constraint | null {
  let perAgent = cache.get(agent);
  if (!perAgent) cache.set(agent, (perAgent = new Map()));
  const key = stateKey({ positions: at.positions, tail: at.tail ?? '', stopped: false });
  let c = perAgent.get(key);
  if (c === undefined) {
    const exact = agentDfa(agent, at);
    const dfa = portableDfa(exact, unlistedSymbols(agent));
    c = dfa.accept.some(Boolean) ? { regex: dfaToRegex(dfa), gbnf: dfaToGbnf(dfa), exactGbnf: dfaToExactGbnf(exact) } : null;
    perAgent.set(key, c);
  }
  return c;
}

/** The pause point after a state is entered (every position of that state), or the start of a run for null. */
export function pauseAtState(agent: CompiledAgent, state: string | null): PausePoint {
  if (state === null) return { positions: null };
  const i = agent.states.findIndex(s => s.name === state);
  const positions = agent.positions.flatMap((p, k) => (p.state === i ? [k] : []));
  if (i < 0 || !positions.length)
    throw new Error(
      `agent "${agent.name}" has no state "${state}" in its behavior: use one of ${[...new Set(agent.positions.map(p => agent.states[p.state].name))].join(', ')}`,
    );
  return { positions };
}

function stateKey(s: MonitorState): string {
  return s.stopped ? 'stop' : `${s.positions ? s.positions.join(',') : '-'}|${s.tail}`;
}

/**
 * The monitor's alphabet: each character of a prompt text, the white space that is in none (when any), everything
 * else; `sample` has a character of each symbol, `spaces` the white space symbol (-1 when there is none).
 */
function agentAlphabet(agent: CompiledAgent): { alphabet: Alphabet; sample: (string | undefined)[]; spaces: number } {
  const promptChars = [...new Set(agent.states.flatMap(s => [...s.text]))].sort();
  const inPrompts = new Set(promptChars);
  const spaces = SPACES.filter(c => !inPrompts.has(c));
  const chars = promptChars.map(c => [c]);
  if (spaces.length) chars.push(spaces);
  chars.push([]); // every other character
  const alphabet: Alphabet = { chars, other: chars.length - 1 };
  const sample = chars.map((cs, i) => (i === alphabet.other ? otherChar(inPrompts) : cs[0]));
  return { alphabet, sample, spaces: spaces.length ? chars.length - 2 : -1 };
}

/** The minimal automaton of the continuations the monitor accepts from a pause point. */
export function agentDfa(agent: CompiledAgent, at: PausePoint): Dfa {
  const { alphabet, sample } = agentAlphabet(agent);

  const monitor = (s: MonitorState) => {
    const m = new StreamMonitor(agent, { start: s.positions ?? undefined });
    m.feed(s.tail);
    return m;
  };
  /** After the monitor read more text: the next state, or null when the text can no longer be accepted. */
  const after = (m: StreamMonitor, events: ReturnType<StreamMonitor['feed']>): MonitorState | null => {
    if (m.violation) return null;
    const env = events.findIndex(e => e.type === 'state' && e.envInput);
    if (env >= 0) {
      const e = events[env];
      return env === events.length - 1 && e.type === 'state' && e.end === m.text.length ? { positions: null, tail: '', stopped: true } : null;
    }
    const positions = m.currentPositions.length ? [...m.currentPositions] : null;
    return { positions, tail: m.text.slice(m.safeLength), stopped: false };
  };

  const states: MonitorState[] = [];
  const ids = new Map<string, number>();
  const id = (s: MonitorState) => {
    const k = stateKey(s);
    let i = ids.get(k);
    if (i === undefined) {
      i = states.length;
      ids.set(k, i);
      states.push(s);
    }
    return i;
  };
  const start = id({ positions: at.positions, tail: at.tail ?? '', stopped: false });
  const accept: boolean[] = [];
  const next: number[][] = [];
  for (let i = 0; i < states.length; i++) {
    const s = states[i];
    if (s.stopped) {
      accept[i] = true;
      next[i] = sample.map(() => -1);
      continue;
    }
    const m = monitor(s);
    const ended = after(m, m.end());
    accept[i] = ended !== null && (ended.stopped || m.isFinal);
    next[i] = sample.map(c => {
      if (c === undefined) return -1;
      const mm = monitor(s);
      const t = after(mm, mm.feed(c));
      return t ? id(t) : -1;
    });
  }
  return minimizeDfa({ alphabet, start, accept, next });
}

/**
 * The symbols whose non-ASCII characters a portable constraint does not write out (core/common/regular.ts
 * portableDfa): white space, when a prompt text has a non-ASCII character. Where free text may not take every non-ASCII
 * character alike (one may start a prompt text), each non-ASCII character written out is one more alternative on
 * almost every transition; the 18 of white space would make the regex grow to megabytes. Read as any non-ASCII
 * character instead, they cost only texts that start with non-ASCII white space or put it where that prompt text's
 * first character would start it. With prompt texts in ASCII, white space is written out only where it differs from
 * other text (before the first state), and the constraint loses nothing.
 */
function unlistedSymbols(agent: CompiledAgent): Set<number> {
  const { alphabet, spaces } = agentAlphabet(agent);
  const wide = alphabet.chars.some((cs, i) => i !== spaces && !cs.every(isAscii));
  return new Set(wide && spaces >= 0 ? [spaces] : []);
}

/** A character that is neither white space nor in a prompt text (stands for all such characters). */
function otherChar(used: Set<string>): string | undefined {
  for (let code = 0x21; code < 0x3000; code++) {
    const c = String.fromCharCode(code);
    if (!used.has(c) && !/\s/.test(c)) return c;
  }
  return undefined;
}
