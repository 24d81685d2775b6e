// Completion. `.art`: after `[` the tools (first, with their description) then the sub-step names used in the
// file; `#k` references to earlier answers of the same program; at a line start the line that comes next
// (`#k:`, `Qk+1: [`, `Qk: [EOQ]`, `Ans:`). `.agent`: keywords, operators, flags and state names by position.
import {
  CompletionItemKind,
  InsertTextFormat,
  MarkupKind,
  type CompletionItem,
  type CompletionList,
  type CompletionParams,
  type Range,
} from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { normalizeName, type ArtDocument, type Step } from '../core/art';
import type { AgentAnalysis, ArtAnalysis } from './analysis';
import { KNOWN_FLAGS, readSExprs, type AgentDef, type SExpr, type SList } from './agentCore';
import { answersOf, codeBlock, firstLine, isEoqName, programIndexBefore, stepOfAnswer } from './artQuery';
import { contains } from './convert';
import { stateMarkdown, toolMarkdown } from './describe';
import { isArt, target, type ServerContext } from './context';

export const COMPLETION_TRIGGERS = ['[', '#', '(', ':'];

export function completion(ctx: ServerContext, params: CompletionParams): CompletionList | null {
  const t = target(ctx, params.textDocument.uri);
  if (!t) return null;
  const offset = t.document.offsetAt(params.position);
  const items = isArt(t) ? artCompletion(ctx, t.document, t.analysis, offset) : agentCompletion(ctx, t.document, t.analysis as AgentAnalysis, offset);
  return items ? { isIncomplete: false, items } : null;
}

// ---------------------------------------------------------------------------------------------------- .art

