import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  agentSummary,
  automatonGraph,
  automatonToDot,
  automatonToMermaid,
  compileAgent,
  findAgent,
  parseAgentFile,
  positionState,
  type CompiledAgent,
} from '../../../core/agent';
import { compiled, fixtureAgent, fixtureAgentFiles } from './helpers';

/** Does the automaton accept this exact sequence of state names as a complete run? */
function accepts(c: CompiledAgent, names: string[]): boolean {
  let current: number[] | null = null;
  for (const name of names) {
    const next: number[] = current === null ? c.initial : [...new Set(current.flatMap(p => c.follow[p]))];
    current = next.filter(q => positionState(c, q).name === name);
    if (!current.length) return false;
  }
  return current === null ? c.acceptsEmpty : current.some(p => c.final[p]);
}

function spec(behavior: string, states = ['Q', 'A', 'B', 'C', 'D']): string {
  return `(define t (:states ${states.map(s => `(${s} (:text "[${s}]"))`).join(' ')}) (:behavior ${behavior}))`;
}

const edgesOf = (c: CompiledAgent) => {
  const g = automatonGraph(c);
  const name = new Map(g.nodes.map(n => [n.id, n.name]));
  return g.edges.map(e => `${name.get(e.from)}>${name.get(e.to)}`).sort();
};

describe('compileAgent', () => {
  test('next, until and or have the paper semantics', () => {
    const c = compiled(spec('(next Q (until A B) (or C D))'));
    assert.ok(accepts(c, ['Q', 'B', 'C']));
    assert.ok(accepts(c, ['Q', 'A', 'A', 'A', 'B', 'D']));
    assert.ok(!accepts(c, ['Q', 'A', 'C']), 'until needs its second formula');
    assert.ok(!accepts(c, ['Q', 'B', 'C', 'D']), 'or takes one branch');
    assert.ok(!accepts(c, ['Q', 'B']), 'not final before the end of next');
    assert.ok(!accepts(c, ['A', 'B', 'C']), 'the first state of next comes first');
    assert.deepEqual(c.initialStates, ['Q']);
    assert.deepEqual(c.finalStates, ['C', 'D']);
  });

  test('react: initial Ques, final Ans, the loop edges of the paper', () => {
    const c = compiled(fixtureAgent('react'));
    assert.deepEqual(c.initialStates, ['Ques']);
    assert.deepEqual(c.finalStates, ['Ans']);
    assert.deepEqual(
      edgesOf(c),
      ['Act-Inp>Obs', 'Act>Act-Inp', 'Final-Tht>Ans', 'Obs>Final-Tht', 'Obs>Tht', 'Ques>Final-Tht', 'Ques>Tht', 'Tht>Act'].sort(),
    );
    assert.ok(accepts(c, ['Ques', 'Final-Tht', 'Ans']));
    assert.ok(accepts(c, ['Ques', 'Tht', 'Act', 'Act-Inp', 'Obs', 'Tht', 'Act', 'Act-Inp', 'Obs', 'Final-Tht', 'Ans']));
    assert.ok(!accepts(c, ['Ques', 'Tht', 'Act', 'Act-Inp', 'Final-Tht', 'Ans']));
  });

  test('reflexion: nested loops', () => {
    const c = compiled(fixtureAgent('reflexion'));
    const trial = ['Tht', 'Act', 'Act-Inp', 'Obs'];
    assert.ok(accepts(c, ['Ques', 'Ans']), 'the outer loop may run zero times');
    assert.ok(accepts(c, ['Ques', 'Final-Tht', 'Prop-Ans', 'Eval', 'Ref', 'Ans']));
    assert.ok(
      accepts(c, ['Ques', ...trial, ...trial, 'Final-Tht', 'Prop-Ans', 'Eval', 'Ref', ...trial, 'Final-Tht', 'Prop-Ans', 'Eval', 'Ref', 'Ans']),
    );
    assert.ok(!accepts(c, ['Ques', ...trial, 'Prop-Ans', 'Eval', 'Ref', 'Ans']), 'Final-Tht ends the inner loop');
    assert.ok(!accepts(c, ['Ques', 'Final-Tht', 'Prop-Ans', 'Ref', 'Ans']), 'Eval comes between');
    assert.ok(!accepts(c, ['Ques', 'Final-Tht', 'Prop-Ans', 'Eval', 'Ref']), 'Ans ends the run');
  });

  test('pass: a loop inside a loop inside a loop body', () => {
    const c = compiled(fixtureAgent('pass'));
    assert.ok(accepts(c, ['Ques', 'Final-Tht', 'Ans']));
    assert.ok(accepts(c, ['Ques', 'Plan', 'Sum', 'Final-Tht', 'Ans']));
    assert.ok(accepts(c, ['Ques', 'Plan', 'Act', 'Act-Inp', 'Act', 'Act-Inp', 'Sum', 'Plan', 'Sum', 'Final-Tht', 'Ans']));
    assert.ok(!accepts(c, ['Ques', 'Plan', 'Act', 'Sum', 'Final-Tht', 'Ans']));
    assert.ok(!accepts(c, ['Ques', 'Plan', 'Final-Tht', 'Ans']), 'a plan is summarized before the final thought');
  });

  test('a state named in several places is several positions, tracked as a set', () => {
    const c = compiled(spec('(next Q (or (next A B) (next A C) (next B A)) D)'));
    assert.equal(c.positions.filter(p => c.states[p.state].name === 'A').length, 3);
    assert.ok(accepts(c, ['Q', 'A', 'B', 'D']));
    assert.ok(accepts(c, ['Q', 'A', 'C', 'D']));
    assert.ok(accepts(c, ['Q', 'B', 'A', 'D']));
    assert.ok(!accepts(c, ['Q', 'B', 'C', 'D']));
    assert.ok(!accepts(c, ['Q', 'A', 'A', 'D']));
  });

  test('a spec with errors still compiles (undefined names are kept, marked undefined)', () => {
    const file = parseAgentFile('(define x (:states (A (:text "a"))) (:behavior (next A Nope (until A))))');
    const c = compileAgent(file.agents[0]);
    assert.deepEqual(
      c.states.map(s => [s.name, s.defined]),
      [
        ['A', true],
        ['Nope', false],
      ],
    );
    const none = compileAgent(parseAgentFile('(define y (:states (A (:text "a"))))').agents[0]);
    assert.deepEqual(none.initial, []);
    assert.equal(none.acceptsEmpty, false);
  });

  test('every fixture agent compiles with one initial and one final state', () => {
    for (const { name, text } of fixtureAgentFiles()) {
      const c = compiled(text);
      assert.equal(c.initialStates.length, 1, name);
      assert.equal(c.finalStates.length, 1, name);
    }
  });
});

