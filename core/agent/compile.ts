// Compile a behavior formula to an automaton with the paper's semantics: `(next a b c)` is a then b then c,
// `(until a b)` is a zero or more times then b, `(or a b)` is either. Glushkov's construction: every occurrence
// of a state name in the formula is a *position*; the automaton's states are positions and `follow[p]` lists the
// positions that may come right after p. A state name used in several places is several positions, so the
// monitor tracks a set of positions (determinised on the fly) rather than one state.
import type { Span } from '../common/text';
import { hasFlag, type AgentDef, type Formula } from './ast';

export interface CompiledState {
  name: string;
  /** The prompt text; '' when the spec gives none (the state can then never be recognised). */
  text: string;
  flags: string[];
  envInput: boolean;
  /** False for a name the behavior uses but :states does not define. */
  defined: boolean;
}

export interface AutomatonPosition {
  /** Index of the state in `CompiledAgent.states`. */
  state: number;
  /** Where the occurrence is written in the behavior. */
  span: Span;
}

export interface CompiledAgent {
  name: string;
  states: CompiledState[];
  positions: AutomatonPosition[];
  /** Positions that may come first, in formula order. */
  initial: number[];
  /** follow[p]: positions that may come right after p, in formula order. */
  follow: number[][];
  /** final[p]: the behavior may end after p. */
  final: boolean[];
  /** The behavior accepts a run of no state at all (only a degenerate spec does). */
  acceptsEmpty: boolean;
  /** Names of the states that may come first / may end a run, in formula order. */
  initialStates: string[];
  finalStates: string[];
}

interface Part {
  nullable: boolean;
  first: number[];
  last: number[];
}

const EMPTY_RUN: Part = { nullable: true, first: [], last: [] };
const NO_RUN: Part = { nullable: false, first: [], last: [] };

export function compileAgent(agent: AgentDef): CompiledAgent {
  const states: CompiledState[] = [];
  const index = new Map<string, number>();
  for (const s of agent.states) {
    if (index.has(s.name)) continue; // a duplicate-state error; the first definition wins
    index.set(s.name, states.length);
    states.push({ name: s.name, text: s.text, flags: s.flags.map(f => f.name), envInput: hasFlag(s, 'env-input'), defined: true });
  }
  const positions: AutomatonPosition[] = [];
  const follow: number[][] = [];

  const seq = (a: Part, b: Part): Part => {
    for (const p of a.last) follow[p].push(...b.first);
    return {
      nullable: a.nullable && b.nullable,
      first: a.nullable ? [...a.first, ...b.first] : a.first,
      last: b.nullable ? [...a.last, ...b.last] : b.last,
    };
  };
  const star = (a: Part): Part => {
    for (const p of a.last) follow[p].push(...a.first);
    return { nullable: true, first: a.first, last: a.last };
  };
  const build = (f: Formula): Part => {
    if (f.kind === 'state') {
      let s = index.get(f.name);
      if (s === undefined) {
        s = states.length;
        index.set(f.name, s);
        states.push({ name: f.name, text: '', flags: [], envInput: false, defined: false });
      }
      const p = positions.length;
      positions.push({ state: s, span: f.span });
      follow.push([]);
      return { nullable: false, first: [p], last: [p] };
    }
    const args = f.args;
    if (f.kind === 'next') return args.reduce((acc, a) => seq(acc, build(a)), EMPTY_RUN);
    if (f.kind === 'or') {
      // With a bad arity (an `or` of nothing) the formula accepts nothing rather than everything.
      return args
        .map(build)
        .reduce((a, b) => ({ nullable: a.nullable || b.nullable, first: [...a.first, ...b.first], last: [...a.last, ...b.last] }), NO_RUN);
    }
    // until: the first formula loops, the rest (normally exactly one) ends the loop.
    if (!args.length) return EMPTY_RUN;
    const loop = star(build(args[0]));
    return args.slice(1).reduce((acc, a) => seq(acc, build(a)), loop);
  };

  const whole = agent.behavior ? build(agent.behavior) : NO_RUN;
  const final = positions.map(() => false);
  for (const p of whole.last) final[p] = true;
  const sorted = (ps: number[]) => [...new Set(ps)].sort((a, b) => a - b);
  const initial = sorted(whole.first);
  const names = (ps: number[]) => [...new Set(ps.map(p => states[positions[p].state].name))];
  return {
    name: agent.name,
    states,
    positions,
    initial,
    follow: follow.map(sorted),
    final,
    acceptsEmpty: whole.nullable && agent.behavior !== null,
    initialStates: names(initial),
    finalStates: names(sorted(whole.last)),
  };
}

