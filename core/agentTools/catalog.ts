// Every agent tool, once: the list both shells offer (`art mcp` under each tool's name, the editor as `art_<name>`),
// and the editor's declaration of them in package.json (`contributes.languageModelTools`), which
// scripts/gen-manifest.mjs writes from here.
import { z } from 'zod';
import { check } from './check';
import { compare } from './compare';
import { constrain } from './constrain';
import { debugContinue } from './debugContinue';
import { debugSetOutput } from './debugSetOutput';
import { debugStart } from './debugStart';
import { debugState } from './debugState';
import { debugStepBack } from './debugStepBack';
import { debugStop } from './debugStop';
import { evaluate } from './evaluate';
import { improve } from './improve';
import { run } from './run';
import { showPrompt } from './showPrompt';
import { test } from './test';
import type { AgentTool } from './tool';

export const AGENT_TOOLS: readonly AgentTool[] = [
  check,
  run,
  test,
  evaluate,
  improve,
  showPrompt,
  compare,
  constrain,
  debugStart,
  debugState,
  debugSetOutput,
  debugContinue,
  debugStepBack,
  debugStop,
] as unknown as readonly AgentTool[];

/** The editor's name of a tool: `art_check`. */
export const editorToolName = (tool: Pick<AgentTool, 'name'>): string => `art_${tool.name}`;

/** The tool an editor name stands for. */
export function toolOfEditorName(name: string): AgentTool | undefined {
  return AGENT_TOOLS.find(t => editorToolName(t) === name);
}

/** A tool's input as a JSON schema (what a model and package.json read). */
export function inputJsonSchema(tool: AgentTool): Record<string, unknown> {
  const s = z.toJSONSchema(z.object(tool.input), { io: 'input' }) as Record<string, unknown>;
  delete s.$schema;
  delete s.additionalProperties;
  const clean = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(clean);
    if (!v || typeof v !== 'object') return v;
    const o = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, clean(x)]));
    if (o.maximum === Number.MAX_SAFE_INTEGER) delete o.maximum;
    return o;
  };
  return clean(s) as Record<string, unknown>;
}

/** package.json's `contributes.languageModelTools`: every tool, shown in a trusted workspace only. */
export function languageModelTools(): Record<string, unknown>[] {
  return AGENT_TOOLS.map(t => ({
    name: editorToolName(t),
    toolReferenceName: t.editor.referenceName,
    displayName: t.editor.displayName,
    userDescription: t.editor.userDescription,
    modelDescription: t.description,
    canBeReferencedInPrompt: true,
    tags: ['art'],
    when: 'isWorkspaceTrusted',
    inputSchema: inputJsonSchema(t),
    icon: t.editor.icon,
  }));
}
