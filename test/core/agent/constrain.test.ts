// The compiled constraints against the decoding monitor: on the six paper agents and on random specs, at the start
// and at every state as a pause point, the regex accepts a text exactly when the monitor reads it as an on-spec run
// that ends at the next :env-input state's prompt text or in a final state; the GBNF grammar accepts the same texts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { StreamMonitor, compileAgent, parseAgentFile, type CompiledAgent } from '../../../core/agent';
import { agentConstraint, pauseAtState, type PausePoint } from '../../../core/agent/constrain';
import { Gbnf } from '../../support/gbnf';
import { prng } from '../../support/random';
import { fixtureAgentFiles } from './helpers';

/** The six paper agents, from the project's fixtures (one spec a file). */
const paper = fixtureAgentFiles()
  .flatMap(f => parseAgentFile(f.text).agents)
  .map(compileAgent);

/** The oracle, from the monitor alone: an on-spec run up to the next env-input prompt text (inclusive) or the end. */
function monitorAccepts(agent: CompiledAgent, at: PausePoint, text: string): boolean {
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

function pausePoints(agent: CompiledAgent): { label: string; at: PausePoint }[] {
  const names = [...new Set(agent.positions.map(p => agent.states[p.state].name))];
  return [{ label: '(start)', at: pauseAtState(agent, null) }, ...names.map(n => ({ label: n, at: pauseAtState(agent, n) }))];
}

/** Texts near the language: walks of the automaton with filler, then mutated with fragments of prompt texts. */
function texts(agent: CompiledAgent, at: PausePoint, random: () => number, count: number): string[] {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
  const prompts = [...new Set(agent.states.map(s => s.text).filter(t => t))];
  const fragments = prompts.flatMap(t => [t, t.slice(0, 1 + Math.floor(random() * t.length)), t.slice(Math.floor(random() * t.length))]);
  const filler = [' ', '\n', 'x', ' ok ', '\u00a0', '\t', 'é', ']', '['];
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
    // Mutations: insert a fragment or filler, delete a piece, or start over from fragments.
    const mutations = Math.floor(random() * 3);
    for (let k = 0; k < mutations; k++) {
      const i = Math.floor(random() * (text.length + 1));
      const r = random();
      if (r < 0.45) text = text.slice(0, i) + pick(fragments) + text.slice(i);
      else if (r < 0.7) text = text.slice(0, i) + pick(filler) + text.slice(i);
      else if (r < 0.9) text = text.slice(0, i) + text.slice(i + 1 + Math.floor(random() * 4));
      else text = Array.from({ length: 1 + Math.floor(random() * 6) }, () => (random() < 0.6 ? pick(fragments) : pick(filler))).join('');
    }
    out.push(text);
  }
  return out;
}

function checkAgent(agent: CompiledAgent, seed: number, perPoint: number): { accepted: number; total: number } {
  const random = prng(seed);
  let accepted = 0;
  let total = 0;
  for (const { label, at } of pausePoints(agent)) {
    const c = agentConstraint(agent, at);
    const re = new RegExp(`^(?:${c.regex})$`);
    const grammar = new Gbnf(c.gbnf);
    texts(agent, at, random, perPoint).forEach((text, n) => {
      const want = monitorAccepts(agent, at, text);
      assert.equal(re.test(text), want, `${agent.name} from ${label}: regex ${want ? 'rejects' : 'accepts'} ${JSON.stringify(text)} (seed ${seed})`);
      if (n % 8 === 0)
        assert.equal(
          grammar.accepts(text),
          want,
          `${agent.name} from ${label}: GBNF ${want ? 'rejects' : 'accepts'} ${JSON.stringify(text)} (seed ${seed})`,
        );
      if (want) accepted++;
      total++;
    });
  }
  return { accepted, total };
}

describe('agent constraints agree with the monitor', () => {
  for (const [i, agent] of paper.entries()) {
    test(`paper agent ${agent.name}`, () => {
      const { accepted, total } = checkAgent(agent, 1000 + i, 600);
      // The texts are not trivially one-sided: both answers occur often.
      assert.ok(accepted > total / 10 && accepted < total - total / 10, `${accepted} of ${total} accepted`);
    });
  }

  test('random specs with overlapping prompt texts', () => {
    const random = prng(424242);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
    const pieces = ['A', 'B', 'AB', ':', '[', ']', ' '];
    let total = 0;
    for (let n = 0; n < 30; n++) {
      const count = 2 + Math.floor(random() * 4);
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
      const src = `(define r${n} (:states ${states.join(' ')}) (:behavior (next S0 ${formula(0)})))`;
      const file = parseAgentFile(src);
      assert.equal(file.agents.length, 1, src);
      const agent = compileAgent(file.agents[0]);
      total += checkAgent(agent, 7000 + n, 150).total;
    }
    assert.ok(total > 10_000, `${total} texts checked`);
  });

  test('constraints are cached per pause point', () => {
    const react = paper.find(a => a.name === 'react-agent') ?? assert.fail('no react-agent fixture');
    const at = pauseAtState(react, 'Obs');
    assert.equal(agentConstraint(react, at), agentConstraint(react, pauseAtState(react, 'Obs')));
  });

  test('an unknown state is a one-line error naming the states', () => {
    assert.throws(() => pauseAtState(paper[0], 'Nope'), /no state "Nope".*Ques, Tht/);
  });
});
