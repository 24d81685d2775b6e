// Diagnostics for `.agent` files: every code of DESIGN.md's `.agent` table, each on the smallest span that shows
// the problem, with fixes computed here (the language server only exposes them).
import { sortDiagnostics, type Diagnostic, type Fix, type Severity } from '../common/diagnostics';
import type { Span } from '../common/text';
import { KNOWN_FLAGS, stateRefs, type AgentDef, type AgentFile, type Formula, type StateDef } from './ast';
import { nearestFix } from './parse';

const SEVERITY = {
  syntax: 'error',
  'missing-states': 'error',
  'missing-behavior': 'error',
  'missing-text': 'error',
  'duplicate-state': 'error',
  'duplicate-text': 'error',
  'unknown-state': 'error',
  'bad-arity': 'error',
  'behavior-not-next': 'error',
  'unknown-keyword': 'error',
  'unused-state': 'warning',
  'unknown-flag': 'warning',
} as const satisfies Record<string, Severity>;

/** A code this checker (or the parser, for its problems) can report: every one is in the table above. */
type AgentCode = keyof typeof SEVERITY;

/** The diagnostic codes of `.agent` files with their severities. */
export const AGENT_DIAGNOSTIC_CODES: Readonly<Record<string, Severity>> = SEVERITY;

export function checkAgentFile(file: AgentFile): Diagnostic[] {
  const out: Diagnostic[] = file.problems.map(p => ({ code: p.code, severity: SEVERITY[p.code], message: p.message, span: p.span, fixes: p.fixes }));
  for (const agent of file.agents) new AgentChecker(file.text, agent, out, file.problems).run();
  for (const d of out) d.message = asSentence(d.message);
  return sortDiagnostics(out);
}

/** Messages read as sentences, as the `.art` ones do: a capital first letter (unless code starts it) and a period. */
function asSentence(message: string): string {
  const m = message.trim();
  const first = /^[a-z]/.test(m) ? m[0].toUpperCase() + m.slice(1) : m;
  return /[.!?]$/.test(first) ? first : `${first}.`;
}

/** A template for a state named `name`: its prompt text is the name in brackets, as in the papers. */
export function stateTemplate(name: string): string {
  return `(${name} (:text ${JSON.stringify(`[${name}]`)}))`;
}

class AgentChecker {
  constructor(
    private readonly text: string,
    private readonly agent: AgentDef,
    private readonly out: Diagnostic[],
    private readonly problems: AgentFile['problems'] = [],
  ) {}

  private report(code: AgentCode, span: Span, message: string, extra: Partial<Diagnostic> = {}): void {
    this.out.push({ code, severity: SEVERITY[code], message, span, ...extra });
  }

  run(): void {
    const a = this.agent;
    const label = a.name ? `agent '${a.name}'` : 'this agent';
    const refs = stateRefs(a.behavior);
    if (!a.statesClause) {
      this.report('missing-states', a.nameSpan, `${label} has no (:states ...)`, { fixes: this.addStatesClause(refs.map(r => r.name)) });
    }
    if (!a.behaviorClause || a.behaviorClause.empty) {
      this.report(
        'missing-behavior',
        a.behaviorClause?.keywordSpan ?? a.nameSpan,
        a.behaviorClause ? `${label} has an empty (:behavior)` : `${label} has no (:behavior ...)`,
        {
          fixes: this.addBehavior(),
        },
      );
    }
    this.states();
    if (a.behavior) {
      this.formula(a.behavior);
      this.topLevel(a.behavior);
      if (a.statesClause) this.unknownStates();
      this.unusedStates(new Set(refs.map(r => r.name)));
    }
  }

  private states(): void {
    const byName = new Map<string, StateDef>();
    const byText = new Map<string, StateDef>();
    for (const s of this.agent.states) {
      const first = byName.get(s.name);
      if (first) {
        this.report('duplicate-state', s.nameSpan, `state '${s.name}' is defined twice in this agent`, {
          related: [{ span: first.nameSpan, message: `first definition of '${s.name}'` }],
        });
      } else byName.set(s.name, s);

      if (!s.textSpan && this.hasUnknownKeyword(s.span)) {
        // A misspelt `(:txt "...")` is one problem, reported as unknown-keyword with its fix, not also as missing-text.
      } else if (!s.textSpan) {
        const at = s.nameSpan.end;
        this.report('missing-text', s.nameSpan, `state '${s.name}' has no (:text "...")`, {
          fixes:
            s.span === s.nameSpan
              ? [{ title: 'Add a prompt text', preferred: true, edits: [{ span: s.span, newText: stateTemplate(s.name) }] }]
              : [
                  {
                    title: 'Add a prompt text',
                    preferred: true,
                    edits: [{ span: { start: at, end: at }, newText: ` (:text ${JSON.stringify(`[${s.name}]`)})` }],
                  },
                ],
        });
      } else if (s.text === '') {
        this.report('missing-text', s.textSpan, `state '${s.name}' has an empty text: the monitor could never see it`);
      } else {
        const other = byText.get(s.text);
        if (other) {
          this.report(
            'duplicate-text',
            s.textSpan,
            `states '${other.name}' and '${s.name}' have the same text ${JSON.stringify(s.text)}: the monitor cannot tell them apart`,
            {
              related: [{ span: other.textSpan!, message: `the text of '${other.name}'` }],
            },
          );
        } else byText.set(s.text, s);
      }

      for (const f of s.flags) {
        if ((KNOWN_FLAGS as readonly string[]).includes(f.name)) continue;
        this.report('unknown-flag', f.span, `unknown flag ':${f.name}': known flags are ${KNOWN_FLAGS.map(k => `:${k}`).join(', ')}`, {
          fixes: nearestFix(f.name, f.span, KNOWN_FLAGS, ':'),
        });
      }
    }
  }

