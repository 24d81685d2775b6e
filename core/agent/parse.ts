// From the s-expression tree to agents: `(define NAME (:states ...) (:behavior FORMULA))`. Never throws; every
// form that is not where it belongs is a ParseProblem and the rest of the agent is still read.
import type { Fix } from '../common/diagnostics';
import { nearestName, type Span } from '../common/text';
import type { AgentDef, AgentFile, Clause, Flag, Formula, FormulaOp, ParseProblem, StateDef } from './ast';
import { readSExprs, type SExpr, type SKeyword, type SList } from './sexpr';

const OPERATORS: readonly FormulaOp[] = ['next', 'until', 'or'];

export function parseAgentFile(text: string): AgentFile {
  const sexprs = readSExprs(text);
  const problems: ParseProblem[] = sexprs.problems.map(p => ({ ...p, code: 'syntax' }));
  const reader = new AgentReader(problems);
  const agents: AgentDef[] = [];
  for (const form of sexprs.forms) {
    if (form.kind === 'list' && form.items[0]?.kind === 'atom' && form.items[0].name === 'define') agents.push(reader.define(form));
    else reader.syntax(headSpan(form), 'expected an agent: (define NAME (:states ...) (:behavior ...))');
  }
  problems.sort((a, b) => a.span.start - b.span.start);
  return { text, agents, comments: sexprs.comments, problems, tooDeep: sexprs.tooDeep };
}

/** The first token of a form: what to underline when the whole form is misplaced. */
function headSpan(form: SExpr): Span {
  if (form.kind !== 'list') return form.span;
  return form.items[0] ? headSpan(form.items[0]) : { start: form.span.start, end: form.span.start + 1 };
}

function clauseOf(list: SList): Clause {
  return { keywordSpan: list.items[0].span, span: list.span, closed: list.closed, empty: list.items.length <= 1 };
}

/** Replacement fix for a misspelt word among `choices` (within edit distance 2), or undefined. */
export function nearestFix(word: string, span: Span, choices: readonly string[], prefix = ''): Fix[] | undefined {
  const best = nearestName(word, choices)?.name;
  if (best === undefined || best === word) return undefined;
  return [{ title: `Change to '${prefix}${best}'`, preferred: true, edits: [{ span, newText: prefix + best }] }];
}

class AgentReader {
  constructor(private readonly problems: ParseProblem[]) {}

  syntax(span: Span, message: string, fixes?: Fix[]): void {
    this.problems.push({ code: 'syntax', message, span, fixes });
  }

  private unknownKeyword(kw: SKeyword, allowed: readonly string[], where: string): void {
    const list = allowed.map(a => `:${a}`).join(' or ');
    this.problems.push({
      code: 'unknown-keyword',
      message: `unknown keyword ':${kw.name}' ${where}: expected ${list}`,
      span: kw.span,
      fixes: nearestFix(kw.name, kw.span, allowed, ':'),
    });
  }

  define(form: SList): AgentDef {
    const defineAtom = form.items[0];
    const agent: AgentDef = {
      name: '',
      nameSpan: defineAtom.span,
      span: form.span,
      states: [],
      statesClause: null,
      behavior: null,
      behaviorClause: null,
    };
    let rest = form.items.slice(1);
    const nameItem = rest[0];
    if (nameItem?.kind === 'atom') {
      agent.name = nameItem.name;
      agent.nameSpan = nameItem.span;
      rest = rest.slice(1);
    } else {
      this.syntax(defineAtom.span, 'this define has no name: write (define NAME ...)');
    }
    for (const item of rest) {
      if (item.kind !== 'list' || item.items[0]?.kind !== 'keyword') {
        this.syntax(headSpan(item), 'expected (:states ...) or (:behavior ...)');
        continue;
      }
      const kw = item.items[0];
      if (kw.name === 'states') {
        if (agent.statesClause) this.syntax(kw.span, 'this agent already has a (:states ...) clause; its states are added to the first');
        else agent.statesClause = clauseOf(item);
        for (const s of item.items.slice(1)) {
          const state = this.state(s);
          if (state) agent.states.push(state);
        }
      } else if (kw.name === 'behavior') {
        if (agent.behaviorClause) {
          this.syntax(kw.span, 'this agent already has a (:behavior ...) clause; this one is ignored');
          continue;
        }
        agent.behaviorClause = clauseOf(item);
        const [formula, ...extra] = item.items.slice(1);
        if (formula) agent.behavior = this.formula(formula);
        for (const e of extra) this.syntax(headSpan(e), 'the behavior is one formula: combine formulas with (next ...)');
      } else {
        this.unknownKeyword(kw, ['states', 'behavior'], 'in a define');
      }
    }
    return agent;
  }

