// Public API of the runner (see README.md).
export * from './types';
export { Runner, describePause, type RunnerEvents, type RunPoint } from './runner';
export { StepSearch, BudgetedModel, BudgetSpent, writeSearchTraces, type SearchNode, type SearchOptions, type SearchResult } from './search';
export { createArtRunner, createAgentRunner, createMultiToolRunner, type ArtRunSpec } from './create';
export type { AgentRunSpec } from './agentProtocol';
export type { MultiToolRunSpec } from './multitoolProtocol';
export type { Protocol, Detection, Boundary, DetectedCall } from './protocol';
export { ArtProtocol, ART_STOPS } from './artProtocol';
export { AgentProtocol } from './agentProtocol';
export { MultiToolProtocol } from './multitoolProtocol';
export { buildArtPrompt, taskHeader, taskOf, type ArtPrompt } from './prompt';
export { selectDemonstrations, isDemonstration, type TaskSpec, type SelectionOptions, type Demonstration } from './selection';
export {
  TraceWriter,
  MemoryTrace,
  parseTrace,
  readTraceFile,
  replayTrace,
  TraceReplayModel,
  traceReplayTools,
  mainLine,
  cacheEntries,
  recordedRequests,
  protocolFromTrace,
  type ParsedTrace,
  type TraceReplay,
} from './trace';
export { demonstrationText, appendDemonstrationEdit, DemonstrationError } from './demonstration';