  private hasUnknownKeyword(span: Span): boolean {
    return this.problems.some(p => p.code === 'unknown-keyword' && p.span.start >= span.start && p.span.end <= span.end);
  }

  private formula(f: Formula): void {
    if (f.kind === 'state') return;
    const n = f.args.length + f.invalidArgs.length;
    if (f.kind === 'until' && n !== 2)
      this.report('bad-arity', f.opSpan, `\`until\` takes exactly 2 formulas (a zero or more times, then b); it has ${n}`);
    if (f.kind === 'next' && n === 0) this.report('bad-arity', f.opSpan, '`next` needs at least one formula');
    if (f.kind === 'or' && n < 2) this.report('bad-arity', f.opSpan, `\`or\` needs at least 2 formulas; it has ${n}`);
    for (const a of f.args) this.formula(a);
  }

  private topLevel(f: Formula): void {
    if (f.kind === 'next') return;
    const span = f.kind === 'state' ? f.span : f.opSpan;
    const what = f.kind === 'state' ? `the state '${f.name}'` : `an '${f.kind}' formula`;
    this.report('behavior-not-next', span, `the behavior must be a (next ...) formula; it is ${what}`, {
      fixes: [
        {
          title: 'Wrap it in (next ...)',
          preferred: true,
          edits: [{ span: f.span, newText: `(next ${this.text.slice(f.span.start, f.span.end)})` }],
        },
      ],
    });
  }

  private unknownStates(): void {
    const defined = this.agent.states.map(s => s.name);
    for (const ref of stateRefs(this.agent.behavior)) {
      if (defined.includes(ref.name)) continue;
      const fixes: Fix[] = [];
      const rename = nearestFix(ref.name, ref.span, defined);
      if (rename) fixes.push(...rename);
      const add = this.addState(ref.name);
      if (add) fixes.push({ ...add, preferred: !rename });
      this.report('unknown-state', ref.span, `the behavior names '${ref.name}', which is not in :states`, { fixes });
    }
  }

  private unusedStates(used: Set<string>): void {
    const states = this.agent.states;
    states.forEach((s, i) => {
      if (used.has(s.name)) return;
      // Remove the state with the blank before it, back to the end of whatever precedes it.
      const from = i > 0 ? states[i - 1].span.end : (this.agent.statesClause?.keywordSpan.end ?? s.span.start);
      const fixes: Fix[] =
        from <= s.span.start ? [{ title: `Remove the state '${s.name}'`, edits: [{ span: { start: from, end: s.span.end }, newText: '' }] }] : [];
      this.report('unused-state', s.nameSpan, `state '${s.name}' is never used by the behavior`, { fixes });
    });
  }

  /** Insert a state after the last one, on its own line at the same indentation. */
  private addState(name: string): Fix | null {
    const clause = this.agent.statesClause;
    if (!clause) return null;
    const last = this.agent.states[this.agent.states.length - 1];
    let at: number;
    let newText: string;
    if (last) {
      at = last.span.end;
      newText = `\n${this.indentOf(last.span.start)}${stateTemplate(name)}`;
    } else {
      at = clause.closed ? clause.span.end - 1 : clause.span.end;
      newText = ` ${stateTemplate(name)}`;
    }
    return { title: `Add the missing state '${name}' to :states`, edits: [{ span: { start: at, end: at }, newText }] };
  }

  private addStatesClause(names: string[]): Fix[] | undefined {
    const unique = [...new Set(names)];
    if (!unique.length || !this.agent.name) return undefined;
    const at = this.agent.nameSpan.end;
    const body = unique.map(n => `\n    ${stateTemplate(n)}`).join('');
    return [
      {
        title: 'Add (:states ...) for the states the behavior names',
        preferred: true,
        edits: [{ span: { start: at, end: at }, newText: `\n  (:states${body})` }],
      },
    ];
  }

  /** A behavior that runs the states in the order they are defined: a starting point to edit. */
  private addBehavior(): Fix[] | undefined {
    const names = [...new Set(this.agent.states.map(s => s.name))];
    if (!names.length) return undefined;
    const formula = `(next ${names.join(' ')})`;
    const clause = this.agent.behaviorClause;
    if (clause) {
      const at = clause.keywordSpan.end;
      return [{ title: 'Run the states in order', edits: [{ span: { start: at, end: at }, newText: `\n    ${formula}` }] }];
    }
    const after = this.agent.statesClause ?? { span: this.agent.nameSpan };
    const at = after.span.end;
    return [
      {
        title: 'Add a behavior that runs the states in order',
        edits: [{ span: { start: at, end: at }, newText: `\n  (:behavior\n    ${formula})` }],
      },
    ];
  }

  /** The white space that starts the line holding `offset` (spaces up to the offset when code precedes it). */
  private indentOf(offset: number): string {
    let start = offset;
    while (start > 0 && this.text[start - 1] !== '\n' && this.text[start - 1] !== '\r') start--;
    const before = this.text.slice(start, offset);
    return /^[ \t]*$/.test(before) ? before : ' '.repeat(before.length);
  }
}
