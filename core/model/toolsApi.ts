// The tools API (`api: 'tools'`): a program continued over chat function calling. Each tool of the tool library is
// offered as a function (a name valid for the API, its description, one string parameter `instruction`); the
// program language says, through a ToolProgram (core/protocols/artTools.ts for ART), how the text so far becomes
// messages and how a call is written back as program text. The client (openai.ts) stays a text client: a streamed
// call comes out as the text of a tool step (`Qk: [calculator] 21 + 3` then the answer marker), which the runner's
// protocol reads as it reads a step the model wrote.
//
// The messages are a pure function of the text so far: the prompt before the model's part is the user message,
// each tool step of the model's part an assistant message (the text before the call, the call) and a `tool`
// message (the output), the text after the last output a final assistant message. Call ids are made from the
// step's position (`art000001`), never the endpoint's, so the same text always gives the same request: the request
// cache, a replay from a trace and time travel, which all work from text, find the same requests again.
import type OpenAI from 'openai';

/** A tool offered to the model. */
export interface OfferedTool {
  /** The name as the program writes it (`code execute`). */
  name: string;
  description: string;
}

/** One tool step of the model's part: the text before it, the call and what the tool gave. */
export interface ToolTurn {
  text: string;
  tool: string;
  instruction: string;
  output: string;
}

/** The text so far read as a dialogue. */
export interface ToolDialogue {
  /** What goes before the model's part (the user message). */
  prompt: string;
  turns: ToolTurn[];
  /** The model's text after the last tool output ('' when none). */
  tail: string;
}

/** What the tools API needs to know of the program language. */
export interface ToolProgram {
  tools: readonly OfferedTool[];
  /** The text so far as a dialogue; null when it is no program to continue (an LLM-backed tool's own prompt). */
  dialogue(text: string): ToolDialogue | null;
  /** The program text that writes a call of `tool` on `instruction`, continuing `text`, through the answer marker. */
  callText(text: string, tool: string, instruction: string): string;
}

export const TOOLS_SYSTEM_PROMPT =
  'You continue documents that are programs of steps. Reply with only the exact continuation of the given text, ' +
  'starting precisely where it ends: no preamble, no repetition, no commentary. When the next step uses a tool, ' +
  "call the function of that tool with the step's instruction instead of writing the step; its output comes back " +
  'as the tool message, and you go on with the step after it.';

const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Function names valid for the API (`^[a-zA-Z0-9_-]{1,64}$`) for tool names, both ways: other characters become
 * `_` (`code execute` → `code_execute`), a name taken already gets `_2`, `_3`, ...
 */
export class FunctionNames {
  private readonly byTool = new Map<string, string>();
  private readonly byFunction = new Map<string, string>();

  constructor(tools: readonly OfferedTool[]) {
    for (const t of tools) {
      if (this.byTool.has(t.name)) continue;
      const base =
        t.name
          .trim()
          .replace(/[^a-zA-Z0-9_-]+/g, '_')
          .replace(/^_+|_+$/g, '')
          .slice(0, 60) || 'tool';
      let name = base;
      for (let i = 2; this.byFunction.has(name.toLowerCase()); i++) name = `${base}_${i}`;
      this.byTool.set(t.name, name);
      this.byFunction.set(name.toLowerCase(), t.name);
    }
  }

  /** The function name of a tool (a tool not offered is mapped the same way, for a step the program already has). */
  functionOf(tool: string): string {
    const known = this.byTool.get(tool);
    if (known) return known;
    const name = tool
      .trim()
      .replace(/[^a-zA-Z0-9_-]+/g, '_')
      .slice(0, 64);
    return FUNCTION_NAME.test(name) ? name : 'tool';
  }

  /** The tool a function name stands for; the name itself when no tool was offered under it. */
  toolOf(fn: string): string {
    return this.byFunction.get(fn.toLowerCase()) ?? fn;
  }
}

