// LLM-backed tools. Each builds a prompt of its own, in the shape of the ART reference's Codex prompt: a short
// few-shot header, `# instruction`, the input (the previous answer, or the answer `#k` the instruction names) and
// `Python code:`. The prompt holds only the step, never the whole program (as "LLM programs" recommends). The code
// tools answer with the cleaned code; the string tools run it in the sandbox and answer with its result.
import { builtinInfo, deadline, errorMessage, fail, ok, stoppedResult } from './common';
import { stripFences } from './python';
import { runPython, type IsolationLevel, type SandboxLimits } from './sandbox';
import type { Tool, ToolContext, ToolInput, ToolResult } from './types';
import { DEFAULT_MAX_TOKENS } from '../model/types';

const DEFAULT_TIMEOUT_MS = 60_000;
const SEPARATOR = '----';

const GENERATE_HEADER = `Write Python 3 code for the instruction, using the input when there is one. The math module, sympy's Symbol, symbols, Eq and solve, and solve_it(equations, variable), which returns a dict of the solution, are available. Store the final result in a variable named ans and print it.
${SEPARATOR}
# Find the number of vowels in the input.
Input:
"Programming in Python"
Python code:
text = "Programming in Python"
ans = sum(1 for c in text.lower() if c in "aeiou")
print(ans)
${SEPARATOR}
# A train travels 180 km in 2.5 hours. What is its average speed in km/h?
Python code:
distance = 180
time = 2.5
ans = distance / time
print(ans)
`;

const EDIT_HEADER = `Edit the Python 3 code in the input as the instruction says. Write the whole edited program.
${SEPARATOR}
# Print the value of total at the end.
Input:
total = 0
for n in [3, 4, 5]:
    total += n
Python code:
total = 0
for n in [3, 4, 5]:
    total += n
print(total)
`;

const STRING_HEADER = `Write Python 3 code that does the string operation of the instruction on the input. Store the result in a variable named ans and print it.
${SEPARATOR}
# What is the second letter of each word in the list?
Input:
["Maple", "Cedar", "Birch"]
Python code:
words = ["Maple", "Cedar", "Birch"]
ans = [w[1] for w in words]
print(ans)
${SEPARATOR}
# Reverse the order of the words in the input.
Input:
green fields and blue skies
Python code:
words = "green fields and blue skies".split()
ans = " ".join(reversed(words))
print(ans)
`;

const PERMUTATION_HEADER = `Write Python 3 code for the instruction. Store the result in a variable named ans and print it.
${SEPARATOR}
# What are the possible permutations of "ab"?
Python code:
from itertools import permutations
ans = ["".join(p) for p in permutations("ab")]
print(ans)
`;

/** Splits an instruction whose later lines hold code (`Edit the following code ...\nx = 1`). */
function splitInstruction(instruction: string): { first: string; rest: string } {
  const nl = instruction.indexOf('\n');
  return nl < 0 ? { first: instruction.trim(), rest: '' } : { first: instruction.slice(0, nl).trim(), rest: instruction.slice(nl + 1).trim() };
}

/** The input data of the step: the answer `#k` names, else the previous answer, else the task's input (`#0`). */
function stepInput(input: ToolInput): string | undefined {
  const m = /#(\d+)\b/.exec(input.instruction);
  const named = m && input.answers?.get(Number(m[1]));
  return named ?? input.previousAnswer ?? input.answers?.get(0);
}

