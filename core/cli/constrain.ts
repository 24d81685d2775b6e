// `art constrain SPEC [--agent NAME] [--state S] [--format regex|gbnf]`: the decoding constraint for an agent at a
// pause point (after state S is entered; the start of a run by default), for other clients and for debugging.
import { checkAgentFile, compileAgent, findAgent, parseAgentFile } from '../agent';
import { agentConstraint, pauseAtState } from '../agent/constrain';
import { CliError, languageOf, readSource } from './files';

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

export function constrainCommand(
  specPath: string,
  opts: { agent?: string; state?: string; format?: string },
  io: { out: (s: string) => void },
): number {
  if (languageOf(specPath) !== 'agent') throw new CliError(`${specPath}: the spec must be an agent spec (.agent)`);
  const format = opts.format ?? 'regex';
  if (format !== 'regex' && format !== 'gbnf') throw new CliError(`art constrain: --format must be regex or gbnf, not "${format}"`);
  const c = constraintOf(specPath, opts);
  io.out(format === 'regex' ? c.regex : c.gbnf.replace(/\n$/, ''));
  return 0;
}