  private state(form: SExpr): StateDef | null {
    if (form.kind === 'atom') return { name: form.name, nameSpan: form.span, text: '', textSpan: null, flags: [], span: form.span };
    if (form.kind !== 'list' || form.items[0]?.kind !== 'atom') {
      this.syntax(headSpan(form), 'expected a state: (NAME (:text "PROMPT"))');
      return null;
    }
    const name = form.items[0];
    const state: StateDef = { name: name.name, nameSpan: name.span, text: '', textSpan: null, flags: [], span: form.span };
    let sawText = false;
    let sawFlags = false;
    for (const part of form.items.slice(1)) {
      if (part.kind !== 'list' || part.items[0]?.kind !== 'keyword') {
        this.syntax(headSpan(part), 'expected (:text "PROMPT") or (:flags :env-input ...)');
        continue;
      }
      const kw = part.items[0];
      const values = part.items.slice(1);
      if (kw.name === 'text') {
        if (sawText) {
          this.syntax(kw.span, 'this state already has a text; this one is ignored');
          continue;
        }
        sawText = true;
        const [value, ...extra] = values;
        if (value?.kind === 'string') {
          state.text = value.value;
          state.textSpan = value.span;
        } else if (value) {
          this.syntax(
            headSpan(value),
            'the text is a string: (:text "[Thought]")',
            value.kind === 'atom' ? quoteFix(value.name, value.span) : undefined,
          );
        }
        for (const e of extra) this.syntax(headSpan(e), 'a state has one text string');
      } else if (kw.name === 'flags') {
        if (sawFlags) this.syntax(kw.span, 'this state already has (:flags ...); these flags are added');
        sawFlags = true;
        for (const v of values) {
          const flag = this.flag(v);
          if (flag) state.flags.push(flag);
        }
      } else {
        this.unknownKeyword(kw, ['text', 'flags'], 'in a state');
      }
    }
    return state;
  }

  private flag(v: SExpr): Flag | null {
    if (v.kind === 'keyword') return { name: v.name, span: v.span };
    const fixes: Fix[] | undefined =
      v.kind === 'atom'
        ? [{ title: `Change to ':${v.name}'`, preferred: true, edits: [{ span: { start: v.span.start, end: v.span.start }, newText: ':' }] }]
        : undefined;
    this.syntax(headSpan(v), v.kind === 'atom' ? `a flag is a keyword: write ':${v.name}'` : 'expected a flag such as :env-input', fixes);
    return null;
  }

  private formula(form: SExpr): Formula | null {
    if (form.kind === 'atom') return { kind: 'state', name: form.name, span: form.span };
    if (form.kind !== 'list') {
      this.syntax(form.span, 'expected a state name or a formula (next ...), (until ...), (or ...)');
      return null;
    }
    const head = form.items[0];
    if (!head || head.kind !== 'atom') {
      this.syntax(head ? headSpan(head) : { start: form.span.start, end: form.span.start + 1 }, 'a formula starts with next, until or or');
      return null;
    }
    const op = OPERATORS.find(o => o === head.name);
    if (!op) {
      this.syntax(head.span, `unknown operator '${head.name}': use next, until or or`, nearestFix(head.name, head.span, OPERATORS));
      return null;
    }
    const f: Formula = { kind: op, opSpan: head.span, args: [], invalidArgs: [], span: form.span };
    for (const a of form.items.slice(1)) {
      const arg = this.formula(a);
      if (arg) f.args.push(arg);
      else f.invalidArgs.push(a.span);
    }
    return f;
  }
}

function quoteFix(word: string, span: Span): Fix[] {
  return [{ title: `Quote it: "${word}"`, preferred: true, edits: [{ span, newText: JSON.stringify(word) }] }];
}
