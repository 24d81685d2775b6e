// `art constrain SPEC [--agent NAME] [--state S] [--format regex|gbnf]`: the decoding constraint for an agent at a
// pause point (after state S is entered; the start of a run by default), for other clients and for debugging.
import { checkAgentFile, compileAgent, findAgent, parseAgentFile } from '../agent';
import { agentConstraint, pauseAtState } from '../agent/constrain';
import { CliError, languageOf, readSource } from './files';

export function constrainCommand(
  specPath: string,
  opts: { agent?: string; state?: string; format?: string },
  io: { out: (s: string) => void },
): number {
  if (languageOf(specPath) !== 'agent') throw new CliError(`${specPath}: the spec must be an agent spec (.agent)`);
  const format = opts.format ?? 'regex';
  if (format !== 'regex' && format !== 'gbnf') throw new CliError(`art constrain: --format must be regex or gbnf, not "${format}"`);
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
  io.out(format === 'regex' ? c.regex : c.gbnf.replace(/\n$/, ''));
  return 0;
}
