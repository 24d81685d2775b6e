// `art monitor SPEC TRACE`: walk a trace through an agent's automaton and report the first violation and the
// monitor's correction.
import { checkAgentFile, compileAgent, findAgent, monitorText, parseAgentFile } from '../agent';
import { LineIndex } from '../common/text';
import { CliError, languageOf, readSource } from './files';
import { terminalJson } from '../common/terminalText';

export function monitorCommand(
  specPath: string,
  tracePath: string,
  opts: { agent?: string; json: boolean },
  io: { out: (s: string) => void },
): number {
  if (languageOf(specPath) !== 'agent') throw new CliError(`${specPath}: the spec must be an agent spec (.agent)`);
  const file = parseAgentFile(readSource(specPath));
  const trace = readSource(tracePath);
  const errors = checkAgentFile(file).filter(d => d.severity === 'error');
  if (errors.length) throw new CliError(`${specPath}: the spec has ${errors.length} error(s): run 'art check ${specPath}' and fix them first`);
  const found = findAgent(file, opts.agent);
  if ('error' in found) throw new CliError(`${specPath}: ${found.error}`);
  const agent = found.agent;
  const compiled = compileAgent(agent);
  const result = monitorText(compiled, trace, { complete: true });
  if (opts.json) {
    io.out(terminalJson({ valid: result.valid, states: result.states, violation: result.violation, corrected: result.corrected }, 2));
  } else if (result.valid) {
    io.out(`${tracePath}: follows ${agent.name} (${result.states.length} states: ${result.states.join(' → ')})`);
  } else {
    const v = result.violation!;
    const found = v.found ? `state ${v.found}` : 'text that starts no state';
    const at = new LineIndex(trace).position(v.offset);
    io.out(`${tracePath}:${at.line + 1}:${at.character + 1}: off-spec: found ${found}, expected ${v.expected.join(' or ')}`);
    io.out('--- corrected ---');
    io.out(result.corrected);
  }
  return result.valid ? 0 : 1;
}
