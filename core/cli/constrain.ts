// `art constrain SPEC [--agent NAME] [--state S] [--format regex|gbnf]`: the decoding constraint for an agent at a
// pause point (after state S is entered; the start of a run by default), for other clients and for debugging.
import { constraintOf } from '../agentTools/constrain';
import { CliError, languageOf } from './files';

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
