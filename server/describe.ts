// How tools and states are described to the user (completion documentation and hover share these words).
import type { ToolInfo } from '../core/art';
import type { StateDef } from './agentCore';

const ORIGIN: Record<ToolInfo['origin'], string> = {
  art: 'ART built-in tool',
  react: 'ReACT action',
  multitool: 'MultiTool-CoT tool',
  user: 'workspace tool',
};

export const toolOrigin = (t: ToolInfo): string => ORIGIN[t.origin] ?? 'tool';

export function toolMarkdown(t: ToolInfo): string {
  return `**${t.name}** (${toolOrigin(t)})\n\n${t.description}\n\n*Input:* ${t.input}`;
}

export function stateMarkdown(s: StateDef): string {
  const flags = s.flags.length ? s.flags.map(f => `\`:${f.name}\``).join(' ') : 'none';
  return `**${s.name}**: prompt text \`${s.text.replace(/`/g, "'")}\`\n\nflags: ${flags}`;
}
