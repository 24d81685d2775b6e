// The one place the server reaches into core/agent: parse + check a spec, and format it.
import type { Diagnostic } from '../core/common/diagnostics';
import { checkAgentFile, formatAgentText, parseAgentFile, type AgentFile } from '../core/agent';

export type { AgentDef, AgentFile, Formula, SExpr, SList, StateDef, StateRef } from '../core/agent';
export { KNOWN_FLAGS, formulaToString, readSExprs, stateRefs } from '../core/agent';
export { formatAgentText };

export function checkAgent(text: string): { file: AgentFile; diagnostics: Diagnostic[] } {
  const file = parseAgentFile(text);
  return { file, diagnostics: checkAgentFile(file) };
}
