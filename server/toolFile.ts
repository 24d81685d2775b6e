// Reads the workspace tool file with core's validator and lists the tool names it declares, statically: the
// language server never starts a tool (an MCP server's tools are known only when its entry maps them in "tools").
import { basename } from 'node:path';
import type { ToolInfo } from '../core/art';
import { loadToolsFile, staticNames, type ToolEntry } from '../core/tools/toolsFile';
import type { ToolFileLoader } from './workspaceTools';

const INPUT: Record<string, string> = {
  instruction: "The step's instruction.",
  previousAnswer: 'The previous answer.',
  both: "The step's instruction, a blank line, then the previous answer.",
};

function describe(entry: ToolEntry, name: string): ToolInfo {
  const input = INPUT['input' in entry && entry.input ? entry.input : 'instruction'];
  switch (entry.kind) {
    case 'command':
      return { name, origin: 'user', description: entry.description ?? `Runs \`${entry.command.join(' ')}\`; the answer is what it prints.`, input };
    case 'http':
      return {
        name,
        origin: 'user',
        description: entry.description ?? `POSTs the step to ${entry.url}; the reply is the answer.`,
        input: "The step's instruction and the previous answer, as JSON.",
      };
    default:
      return {
        name,
        origin: 'user',
        description: `A tool of the MCP server${entry.name ? ` "${entry.name}"` : ''} (\`${entry.command.join(' ')}\`).`,
        input,
      };
  }
}

export const loadToolFile: ToolFileLoader = async path => {
  const loaded = await loadToolsFile(path, { displayName: basename(path) });
  const tools: ToolInfo[] = [];
  for (const entry of loaded.config?.tools ?? []) for (const name of staticNames(entry)) tools.push(describe(entry, name));
  return { tools, problems: loaded.errors };
};