describe('diagrams', () => {
  test('mermaid: nodes with texts, start edge, env-input and final styles', () => {
    const m = automatonToMermaid(parseAgentFile(fixtureAgent('react')).agents[0]);
    assert.match(m, /^flowchart LR\n/);
    assert.match(m, /s4\["Obs<br\/>\[Observation\]"\]/);
    assert.match(m, /start --> s0\n/);
    assert.match(m, /s4 --> s1\n/);
    assert.match(m, /class s4 envInput\n/);
    assert.match(m, /class s6 final\n/);
    assert.equal((m.match(/-->/g) ?? []).length, 9);
  });

  test('mermaid escapes quotes in prompt texts', () => {
    const m = automatonToMermaid(compiled('(define q (:states (A (:text "say \\"hi\\""))) (:behavior (next A)))'));
    assert.match(m, /say #quot;hi#quot;/);
  });

  test('dot: env-input states dashed, final double', () => {
    const d = automatonToDot(compiled(fixtureAgent('reflexion')));
    assert.match(d, /^digraph "reflexion-agent" \{/);
    assert.equal((d.match(/dashed/g) ?? []).length, 2, 'Obs and Eval');
    assert.equal((d.match(/peripheries=2/g) ?? []).length, 1);
    assert.match(d, /__start -> s0;/);
  });
});

describe('agentSummary / findAgent', () => {
  test('a span-free description for `art parse --json`', () => {
    const s = agentSummary(parseAgentFile(fixtureAgent('react')).agents[0]);
    assert.equal(s.name, 'react-agent');
    assert.deepEqual(s.states[4], { name: 'Obs', text: '[Observation]', flags: ['env-input'] });
    assert.deepEqual(s.initial, ['Ques']);
    assert.deepEqual(s.final, ['Ans']);
    assert.deepEqual(s.behavior, {
      op: 'next',
      args: ['Ques', { op: 'until', args: [{ op: 'next', args: ['Tht', 'Act', 'Act-Inp', 'Obs'] }, 'Final-Tht'] }, 'Ans'],
    });
    assert.doesNotThrow(() => JSON.stringify(s));
  });

  test('picks the only agent, or the named one, or says which there are', () => {
    const one = parseAgentFile(fixtureAgent('cot'));
    const two = parseAgentFile(fixtureAgent('cot') + fixtureAgent('direct'));
    const name = (r: ReturnType<typeof findAgent>) => ('agent' in r ? r.agent.name : r.error);
    assert.equal(name(findAgent(one)), 'cot-agent');
    assert.equal(name(findAgent(two, 'direct-agent')), 'direct-agent');
    assert.match(name(findAgent(two)), /defines 2 agents; choose one with --agent: cot-agent, direct-agent/);
    assert.match(name(findAgent(two, 'react')), /no agent named 'react'/);
    assert.equal(name(findAgent(parseAgentFile('; nothing'))), 'the file defines no agent');
  });
});
