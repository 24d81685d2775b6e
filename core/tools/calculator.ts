// `calculator` (MultiTool-CoT's `<<Calculator>>`): evaluates an arithmetic expression with mathjs, never `eval`.
// Hardening follows mathjs's "Security" page: a private instance with `import`, `createUnit`, `evaluate`, `parse`,
// `simplify`, `derivative`, `compile`, `resolve` and `config` disabled, so no expression can change the instance
// (variables live in a fresh scope per evaluation). In addition the allocating constructors (`range`, `zeros`,
// `ones`, ...) are disabled and user function definitions are rejected before evaluation, so an expression has no
// loops or recursion and runs in time and memory bounded by its length (it runs in-process, where a timeout could
// not interrupt it).
import { all, create, type MathNode } from 'mathjs';
import { builtinInfo, errorMessage, fail, ok } from './common';
import type { Tool, ToolInput, ToolResult } from './types';

const MAX_EXPRESSION_CHARS = 2000;

const DISABLED = [
  // mathjs's own list of the riskiest functions
  'import',
  'createUnit',
  'evaluate',
  'parse',
  'simplify',
  'derivative',
  // the same risks by other names
  'compile',
  'resolve',
  'simplifyConstant',
  'simplifyCore',
  'rationalize',
  'config',
  'reviver',
  'replacer',
  'chain',
  // unbounded allocation from a short expression
  'range',
  'zeros',
  'ones',
  'identity',
  'matrixFromFunction',
  'matrixFromRows',
  'matrixFromColumns',
  'resize',
  'reshape',
  'kron',
  'diag',
];

type LimitedMath = { parse: (expr: string) => MathNode; format: (value: unknown, opts: object) => string };

let shared: LimitedMath | null = null;

function limitedMath(): LimitedMath {
  shared ??= createLimitedMath();
  return shared;
}

function createLimitedMath(): LimitedMath {
  const math = create(all);
  const parse = math.parse.bind(math);
  const format = math.format.bind(math);
  const stubs: Record<string, () => never> = {};
  for (const name of DISABLED) {
    if (name in math)
      stubs[name] = () => {
        throw new Error(`function ${name} is disabled in the calculator`);
      };
  }
  math.import(stubs, { override: true });
  return { parse: parse as LimitedMath['parse'], format: format as LimitedMath['format'] };
}

/** Writing that models use for arithmetic but mathjs does not read: ×, ÷, −, $ amounts, 1,000 separators, a final `=`. */
export function normalizeExpression(text: string): string {
  return text
    .replace(/[×✕]/g, '*')
    .replace(/÷/g, '/')
    .replace(/[−–]/g, '-')
    .replace(/\$(?=\d)/g, '')
    .replace(/(\d),(?=\d{3}\b)/g, '$1')
    .replace(/[=?:]\s*$/, '')
    .trim();
}

function rejectUnsafe(node: MathNode): string | null {
  let problem: string | null = null;
  node.traverse(n => {
    if (!problem && n.type === 'FunctionAssignmentNode') problem = 'defining functions is not supported';
  });
  return problem;
}

export interface Evaluation {
  value: string;
  expression: string;
}

/**
 * Evaluates `text`, or else the longest tail of it that is an expression (MultiTool-CoT passes the text before the
 * trigger on its line, e.g. `So she earns 16 - 3 - 4 =`). Throws with the reason when nothing evaluates.
 */
export function calculate(text: string): Evaluation {
  const math = limitedMath();
  const normalized = normalizeExpression(text);
  if (!normalized) throw new Error('the expression is empty');
  if (normalized.length > MAX_EXPRESSION_CHARS) throw new Error(`the expression is longer than ${MAX_EXPRESSION_CHARS} characters`);
  const words = normalized.split(/\s+/);
  let firstError: string | null = null;
  for (let i = 0; i < words.length; i++) {
    const candidate = words.slice(i).join(' ');
    if (i > 0 && !/\d/.test(candidate)) break;
    try {
      const node = math.parse(candidate);
      const unsafe = rejectUnsafe(node);
      if (unsafe) throw new Error(unsafe);
      let value: unknown = node.compile().evaluate({});
      // `a = 2; a * 3` yields a ResultSet; its last entry is the answer.
      if (value && typeof value === 'object' && 'entries' in value && Array.isArray((value as { entries: unknown[] }).entries)) {
        const entries = (value as { entries: unknown[] }).entries;
        value = entries[entries.length - 1];
      }
      if (typeof value === 'function' || value === undefined) throw new Error('the expression does not produce a value');
      return { value: math.format(value, { precision: 14 }), expression: candidate };
    } catch (e) {
      firstError ??= errorMessage(e);
      if (i === 0 && /is disabled|not supported|longer than/.test(firstError)) break;
    }
  }
  throw new Error(firstError ?? 'no expression found');
}

export function createCalculatorTool(): Tool {
  return {
    info: builtinInfo('calculator'),
    async run(input: ToolInput): Promise<ToolResult> {
      const text = input.instruction.trim() || input.previousAnswer?.trim() || '';
      if (!text) return fail('[calculator] needs an arithmetic expression, e.g. `72 * cos(35 deg)`');
      try {
        const r = calculate(text);
        return ok(r.value, { expression: r.expression });
      } catch (e) {
        return fail(`[calculator] cannot evaluate "${text.length > 80 ? text.slice(0, 77) + '...' : text}": ${errorMessage(e)}`);
      }
    },
  };
}
