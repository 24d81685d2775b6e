// Reads the workspace tool file with core's validator and lists the tool names it declares, statically: the
// language server never starts a tool (an MCP server's tools are known only when its entry maps them in "tools").
import { basename } from 'node:path';
import type { ToolInfo } from '../core/art';
import { describeTool, loadToolsFile, staticNames } from '../core/tools/toolsFile';
import type { ToolFileLoader } from './workspaceTools';

export const loadToolFile: ToolFileLoader = async path => {
  const loaded = await loadToolsFile(path, { displayName: basename(path) });
  const tools: ToolInfo[] = [];
  for (const entry of loaded.config?.tools ?? []) for (const name of staticNames(entry)) tools.push(describeTool(entry, name));
  return { tools, problems: loaded.errors, placed: loaded.problems ?? [], text: loaded.text };
};
