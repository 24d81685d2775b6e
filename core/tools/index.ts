// The tool library: built-in tools, workspace tools and the registry the runner uses.
export type { Tool, ToolContext, ToolInput, ToolResult } from './types';
export { createToolRegistry, UNTRUSTED_MESSAGE, type ToolRegistry, type ToolRegistryOptions } from './registry';
export { loadToolsFile, parseToolsFile, toolsFileJsonSchema, TOOLS_FILE_NAME, type ToolsFile } from './toolsFile';
export {
  runPython,
  networkNamespaceAvailable,
  detectIsolation,
  isolationNote,
  ISOLATION_LEVELS,
  type IsolationLevel,
  DEFAULT_PYTHON,
  DEFAULT_LIMITS,
  type SandboxResult,
  type SandboxLimits,
} from './sandbox';
export { ART_PREFIX } from './python';
export { DEFAULT_WORD_LIST } from './lookup';
