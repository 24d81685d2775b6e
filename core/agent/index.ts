// Public API of the `.agent` language: read and check specs, compile a behavior to an automaton, monitor text
// against it (whole or streamed), draw it, and pretty-print specs.
export * from './ast';
export {
  MAX_NESTING,
  readSExprs,
  type SExpr,
  type SAtom,
  type SKeyword,
  type SString,
  type SList,
  type SComment,
  type SExprFile,
  type SyntaxProblem,
} from './sexpr';
export { parseAgentFile } from './parse';
export { checkAgentFile, stateTemplate, AGENT_DIAGNOSTIC_CODES } from './check';
export {
  compileAgent,
  positionState,
  automatonGraph,
  automatonToMermaid,
  automatonToDot,
  toDot,
  type CompiledAgent,
  type CompiledState,
  type AutomatonPosition,
  type AutomatonGraph,
  type AutomatonNode,
} from './compile';
export { monitorText, StreamMonitor, commonPrefix, type MonitorResult, type MonitorEvent, type MonitorOptions, type Violation } from './monitor';
export { formatAgentText } from './format';
export { agentSummary, findAgent, formulaToJson, type AgentSummary, type FormulaJson } from './summary';
