// `code execute` and `execute`: run Python from the program in the sandbox (see sandbox.ts for what is isolated).
// `code execute` runs the previous answer's code after the ART prefix (math, sympy and a `solve_it` helper, the
// functions the arithmetic library's preamble promises) and answers with the variable the instruction names
// (`get the value of "Fx"`), else `ans`, else what the code printed. `execute` runs the code as a script and answers
// with what it printed, or with the traceback when it fails, as the ART code library's debugging programs show.
import { builtinInfo, fail, ok, referencedAnswer } from './common';
import { isolationNote, runPython, type IsolationLevel, type SandboxLimits, type SandboxResult } from './sandbox';
import type { Tool, ToolContext, ToolInput, ToolResult } from './types';

/** Python run before `code execute`'s code, in the same namespace. */
export const ART_PREFIX = `import math
from sympy import Symbol, symbols, Eq, Rational, simplify, solve

def solve_it(equations, variable):
    """Solve equations (one, or a list; a bare expression means expression = 0) for variable (one, or a list).
    Returns the first solution as a dict {symbol: value}; each variable maps to None when there is no solution."""
    variables = list(variable) if isinstance(variable, (list, tuple)) else [variable]
    solutions = solve(equations, variables, dict=True)
    if not solutions:
        return {v: None for v in variables}
    return solutions[0]
`;

/** Importing sympy costs about half a second, so code that uses none of the prefix's sympy names gets only math. */
const USES_SYMPY = /\b(?:Symbol|symbols|Eq|Rational|simplify|solve|solve_it|sympy)\b/;
export function prefixFor(code: string): string {
  return USES_SYMPY.test(code) ? ART_PREFIX : 'import math\n';
}

export interface PythonToolOptions {
  /** Interpreter with sympy for `code execute` (default /usr/bin/python3, Debian's, with python3-sympy). */
  pythonPath?: string;
  limits?: Partial<SandboxLimits>;
  /** The sandbox's isolation level instead of the detected one (tests exercise the fallbacks with it). */
  isolation?: IsolationLevel;
  /** Run code even where no network namespace can be made (otherwise refused). */
  allowUnisolated?: boolean;
}

/** Code in a fenced block if there is one, else the text itself; trailing blank lines removed. */
export function stripFences(text: string): string {
  const fenced = /```[\w+-]*[^\S\n]*\n([\s\S]*?)```/.exec(text);
  return (fenced ? fenced[1] : text).replace(/^\s*\n/, '').replace(/\s+$/, '');
}

/** The lines after the first line of an instruction (`Execute the following python code snippet.\nprint(x)`). */
function codeInInstruction(instruction: string): string {
  const nl = instruction.indexOf('\n');
  return nl < 0 ? '' : stripFences(instruction.slice(nl + 1));
}

/** `get the value of "Fx"` → Fx. */
export function requestedVariable(instruction: string): string | null {
  const m = /value of\s+(?:the\s+)?(?:variable\s+)?["'“‘`]?([A-Za-z_]\w*)["'”’`]?/i.exec(instruction);
  return m ? m[1] : null;
}

function limitFailure(name: string, r: SandboxResult): ToolResult {
  return fail(`[${name}] ${r.message ?? `failed (${r.status})`}`, {
    timedOut: r.status === 'timeout' || undefined,
    details: details(r),
  });
}

function details(r: SandboxResult): Record<string, unknown> {
  return {
    status: r.status,
    exitCode: r.exitCode,
    durationMs: r.durationMs,
    truncated: r.truncated,
    isolation: r.isolation.level,
    // Shown with the tool call (Variables view, trace): what the sandbox did not isolate.
    sandbox: isolationNote(r.isolation.level, r.status !== 'refused'),
    ...(r.stderr ? { stderr: r.stderr } : {}),
  };
}

function limitsFor(ctx: ToolContext, opts: PythonToolOptions): Partial<SandboxLimits> {
  return { ...opts.limits, ...(ctx.timeoutMs !== undefined ? { timeoutMs: ctx.timeoutMs } : {}) };
}

export function createCodeExecuteTool(opts: PythonToolOptions = {}): Tool {
  return {
    info: builtinInfo('code execute'),
    async run(input: ToolInput, ctx: ToolContext): Promise<ToolResult> {
      const code = stripFences(referencedAnswer(input) ?? '') || codeInInstruction(input.instruction);
      if (!code)
        return fail("[code execute] found no code: it runs the previous answer's Python (or code written on the lines after the instruction)");
      const named = requestedVariable(input.instruction);
      const r = await runPython({
        code,
        prefix: prefixFor(code),
        resultVars: named && named !== 'ans' ? [named, 'ans'] : ['ans'],
        pythonPath: opts.pythonPath,
        limits: limitsFor(ctx, opts),
        signal: ctx.signal,
        isolation: opts.isolation,
        allowUnisolated: opts.allowUnisolated,
      });
      if (r.status === 'exception') {
        const last = r.stderr.trim().split('\n').pop() ?? `${r.exception?.type}: ${r.exception?.message}`;
        return fail(`[code execute] the code raised ${last}`, { details: details(r) });
      }
      if (r.status !== 'ok') return limitFailure('code execute', r);
      if (r.value?.found) return ok(r.value.text ?? '', { ...details(r), variable: r.value.name, printed: r.stdout });
      const printed = r.stdout.trim();
      if (printed) return ok(printed, { ...details(r), variable: null });
      return fail(`[code execute] the code defined no ${named ? `"${named}" or ` : ''}"ans" and printed nothing`, { details: details(r) });
    },
  };
}

export function createExecuteTool(opts: PythonToolOptions = {}): Tool {
  return {
    info: builtinInfo('execute'),
    async run(input: ToolInput, ctx: ToolContext): Promise<ToolResult> {
      const code = codeInInstruction(input.instruction) || stripFences(referencedAnswer(input) ?? '');
      if (!code) return fail('[execute] found no code: write it on the lines after the instruction, or in the previous answer');
      const r = await runPython({
        code,
        pythonPath: opts.pythonPath,
        limits: limitsFor(ctx, opts),
        signal: ctx.signal,
        isolation: opts.isolation,
        allowUnisolated: opts.allowUnisolated,
      });
      if (r.status === 'ok' || r.status === 'exception' || r.status === 'output-limit') {
        // A traceback is the answer here (the debugging tasks ask "what error does this program surface?").
        const text = [r.stdout.replace(/\s+$/, ''), r.stderr.replace(/\s+$/, '')].filter(Boolean).join('\n');
        const note = r.status === 'output-limit' ? `\n[${r.message}]` : '';
        return ok(text ? text + note : '(the program printed nothing)', details(r));
      }
      return limitFailure('execute', r);
    },
  };
}