/** The step's own prompt: header, `# instruction`, the input, `Python code:`. `#k` becomes "the input". */
export function buildCodePrompt(header: string, instruction: string, data: string | undefined): string {
  const text = instruction
    .replace(/#\d+\b/g, 'the input')
    .replace(/\s*\n\s*/g, ' ')
    .trim();
  const inputPart = data && data.trim() ? `Input:\n${data.trim()}\n` : '';
  return `${header}${SEPARATOR}\n# ${text}\n${inputPart}Python code:\n`;
}

/** The code in a model's reply: a fenced block if any, without an echoed `Python code:` or separator. */
export function cleanCode(reply: string): string {
  let code = stripFences(reply);
  code = code.replace(/^\s*Python code:\s*\n/, '');
  const sep = code.indexOf(`\n${SEPARATOR}`);
  if (sep >= 0) code = code.slice(0, sep);
  return code.replace(/^\s*\n/, '').replace(/\s+$/, '');
}

interface GeneratedCode {
  code: string;
  prompt: string;
}

async function generate(name: string, prompt: string, ctx: ToolContext, signal: AbortSignal): Promise<GeneratedCode | ToolResult> {
  if (!ctx.model) return fail(`no model configured for [${name}]: set a model endpoint, or answer this step by hand`);
  let reply: string;
  try {
    const r = await ctx.model.complete({ prompt, stop: [`\n${SEPARATOR}`], maxTokens: DEFAULT_MAX_TOKENS, temperature: 0, signal });
    reply = r.text;
  } catch (e) {
    if (signal.aborted) throw e;
    return fail(`[${name}] the model request failed: ${errorMessage(e)}`, { details: { prompt } });
  }
  const code = cleanCode(reply);
  if (!code) return fail(`[${name}] the model returned no code`, { details: { prompt, reply } });
  return { code, prompt };
}

/**
 * In a replay that still follows its recording, a model-backed tool answers with the step's recorded answer (its
 * inner generation was never recorded), marked as recorded in the call's details.
 */
function recorded(input: ToolInput, ctx: ToolContext): ToolResult | undefined {
  const answer = ctx.model?.recordedAnswer?.(input.instruction);
  return answer === undefined ? undefined : ok(answer, { recorded: true, model: ctx.model?.id });
}

const isResult = (x: GeneratedCode | ToolResult): x is ToolResult => 'ok' in x;

/** `code generate` / `generate python code` / `code edit`: the answer is the code. */
function codeTool(name: 'code generate' | 'generate python code' | 'code edit'): Tool {
  return {
    info: builtinInfo(name),
    async run(input: ToolInput, ctx: ToolContext): Promise<ToolResult> {
      const replayed = recorded(input, ctx);
      if (replayed) return replayed;
      const { first, rest } = splitInstruction(input.instruction);
      let prompt: string;
      if (name === 'code edit') {
        const code = rest || stripFences(stepInput(input) ?? '');
        if (!code) return fail("[code edit] found no code to edit: it edits the previous answer's code (or code on the lines after the instruction)");
        prompt = buildCodePrompt(EDIT_HEADER, first, code);
      } else {
        prompt = buildCodePrompt(GENERATE_HEADER, input.instruction, stepInput(input));
      }
      const d = deadline(ctx, DEFAULT_TIMEOUT_MS);
      try {
        const g = await generate(name, prompt, ctx, d.signal);
        if (isResult(g)) return g;
        return ok(g.code, { prompt: g.prompt, model: ctx.model?.id });
      } catch {
        return stoppedResult(name, d);
      } finally {
        d.dispose();
      }
    },
  };
}

/** `string edit` / `string index` / `string permutation`: generate code, run it, answer with its result. */
function stringTool(name: 'string edit' | 'string index' | 'string permutation', opts: LlmToolOptions): Tool {
  const header = name === 'string permutation' ? PERMUTATION_HEADER : STRING_HEADER;
  return {
    info: builtinInfo(name),
    async run(input: ToolInput, ctx: ToolContext): Promise<ToolResult> {
      const replayed = recorded(input, ctx);
      if (replayed) return replayed;
      const prompt = buildCodePrompt(header, input.instruction, stepInput(input));
      const d = deadline(ctx, DEFAULT_TIMEOUT_MS);
      try {
        const g = await generate(name, prompt, ctx, d.signal);
        if (isResult(g)) return g;
        const r = await runPython({
          code: g.code,
          resultVars: ['ans'],
          pythonPath: opts.pythonPath,
          limits: opts.limits,
          signal: d.signal,
          isolation: opts.isolation,
          allowUnisolated: opts.allowUnisolated,
        });
        const facts = { prompt: g.prompt, code: g.code, model: ctx.model?.id, status: r.status, durationMs: r.durationMs };
        if (r.status === 'cancelled') return stoppedResult(name, d);
        if (r.status === 'exception') {
          return fail(`[${name}] the generated code raised ${r.stderr.trim().split('\n').pop()}`, { details: { ...facts, stderr: r.stderr } });
        }
        if (r.status !== 'ok')
          return fail(`[${name}] the generated code ${r.message}`, { timedOut: r.status === 'timeout' || undefined, details: facts });
        if (r.value?.found) return ok(r.value.text ?? '', facts);
        if (r.stdout.trim()) return ok(r.stdout.trim(), facts);
        return fail(`[${name}] the generated code set no "ans" and printed nothing`, { details: facts });
      } catch {
        return stoppedResult(name, d);
      } finally {
        d.dispose();
      }
    },
  };
}

export interface LlmToolOptions {
  pythonPath?: string;
  limits?: Partial<SandboxLimits>;
  isolation?: IsolationLevel;
  allowUnisolated?: boolean;
}

export function createLlmTools(opts: LlmToolOptions = {}): Tool[] {
  return [
    codeTool('generate python code'),
    codeTool('code generate'),
    codeTool('code edit'),
    stringTool('string edit', opts),
    stringTool('string index', opts),
    stringTool('string permutation', opts),
  ];
}