const LINE_START_WORD = /^([ \t]*)([A-Za-z#]*\d*)$/;

function lineBefore(document: TextDocument, offset: number): { lineStart: number; prefix: string } {
  const pos = document.positionAt(offset);
  const lineStart = document.offsetAt({ line: pos.line, character: 0 });
  return { lineStart, prefix: document.getText().slice(lineStart, offset) };
}

/** The query whose `[...]` holds the cursor (after `[`, up to its `]` or, unclosed, the end of the line), from the syntax tree. */
function stepNameAt(doc: ArtDocument, offset: number): Step | null {
  const index = programIndexBefore(doc, offset);
  if (index < 0) return null;
  for (const s of doc.programs[index].steps) {
    const b = s.bracketSpan;
    if (b && offset > b.start && (s.unclosedBracket ? offset <= b.end : offset < b.end)) return s;
  }
  return null;
}

function artCompletion(ctx: ServerContext, document: TextDocument, analysis: ArtAnalysis, offset: number): CompletionItem[] | null {
  const { lineStart, prefix } = lineBefore(document, offset);

  const step = stepNameAt(analysis.doc, offset);
  if (step) {
    const b = step.bracketSpan!;
    // Replace the whole name (`[code ex|ecute]`), and with a closed bracket its `]` too, so the cursor lands after it.
    const to = step.unclosedBracket ? offset : b.end;
    // The name and its `]`, no space after it: the person types the space before the instruction (one given here was
    // doubled by it).
    return stepNameItems(ctx, analysis.doc, step, { start: document.positionAt(b.start + 1), end: document.positionAt(to) }, ']');
  }

  const ref = /#(\d*)$/.exec(prefix);
  if (ref && prefix.slice(0, ref.index).trim() !== '') {
    return referenceItems(ctx, analysis.doc, offset, { start: document.positionAt(offset - ref[0].length), end: document.positionAt(offset) });
  }

  const lineWord = LINE_START_WORD.exec(prefix);
  if (lineWord) {
    const range = { start: document.positionAt(lineStart + lineWord[1].length), end: document.positionAt(offset) };
    return nextLineItems(ctx, analysis.doc, offset, range);
  }
  return null;
}

function stepNameItems(ctx: ServerContext, doc: ArtDocument, editing: Step, range: Range, close: string): CompletionItem[] {
  const catalog = ctx.tools();
  const items: CompletionItem[] = [];
  for (const tool of catalog.all()) {
    items.push({
      label: tool.name,
      kind: CompletionItemKind.Function,
      detail: tool.origin === 'user' ? 'workspace tool' : 'tool',
      documentation: markup(ctx.client.markdownCompletion, toolMarkdown(tool)),
      sortText: `0 ${tool.name.toLowerCase()}`,
      filterText: tool.name,
      textEdit: { range, newText: tool.name + close },
    });
  }
  // Sub-step names the file already uses (the model answers them), most used first.
  const used = new Map<string, { name: string; count: number }>();
  for (const p of doc.programs) {
    for (const s of p.steps) {
      // Not the name being typed: a half-typed or misspelled name must not be offered as if the file used it.
      if (s === editing || !s.name || s.isEoq || isEoqName(s.name) || catalog.has(s.name)) continue;
      const key = normalizeName(s.name);
      if (!key) continue;
      const u = used.get(key);
      if (u) u.count++;
      else used.set(key, { name: s.name.trim().replace(/\s+/g, ' '), count: 1 });
    }
  }
  const sorted = [...used.values()].sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
  sorted.forEach((u, i) => {
    items.push({
      label: u.name,
      kind: CompletionItemKind.Text,
      detail: `sub-step answered by the model (used ${u.count}×)`,
      sortText: `1 ${String(i).padStart(6, '0')}`,
      filterText: u.name,
      textEdit: { range, newText: u.name + close },
    });
  });
  items.push({
    label: 'EOQ',
    kind: CompletionItemKind.Keyword,
    detail: 'end of queries: `Ans:` follows',
    sortText: '2 EOQ',
    textEdit: { range, newText: 'EOQ' + close },
  });
  return items;
}

function referenceItems(ctx: ServerContext, doc: ArtDocument, offset: number, range: Range): CompletionItem[] {
  const index = programIndexBefore(doc, offset);
  if (index < 0) return [];
  const program = doc.programs[index];
  const items: CompletionItem[] = [];
  const seen = new Set<number>();
  for (const a of answersOf(program).reverse()) {
    // Earlier answers only; not the answer being written.
    if (a.span.start >= offset || contains(a.span, offset) || seen.has(a.number)) continue;
    seen.add(a.number);
    const step = stepOfAnswer(program, a);
    const query = step ? `Q${step.number}: [${step.name ?? ''}] ${firstLine(step.instruction)}` : `#${a.number}`;
    items.push({
      label: `#${a.number}`,
      kind: CompletionItemKind.Reference,
      detail: firstLine(a.text) || '(empty answer)',
      documentation: markup(ctx.client.markdownCompletion, `Answer to \`${query}\`\n\n${codeBlock(a.text)}`),
      sortText: String(a.number).padStart(6, '0'),
      textEdit: { range, newText: `#${a.number}` },
    });
  }
  return items.sort((x, y) => (x.sortText ?? '').localeCompare(y.sortText ?? ''));
}

/** The lines that can come next in the program being written at `offset`. */
function nextLineItems(ctx: ServerContext, doc: ArtDocument, offset: number, range: Range): CompletionItem[] {
  const lines: { label: string; snippet: string; plain: string; detail: string }[] = [];
  const index = programIndexBefore(doc, offset);
  const program = index >= 0 ? doc.programs[index] : null;
  const newProgram = () => {
    lines.push({ label: 'Description:', snippet: 'Description: (${1:Task name}) ${0}', plain: 'Description: ', detail: 'start a new program' });
    lines.push({ label: 'Input:', snippet: 'Input: ${0}', plain: 'Input: ', detail: 'the task input' });
  };
  if (!program || (program.ans && program.ans.marker.start < offset)) newProgram();
  else {
    const steps = program.steps.filter(s => s.marker.start < offset);
    const last = steps[steps.length - 1];
    if (!last) {
      if (!program.input || program.input.marker.start >= offset)
        lines.push({ label: 'Input:', snippet: 'Input: ${0}', plain: 'Input: ', detail: 'the task input' });
      else {
        lines.push({ label: 'Q1:', snippet: 'Q1: [${1}] ${0}', plain: 'Q1: [', detail: 'the first step' });
      }
    } else if (last.isEoq) {
      lines.push({ label: 'Ans:', snippet: 'Ans: ${0}', plain: 'Ans: ', detail: 'the final answer' });
    } else if (!last.answer || last.answer.marker.start >= offset) {
      const k = last.number;
      lines.push({ label: `#${k}:`, snippet: `#${k}: \${0}`, plain: `#${k}: `, detail: `the answer to Q${k}` });
    } else {
      const k = last.number + 1;
      lines.push({ label: `Q${k}:`, snippet: `Q${k}: [\${1}] \${0}`, plain: `Q${k}: [`, detail: `step ${k}` });
      lines.push({ label: `Q${k}: [EOQ]`, snippet: `Q${k}: [EOQ]\nAns: \${0}`, plain: `Q${k}: [EOQ]\nAns: `, detail: 'end the program' });
    }
  }
  return lines.map((l, i) => ({
    label: l.label,
    kind: CompletionItemKind.Snippet,
    detail: l.detail,
    sortText: `0${i}`,
    filterText: l.label,
    insertTextFormat: ctx.client.snippets ? InsertTextFormat.Snippet : InsertTextFormat.PlainText,
    textEdit: { range, newText: ctx.client.snippets ? l.snippet : l.plain },
  }));
}

// ---------------------------------------------------------------------------------------------------- .agent

const ATOM_CHAR = /[^\s()";]/;
const OPERATOR_DOCS: Record<string, string> = {
  next: '`(next a b c)`: a, then b, then c.',
  until: '`(until a b)`: a zero or more times, then b.',
  or: '`(or a b ...)`: either a or b.',
};
const CLAUSE_DOCS: Record<string, string> = {
  states: '`(:states (NAME (:text "PROMPT") (:flags ...)) ...)`: the agent\'s states and their prompt texts.',
  behavior: '`(:behavior (next ...))`: the formula over states the agent must follow.',
  text: '`(:text "PROMPT")`: the prompt text that opens the state in generated text.',
  flags: '`(:flags :env-input ...)`: what is special about the state.',
};
const FLAG_DOCS: Record<string, string> = {
  'env-input': "The environment, not the model, supplies this state's text: the runner pauses here for the tool's output.",
  'tool-name': "The state whose text names the tool to call (e.g. ReACT's `[Action]`).",
  'tool-input': "The state whose text is the tool's input (e.g. ReACT's `[Action Input]`).",
};

/** Lists from the outermost to the innermost that hold `offset` (an unclosed list holds everything after it). */
function listPath(forms: SExpr[], offset: number): SList[] {
  const path: SList[] = [];
  let level = forms;
  for (;;) {
    let next: SList | undefined;
    for (let i = 0; i < level.length && !next; i++) {
      const f = level[i];
      if (f.kind !== 'list' || f.span.start >= offset) continue;
      // Inside a closed list means before its `)`; an unclosed one runs to the next form.
      const last = f.closed ? f.span.end - 1 : (level[i + 1]?.span.start ?? Infinity);
      if (offset <= last) next = f;
    }
    if (!next) return path;
    path.push(next);
    level = next.items;
  }
}

const headName = (l: SList | undefined): string | null => {
  const h = l?.items[0];
  if (!h) return null;
  return h.kind === 'atom' ? h.name : h.kind === 'keyword' ? `:${h.name}` : null;
};

function agentCompletion(ctx: ServerContext, document: TextDocument, analysis: AgentAnalysis, offset: number): CompletionItem[] | null {
  const text = document.getText();
  const file = analysis.file;
  if (file.comments.some(c => c.span.start < offset && offset <= c.span.end)) return null;
  let start = offset;
  while (start > 0 && ATOM_CHAR.test(text.charAt(start - 1))) start--;
  const word = text.slice(start, offset);
  const range: Range = { start: document.positionAt(start), end: document.positionAt(offset) };
  const sexprs = readSExprs(text);
  const path = listPath(sexprs.forms, offset);
  const inner = path[path.length - 1];
  if (inner) {
    // Inside a string: nothing to complete.
    const str = inner.items.find(i => i.kind === 'string' && i.span.start < offset && offset < i.span.end);
    if (str) return null;
  }
  // Typing the head of the innermost list (right after its `(`): complete what may open a form there.
  const typingHead = inner !== undefined && text.slice(inner.span.start + 1, start).trim() === '';
  const context = typingHead ? path.slice(0, -1) : path;
  const heads = context.map(headName);
  const agent = path[0] ? file.agents.find(a => a.span.start === path[0].span.start) : undefined;

  const items: CompletionItem[] = [];
  const kw = (name: string, doc: string, kind: CompletionItemKind = CompletionItemKind.Keyword) =>
    items.push({
      label: name,
      kind,
      documentation: markup(ctx.client.markdownCompletion, doc),
      textEdit: { range, newText: name },
      filterText: name,
    });
  const states = (a: AgentDef | undefined, names?: string[]) => {
    const list = names ?? a?.states.map(s => s.name) ?? [];
    for (const n of new Set(list)) {
      const s = a?.states.find(st => st.name === n);
      items.push({
        label: n,
        kind: CompletionItemKind.EnumMember,
        detail: s ? s.text : 'not yet in :states',
        documentation: s ? markup(ctx.client.markdownCompletion, stateMarkdown(s)) : undefined,
        textEdit: { range, newText: n },
      });
    }
  };

  const innermostHead = heads[heads.length - 1] ?? null;
  const inBehavior = heads.includes(':behavior');
  if (heads.length === 0) {
    if (typingHead || word === '' || 'define'.startsWith(word)) kw('define', 'Define an agent: `(define NAME (:states ...) (:behavior ...))`.');
  } else if (innermostHead === 'define') {
    kw(':states', CLAUSE_DOCS.states);
    kw(':behavior', CLAUSE_DOCS.behavior);
  } else if (innermostHead === ':flags') {
    for (const f of KNOWN_FLAGS) kw(`:${f}`, FLAG_DOCS[f] ?? '', CompletionItemKind.Property);
  } else if (innermostHead === ':states') {
    // A new state: offer the names the behavior uses that :states lacks.
    if (agent) {
      const defined = new Set(agent.states.map(s => s.name));
      const missing = behaviorNames(agent).filter(n => !defined.has(n));
      states(agent, missing);
    }
  } else if (heads.length >= 2 && heads[heads.length - 2] === ':states') {
    kw(':text', CLAUSE_DOCS.text);
    kw(':flags', CLAUSE_DOCS.flags);
  } else if (inBehavior) {
    if (typingHead) for (const op of ['next', 'until', 'or']) kw(op, OPERATOR_DOCS[op], CompletionItemKind.Operator);
    else states(agent);
  } else {
    for (const k of ['states', 'behavior', 'text', 'flags']) kw(`:${k}`, CLAUSE_DOCS[k]);
    for (const op of ['next', 'until', 'or']) kw(op, OPERATOR_DOCS[op], CompletionItemKind.Operator);
    states(agent);
  }
  return items;
}

function behaviorNames(agent: AgentDef): string[] {
  const out: string[] = [];
  const walk = (f: AgentDef['behavior']) => {
    if (!f) return;
    if (f.kind === 'state') out.push(f.name);
    else f.args.forEach(walk);
  };
  walk(agent.behavior);
  return out;
}

function markup(markdown: boolean, value: string) {
  return markdown ? { kind: MarkupKind.Markdown, value } : { kind: MarkupKind.PlainText, value };
}