/** The name of the state at position p. */
export function positionState(c: CompiledAgent, p: number): CompiledState {
  return c.states[c.positions[p].state];
}

export interface AutomatonNode {
  /** A safe identifier (`s0`, `s1`, ...). */
  id: string;
  name: string;
  text: string;
  envInput: boolean;
  initial: boolean;
  final: boolean;
  defined: boolean;
}

/** The state-level view of the automaton, as the paper draws it: one node per state, unlabelled edges. */
export interface AutomatonGraph {
  nodes: AutomatonNode[];
  edges: { from: string; to: string }[];
}

export function automatonGraph(input: AgentDef | CompiledAgent): AutomatonGraph {
  const c = 'positions' in input ? input : compileAgent(input);
  const initial = new Set(c.initialStates);
  const final = new Set(c.finalStates);
  const nodes = c.states.map((s, i) => ({
    id: `s${i}`,
    name: s.name,
    text: s.text,
    envInput: s.envInput,
    initial: initial.has(s.name),
    final: final.has(s.name),
    defined: s.defined,
  }));
  const seen = new Set<string>();
  const edges: { from: string; to: string }[] = [];
  c.follow.forEach((next, p) => {
    for (const q of next) {
      const from = `s${c.positions[p].state}`;
      const to = `s${c.positions[q].state}`;
      if (seen.has(`${from}>${to}`)) continue;
      seen.add(`${from}>${to}`);
      edges.push({ from, to });
    }
  });
  return { nodes, edges };
}

/** A Mermaid flowchart of the automaton: env-input states dashed and shaded, final states bold. */
export function automatonToMermaid(input: AgentDef | CompiledAgent): string {
  const g = automatonGraph(input);
  const esc = (s: string) => s.replace(/"/g, '#quot;').replace(/</g, '#lt;').replace(/>/g, '#gt;');
  const lines = ['flowchart LR', '  start(( )):::start'];
  for (const n of g.nodes) lines.push(`  ${n.id}["${esc(n.name)}${n.text ? `<br/>${esc(n.text)}` : ''}"]`);
  for (const n of g.nodes) if (n.initial) lines.push(`  start --> ${n.id}`);
  for (const e of g.edges) lines.push(`  ${e.from} --> ${e.to}`);
  lines.push('  classDef start fill:#000,stroke:#000');
  lines.push('  classDef envInput fill:#fff4d6,stroke:#b8860b,stroke-dasharray:4 2');
  lines.push('  classDef final stroke-width:3px');
  lines.push('  classDef undefined stroke:#c00,color:#c00');
  const classed = (cls: string, pick: (n: AutomatonNode) => boolean) => {
    const ids = g.nodes.filter(pick).map(n => n.id);
    if (ids.length) lines.push(`  class ${ids.join(',')} ${cls}`);
  };
  classed('envInput', n => n.envInput);
  classed('final', n => n.final);
  classed('undefined', n => !n.defined);
  return lines.join('\n') + '\n';
}

/** Graphviz DOT of the automaton: env-input states dashed and shaded, final states double-bordered. */
export function automatonToDot(input: AgentDef | CompiledAgent): string {
  const c = 'positions' in input ? input : compileAgent(input);
  const g = automatonGraph(c);
  const q = (s: string) => JSON.stringify(s);
  const lines = [`digraph ${q(c.name || 'agent')} {`, '  rankdir=LR;', '  node [shape=box, style=rounded];', '  __start [shape=point, label=""];'];
  for (const n of g.nodes) {
    const attrs = [`label=${q(n.text ? `${n.name}\n${n.text}` : n.name)}`];
    if (n.envInput) attrs.push('style="rounded,dashed,filled"', 'fillcolor="#fff4d6"');
    if (n.final) attrs.push('peripheries=2');
    if (!n.defined) attrs.push('color="#cc0000"', 'fontcolor="#cc0000"');
    lines.push(`  ${n.id} [${attrs.join(', ')}];`);
  }
  for (const n of g.nodes) if (n.initial) lines.push(`  __start -> ${n.id};`);
  for (const e of g.edges) lines.push(`  ${e.from} -> ${e.to};`);
  lines.push('}');
  return lines.join('\n') + '\n';
}

/** Alias kept short for callers that think in DOT. */
export const toDot = automatonToDot;
