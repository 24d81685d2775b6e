// The oracles and texts of the agent constraint tests: what the monitor accepts from a pause point, what a portable
// constraint can accept (core/common/regular.ts portableDfa), texts near the language, and the check of a constraint's
// regex (as JavaScript reads it with the `u` flag, after the portability check) and GBNF grammar (the strict reader)
// against the oracle.
import assert from 'node:assert/strict';
import { StreamMonitor, compileAgent, parseAgentFile, type CompiledAgent } from '../../../core/agent';
import { agentConstraint, pauseAtState, type PausePoint } from '../../../core/agent/constrain';
import { Gbnf } from '../../support/gbnf';
import { portableRegExp } from '../../support/portableRegex';
import { prng } from '../../support/random';

/** The monitor alone: an on-spec run up to the next env-input prompt text (inclusive) or the end. */
export function monitorAccepts(agent: CompiledAgent, at: PausePoint, text: string): boolean {
  const m = new StreamMonitor(agent, { start: at.positions ?? undefined });
  const events = [...m.feed(text), ...m.end()];
  if (m.violation) return false;
  const env = events.findIndex(e => e.type === 'state' && e.envInput);
  if (env >= 0) {
    const e = events[env];
    return env === events.length - 1 && e.type === 'state' && e.end === text.length;
  }
  return m.isFinal;
}

const wide = (c: string) => c.codePointAt(0)! >= 0x80;

/**
 * What a portable constraint accepts: the monitor accepts the text, and still does with each unknown non-ASCII
 * character (which no portable class can tell from another non-ASCII character: in no prompt text, and not white
 * space unless a prompt text has a non-ASCII character, core/agent/constrain.ts unlistedSymbols) put in the place of
 * each non-ASCII character the spec tells apart: its prompt texts' and white space.
 */
export function portableAccepts(agent: CompiledAgent, at: PausePoint, text: string): boolean {
  const inPrompts = new Set(agent.states.flatMap(s => [...s.text]));
  const widePrompts = [...inPrompts].filter(wide);
  const chars = [...text];
  const unknown = chars.flatMap((c, i) => (wide(c) && !inPrompts.has(c) && (widePrompts.length > 0 || !/\s/.test(c)) ? [i] : []));
  const space = ['\u00a0', '\u3000', '\u2028'].find(c => !inPrompts.has(c));
  const instead = [...widePrompts, ...(space ? [space] : [])];
  const variants = (k: number): boolean => {
    if (k === unknown.length) return monitorAccepts(agent, at, chars.join(''));
    const i = unknown[k];
    const kept = chars[i];
    try {
      for (const c of [kept, ...instead]) {
        chars[i] = c;
        if (!variants(k + 1)) return false;
      }
      return true;
    } finally {
      chars[i] = kept;
    }
  };
  return variants(0);
}

/** The start of a run and every state of the behavior, as pause points. */
export function pausePoints(agent: CompiledAgent): { label: string; at: PausePoint }[] {
  const names = [...new Set(agent.positions.map(p => agent.states[p.state].name))];
  return [{ label: '(start)', at: pauseAtState(agent, null) }, ...names.map(n => ({ label: n, at: pauseAtState(agent, n) }))];
}

export const ASCII_FILLER = [' ', '\n', 'x', ' ok ', '\u00a0', '\t', 'é', ']', '['];

/** Texts near the language: walks of the automaton with filler, then mutated with fragments of prompt texts. */
export function nearTexts(agent: CompiledAgent, at: PausePoint, random: () => number, count: number, filler = ASCII_FILLER): string[] {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
  const prompts = [...new Set(agent.states.map(s => s.text).filter(t => t))];
  const cut = (t: string) => {
    const cs = [...t];
    return [cs.slice(0, 1 + Math.floor(random() * cs.length)).join(''), cs.slice(Math.floor(random() * cs.length)).join('')];
  };
  const fragments = prompts.flatMap(t => [t, ...cut(t)]);
  const out: string[] = [];
  for (let n = 0; n < count; n++) {
    let text = '';
    let positions = at.positions;
    // A walk: filler then a next state's prompt text, until an env-input state or a final state (or the walk ends).
    for (let steps = 0; steps < 8; steps++) {
      const next = positions ? [...new Set(positions.flatMap(p => agent.follow[p]))] : agent.initial;
      if (!next.length || (positions && positions.some(p => agent.final[p]) && random() < 0.3)) break;
      const q = pick(next);
      const state = agent.states[agent.positions[q].state];
      text += positions || random() < 0.5 ? pick(filler) + (random() < 0.5 ? pick(filler) : '') : '';
      text += state.text;
      positions = [q];
      if (state.envInput) break;
    }
    if (positions && random() < 0.5) text += pick(filler);
    // Mutations: insert a fragment or filler, delete a piece, or start over from fragments (by code points).
    const mutations = Math.floor(random() * 3);
    for (let k = 0; k < mutations; k++) {
      const cs = [...text];
      const i = Math.floor(random() * (cs.length + 1));
      const r = random();
      if (r < 0.45) cs.splice(i, 0, pick(fragments));
      else if (r < 0.7) cs.splice(i, 0, pick(filler));
      else if (r < 0.9) cs.splice(i, 1 + Math.floor(random() * 4));
      else cs.splice(0, cs.length, ...Array.from({ length: 1 + Math.floor(random() * 6) }, () => (random() < 0.6 ? pick(fragments) : pick(filler))));
      text = cs.join('');
    }
    out.push(text);
  }
  return out;
}

