// The run options as the agent tools' inputs (from their one declaration, core/launch/options.ts) and which ones each
// command takes (`art test`, `art eval`, `art prompt` and the tools of the same names). Defaults are not applied here:
// the shell completes a call's options (its flags or its settings) and parseRunOptions applies them after its rules.
import { z } from 'zod';
import { RUN_OPTIONS, cliOptions, type RunOptionName } from '../launch/options';
import { AGENT_LIMITS, cappedInputs } from './limits';

/** Run options that belong to one run, not to an evaluation (`art eval`, `art improve`, the tools evaluate and improve). */
export const NOT_FOR_EVAL = new Set<RunOptionName>(['input', 'trace', 'mode', 'replayDelayMs', 'stopOnEntry', 'pauseBeforeTool', 'search', 'budget']);

/** Run options that do not change the prompt of a run that does not run (`art prompt`, show_prompt). */
export const NOT_FOR_PROMPT = new Set<RunOptionName>(['trace', 'samples', 'from', 'until', 'replayDelayMs', 'stopOnEntry', 'pauseBeforeTool']);

/**
 * The run options `art test` (and the tool test) takes: the endpoint of `--tools all`, the tools' own settings; the
 * others belong to a run of one program. `tools` (a tool file) is left out because `--tools` says which steps are
 * compared there: user tools come from the workspace's .art-tools.json.
 */
const FOR_TEST = new Set<RunOptionName>([
  'baseURL',
  'model',
  'api',
  'apiKeyEnv',
  'temperature',
  'maxTokens',
  'cwd',
  'pythonPath',
  'pythonTimeoutMs',
  'pythonMemoryMb',
  'pythonCpuSeconds',
  'pythonMaxOutputBytes',
  'pythonMaxFileBytes',
  'allowUnisolatedCode',
  'corpus',
  'rerank',
  'wordList',
  'toolTimeoutMs',
]);
export const NOT_FOR_TEST = new Set((Object.keys(RUN_OPTIONS) as RunOptionName[]).filter(n => !FOR_TEST.has(n)));

/**
 * Run options the run tools (`run`, `debug_start`) do not take: one run is one program, stepped by the session's
 * tools (search, samples and their budget are `art run`'s; a pause before each tool is debug_start's own).
 */
export const NOT_FOR_RUN_TOOL = new Set<RunOptionName>(['search', 'budget', 'samples']);

/**
 * Run options no tool takes, whatever the command: the key's variable, the interpreter and running code unisolated
 * are the user's (art mcp's flags `--api-key-env`, `--python`, `--allow-unisolated-code`; the editor's settings), and
 * so are where the runs' telemetry goes and whether it holds their content (OTEL_EXPORTER_OTLP_*, the settings),
 * never a possibly prompt-injected caller's.
 */
export const NEVER_FROM_CALLER = new Set<RunOptionName>(['apiKeyEnv', 'pythonPath', 'allowUnisolatedCode', 'otlp', 'otlpContent']);

/** The run options that are paths a run reads (or writes: `trace`), confined like a tool's own path arguments. */
export const PATH_OPTIONS = ['preamble', 'tools', 'trace', 'corpus', 'wordList', 'from'] as const;

/** Options whose declared description speaks of a shell's rule: here, the rule of the agent tools. */
const TOOL_DESCRIPTIONS: Partial<Record<RunOptionName, string>> = {
  mode: "Generate with the model endpoint, or replay the model text recorded in the program (an agent: NAME.transcript.txt beside NAME.agent; a MultiTool-CoT prompt: NAME.answer.txt beside NAME.cot.txt; tools run again, no endpoint). Default: replay, unless an endpoint is given (baseURL and model, or art mcp started with --base-url and --model). In the editor's tools, the model settings decide.",
  baseURL:
    "Base URL of the OpenAI-compatible API (default: art mcp's --base-url, or the editor's art.model.baseURL). The key goes only to the origins the user allowed (art mcp's --base-url and --key-origin; in the editor, the hosts the person approves): another one gets no key, and the result says so.",
  tools:
    "The workspace tool file (default: .art-tools.json when present). Its tools (commands, HTTP tools, MCP servers) run only when the user allowed them (art mcp's --allow-tools; the editor in a trusted workspace).",
  modelFile:
    "A local GGUF model file, run in-process by llama.cpp (chooses the local model): it must lie in the workspace (art mcp: the client's roots) or the models folder (~/.cache/art-studio/models).",
};

/**
 * The input shape of the run options a tool takes: those `art` has a flag for, but `skip` and those no caller gives.
 * Each is optional, with its declared description; a default is not applied here. An option some cap bounds
 * (limits.ts) takes any number from its least up: the shell lowers it to the cap and says so.
 */
export function runOptionShape(skip: ReadonlySet<RunOptionName>): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {};
  const capped = cappedInputs();
  for (const { name, spec } of cliOptions()) {
    if (skip.has(name) || NEVER_FROM_CALLER.has(name) || name === 'program') continue;
    const s = spec.schema;
    const bare = s instanceof z.ZodDefault ? (s.removeDefault() as z.ZodType) : s;
    const description = TOOL_DESCRIPTIONS[name] ?? spec.description;
    shape[name] = capped.has(name)
      ? z
          .number()
          .min(leastOf(name))
          .optional()
          .describe(`${description} ${capSentence(name)}`)
      : bare.optional().describe(description);
  }
  return shape;
}

/** The least value an option takes (its schema's minimum). */
function leastOf(name: RunOptionName): number {
  const j = z.toJSONSchema(RUN_OPTIONS[name].schema, { io: 'input' }) as { minimum?: number };
  return j.minimum ?? 0;
}

/** What caps an input, in words: `At most art mcp's --max-timeout-s (default 300 s); more is lowered to it.` */
export function capSentence(input: string): string {
  for (const spec of Object.values(AGENT_LIMITS)) {
    const factor = (spec.caps as Record<string, number>)[input];
    if (factor === undefined) continue;
    const cap = spec.default * factor;
    return 'pin' in spec && spec.pin
      ? `A caller that sets it gets ${cap} whatever it asks for (art mcp: --${spec.flag}), and the notes say so.`
      : `A caller gets at most ${cap} (art mcp: --${spec.flag}); more is lowered to it, and the notes say so.`;
  }
  return '';
}

/** The run options among a tool's arguments (the others are the tool's own); none a caller may not give. */
export function runOptionsOf(args: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(RUN_OPTIONS) as RunOptionName[])
    if (args[name] !== undefined && !NEVER_FROM_CALLER.has(name)) out[name] = args[name];
  return out;
}
