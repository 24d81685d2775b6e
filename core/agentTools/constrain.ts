// The agent tool constrain, and what it and `art constrain` answer: the decoding constraint of an agent spec from a
// state, as a regex and a GBNF grammar.
import { z } from 'zod';
import { checkAgentFile, compileAgent, findAgent, parseAgentFile } from '../agent';
import { agentConstraint, pauseAtState } from '../agent/constrain';
import { CliError, languageOf, readSource } from '../common/sourceFiles';
import { fileOrActive, givenOrActive } from './shapes';
import { defineTool } from './tool';

/** An agent's decoding constraint from a state (null: the start of a run), as a regex and as a GBNF grammar. */
export interface AgentConstraintReport {
  agent: string;
  state: string | null;
  regex: string;
  gbnf: string;
}

/** The constraint of `opts.agent` (default: the spec's first) after `opts.state`; a CliError names the file and the fix. */
export function constraintOf(specPath: string, opts: { agent?: string; state?: string }): AgentConstraintReport {
  if (languageOf(specPath) !== 'agent') throw new CliError(`${specPath}: the spec must be an agent spec (.agent)`);
  const file = parseAgentFile(readSource(specPath));
  const errors = checkAgentFile(file).filter(d => d.severity === 'error');
  if (errors.length) throw new CliError(`${specPath}: the spec has ${errors.length} error(s): run 'art check ${specPath}' and fix them first`);
  const found = findAgent(file, opts.agent);
  if ('error' in found) throw new CliError(`${specPath}: ${found.error}`);
  const compiled = compileAgent(found.agent);
  let at;
  try {
    at = pauseAtState(compiled, opts.state ?? null);
  } catch (e) {
    throw new CliError(`${specPath}: ${(e as Error).message}`);
  }
  const c = agentConstraint(compiled, at);
  if (!c)
    throw new CliError(
      `${specPath}: no text is on spec ${opts.state ? `after ${opts.state}` : 'from the start of a run'}: there is no constraint to write`,
    );
  return { agent: compiled.name, state: opts.state ?? null, regex: c.regex, gbnf: c.gbnf };
}

export const constrain = defineTool({
  name: 'constrain',
  title: "An agent's decoding constraint",
  description:
    'The decoding constraint of an agent spec from a state (default: the start of a run), as a regex and a GBNF grammar, as `art constrain` prints it.',
  input: {
    spec: fileOrActive('The agent spec (.agent)'),
    agent: z.string().optional().describe("The agent's name (default: the spec's first)."),
    state: z.string().optional().describe('The state just entered (default: the start of a run).'),
  },
  output: { agent: z.string(), state: z.string().nullable(), regex: z.string(), gbnf: z.string() },
  editor: {
    displayName: 'ART: Agent Constraint',
    referenceName: 'artConstrain',
    userDescription: "An agent's decoding constraint from a state, as a regex and a GBNF grammar.",
    icon: '$(symbol-ruler)',
    invocation: () => "Compiling the agent's decoding constraint",
  },
  run: async (input, host) => {
    const c = constraintOf(await host.path(givenOrActive(host, input.spec, 'spec'), '"spec"'), { agent: input.agent, state: input.state });
    return { text: `regex:\n${c.regex}\n\ngbnf:\n${c.gbnf}`, structured: { ...c } };
  },
});