export interface AgentCheck {
  /** Texts the constraint accepts. */
  accepted: number;
  total: number;
  /** Texts the monitor accepts that no portable constraint can (an unknown non-ASCII character where it matters). */
  lost: number;
}

/**
 * The constraint at the start and at every state, against the oracle: the regex (portable, read with the `u` flag)
 * accepts a text exactly when portableAccepts does, and so does the GBNF grammar (every eighth text, `gbnfEvery`).
 */
export function checkAgent(agent: CompiledAgent, seed: number, perPoint: number, opts: { filler?: string[]; gbnfEvery?: number } = {}): AgentCheck {
  const random = prng(seed);
  const every = opts.gbnfEvery ?? 8;
  let accepted = 0;
  let total = 0;
  let lost = 0;
  for (const { label, at } of pausePoints(agent)) {
    const c = agentConstraint(agent, at) ?? assert.fail(`${agent.name} from ${label}: no constraint`);
    const re = portableRegExp(c.regex);
    const grammar = new Gbnf(c.gbnf);
    nearTexts(agent, at, random, perPoint, opts.filler).forEach((text, n) => {
      const want = portableAccepts(agent, at, text);
      assert.equal(re.test(text), want, `${agent.name} from ${label}: regex ${want ? 'rejects' : 'accepts'} ${JSON.stringify(text)} (seed ${seed})`);
      if (n % every === 0)
        assert.equal(
          grammar.accepts(text),
          want,
          `${agent.name} from ${label}: GBNF ${want ? 'rejects' : 'accepts'} ${JSON.stringify(text)} (seed ${seed})`,
        );
      if (want) accepted++;
      else if (monitorAccepts(agent, at, text)) lost++;
      total++;
    });
  }
  return { accepted, total, lost };
}

/** A random spec: 2 to `maxStates` states whose prompt texts join 1 to 3 of `pieces`, some env-input, a random behavior. */
export function randomSpec(random: () => number, pieces: readonly string[], name: string, maxStates = 5): CompiledAgent {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
  const count = 2 + Math.floor(random() * (maxStates - 1));
  const texts = new Set<string>();
  while (texts.size < count)
    texts.add(
      Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(pieces))
        .join('')
        .trim() || 'Z',
    );
  const names = Array.from({ length: count }, (_, k) => `S${k}`);
  const states = [...texts].map((t, k) => `(S${k} (:text ${JSON.stringify(t)})${k > 0 && random() < 0.3 ? ' (:flags :env-input)' : ''})`);
  const formula = (depth: number): string => {
    if (depth > 2 || random() < 0.35) return pick(names.slice(1));
    const op = pick(['next', 'until', 'or']);
    return `(${op} ${formula(depth + 1)} ${formula(depth + 1)})`;
  };
  const src = `(define ${name} (:states ${states.join(' ')}) (:behavior (next S0 ${formula(0)})))`;
  const file = parseAgentFile(src);
  assert.equal(file.agents.length, 1, src);
  return compileAgent(file.agents[0]);
}

/** A spec whose prompt texts have non-ASCII characters: an accent, an em dash, CJK brackets and characters, an emoji outside the BMP. */
export const INTL_SPEC = `(define agent-intl
  (:states
    (Q (:text "[Question]"))
    (P (:text "[Pensée]"))
    (A (:text "[Action—outil]"))
    (O (:text "【观察】") (:flags :env-input))
    (F (:text "[Fin 😀]"))
    (R (:text "[Réponse]")))
  (:behavior
    (next Q (until (next P A O) F) R)))`;
