// A plain, span-free description of an agent (what `art parse --json` prints for `.agent` files), and picking
// one agent of a file by name.
import type { AgentDef, AgentFile, Formula, FormulaOp } from './ast';
import { compileAgent } from './compile';

/** A formula as JSON: a state name, or an operator with its arguments. */
export type FormulaJson = string | { op: FormulaOp; args: FormulaJson[] };

export interface AgentSummary {
  name: string;
  states: { name: string; text: string; flags: string[] }[];
  /** States that may come first / may end a run (one each in a well-formed spec). */
  initial: string[];
  final: string[];
  behavior: FormulaJson | null;
}

export function formulaToJson(f: Formula): FormulaJson {
  return f.kind === 'state' ? f.name : { op: f.kind, args: f.args.map(formulaToJson) };
}

export function agentSummary(agent: AgentDef): AgentSummary {
  const c = compileAgent(agent);
  return {
    name: agent.name,
    states: agent.states.map(s => ({ name: s.name, text: s.text, flags: s.flags.map(f => f.name) })),
    initial: c.initialStates,
    final: c.finalStates,
    behavior: agent.behavior && formulaToJson(agent.behavior),
  };
}

/**
 * The agent called `name`, or the file's only agent when no name is given; otherwise an error message that
 * lists the agents there are.
 */
export function findAgent(file: AgentFile, name?: string): { agent: AgentDef } | { error: string } {
  const names = file.agents.map(a => a.name || '(unnamed)');
  const list = names.length ? `: ${names.join(', ')}` : '';
  if (name === undefined) {
    if (file.agents.length === 1) return { agent: file.agents[0] };
    return {
      error: file.agents.length ? `the file defines ${file.agents.length} agents; choose one with --agent${list}` : 'the file defines no agent',
    };
  }
  const found = file.agents.find(a => a.name === name);
  return found ? { agent: found } : { error: `no agent named '${name}' in the file${list ? ` (agents${list})` : ''}` };
}