/** A function offered to a model: its name, what it does and its parameters (a JSON schema). */
export interface FunctionDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** The tools as functions: each takes one string, the step's instruction. */
export function functionDefinitions(tools: readonly OfferedTool[], names: FunctionNames): FunctionDefinition[] {
  return tools.map(t => ({
    name: names.functionOf(t.name),
    description: t.description.slice(0, 1024),
    parameters: {
      type: 'object',
      properties: { instruction: { type: 'string', description: `The step's instruction: the input of ${t.name}.` } },
      required: ['instruction'],
    },
  }));
}

/** The `tools` field of a request. */
export function toolDefinitions(tools: readonly OfferedTool[], names: FunctionNames): OpenAI.Chat.ChatCompletionTool[] {
  return functionDefinitions(tools, names).map(f => ({ type: 'function' as const, function: f }));
}

/** The id of the call of the `i`-th (0-based) tool turn: 9 letters and digits, which every server accepts. */
export const callId = (i: number) => `art${String(i + 1).padStart(6, '0')}`;

/** The messages of a request: a pure function of the dialogue. */
export function toolMessages(system: string, d: ToolDialogue, names: FunctionNames): OpenAI.Chat.ChatCompletionMessageParam[] {
  const out: OpenAI.Chat.ChatCompletionMessageParam[] = [
    { role: 'system', content: system },
    { role: 'user', content: d.prompt },
  ];
  d.turns.forEach((t, i) => {
    const id = callId(i);
    out.push({
      role: 'assistant',
      content: t.text || null,
      tool_calls: [{ id, type: 'function', function: { name: names.functionOf(t.tool), arguments: JSON.stringify({ instruction: t.instruction }) } }],
    });
    out.push({ role: 'tool', tool_call_id: id, content: t.output });
  });
  if (d.tail) out.push({ role: 'assistant', content: d.tail });
  return out;
}

/** A call as it streamed in: its function's name and its arguments, whole. */
export interface StreamedCall {
  id?: string;
  name: string;
  arguments: string;
}

/** Longest arguments of one call accepted (the instruction of a step). */
export const MAX_CALL_ARGUMENT_CHARS = 256 * 1024;

/**
 * Accumulates streamed `tool_calls` deltas (the id and name first, the arguments in pieces) by index. The first
 * call is the one the run takes: it is complete when a delta of another call starts or the stream finishes.
 */
export class ToolCallAccumulator {
  private first: (StreamedCall & { index: number }) | null = null;
  private closed = false;

  /** Takes one delta's `tool_calls`; returns the first call once a later one starts (it is complete then). */
  push(deltas: readonly OpenAI.Chat.ChatCompletionChunk.Choice.Delta.ToolCall[]): StreamedCall | null {
    for (const d of deltas) {
      const index = d.index ?? 0;
      if (!this.first) this.first = { index, name: '', arguments: '' };
      if (index !== this.first.index) return this.finish();
      if (d.id) this.first.id = d.id;
      if (d.function?.name) this.first.name += d.function.name;
      if (d.function?.arguments) {
        this.first.arguments += d.function.arguments;
        if (this.first.arguments.length > MAX_CALL_ARGUMENT_CHARS)
          throw new Error(`the endpoint sent the arguments of a function call over ${MAX_CALL_ARGUMENT_CHARS} characters`);
      }
    }
    return null;
  }

  /** The first call, once; null when none started or it was taken. */
  finish(): StreamedCall | null {
    if (this.closed || !this.first?.name) return null;
    this.closed = true;
    const { index: _index, ...call } = this.first;
    return call;
  }
}

/**
 * The instruction in a call's arguments: `{"instruction": "..."}`; tolerated: a bare string (JSON or not), an object
 * whose only string field holds it under another name (`{"expression": "3 + 7"}`).
 */
export function instructionOf(args: string): string {
  const raw = args.trim();
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return raw;
  }
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    if (typeof o.instruction === 'string') return o.instruction;
    const strings = Object.values(o).filter((x): x is string => typeof x === 'string');
    if (strings.length === 1) return strings[0];
  }
  return raw;
}
