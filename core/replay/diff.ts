// Comparing two runs: their steps aligned (by step number for ART programs and triggers, by state for agents, the
// longest common subsequence of state names, so a state one run has and the other not is a gap, not a shift), with
// the differences in steps, tool inputs and outputs, and answers. Rendered as two documents that line up slot for
// slot (VS Code's diff editor shows them side by side) and as a terminal report (`art diff`).
import { normalizeName } from '../art/ast';
import type { LooseRecord } from '../trace/history';
import { protocolFromTrace } from './traceReplay';
import type { RunKind, ToolCall } from '../trace/vocabulary';
import type { TraceRecord } from '../trace/schema';

export interface RunStep {
  /** The key steps are aligned by: `Q3`, a state name, `#2`. */
  key: string;
  /** `Q3 [code execute]`, `Thought`. */
  label: string;
  /** The step's text: ART's instruction, the state's text. */
  text: string;
  /** ART: the `#k:` answer. */
  answer?: string;
  call?: Pick<ToolCall, 'tool' | 'input' | 'output' | 'error' | 'override' | 'skipped' | 'fallback'>;
}

export interface RunView {
  kind: RunKind | 'unknown';
  model: string;
  status: string;
  answer: string | null;
  tokens: number;
  steps: RunStep[];
}

/** The text the run generated (after the header): from its `end` record, else rebuilt from its completions and calls. */
function generated(records: readonly LooseRecord[], header: string): string {
  const end = [...records].reverse().find(r => r.t === 'end');
  if (end && typeof end.text === 'string') return end.text.startsWith(header) ? end.text.slice(header.length) : end.text;
  let text = '';
  for (const r of records) {
    if (r.t === 'completion' && typeof r.text === 'string') text += typeof r.cut === 'number' ? r.text.slice(0, r.cut) : r.text;
    else if (r.t === 'tool') text += (r.call as ToolCall).appended ?? '';
  }
  return text;
}

/** A run's steps as the diff compares them, read from its trace records (unknown kinds are ignored). */
export function runView(trace: readonly TraceRecord[] | readonly LooseRecord[]): RunView {
  const records = trace as readonly LooseRecord[];
  const run = records.find(r => r.t === 'run');
  const end = [...records].reverse().find(r => r.t === 'end');
  const usage = (end?.usage ?? {}) as { promptTokens?: number; completionTokens?: number };
  const calls = new Map<number, ToolCall>();
  for (const r of records) if (r.t === 'tool' && r.call && typeof r.call === 'object') calls.set((r.call as ToolCall).id, r.call as ToolCall);
  const view: RunView = {
    kind: (run?.kind as RunKind | undefined) ?? 'unknown',
    model: typeof run?.model === 'string' ? run.model : 'unknown',
    status: typeof end?.reason === 'string' ? end.reason : 'unfinished',
    answer: typeof end?.answer === 'string' ? end.answer : null,
    tokens: (usage.promptTokens ?? 0) + (usage.completionTokens ?? 0),
    steps: [],
  };
  if (!run) return view;
  const noTools = { get: () => undefined };
  const protocol = protocolFromTrace(records as readonly LooseRecord[] as unknown as TraceRecord[], noTools);
  const byStep = [...calls.values()];
  for (const s of protocol.steps(generated(records, protocol.header))) {
    const call =
      s.callId !== undefined
        ? calls.get(s.callId)
        : byStep.find(c => c.step === s.number && (!s.name || normalizeName(c.tool) === normalizeName(s.name)));
    const key = view.kind === 'art' ? `Q${s.number}` : view.kind === 'agent' ? s.label : `#${s.index}`;
    view.steps.push({
      key,
      label: view.kind === 'art' && s.name ? `${s.label} [${s.name}]` : s.label,
      text: s.text.trim(),
      ...(s.answer !== undefined ? { answer: s.answer.trim() } : {}),
      ...(call
        ? {
            call: {
              tool: call.tool,
              input: call.input,
              output: call.output,
              error: call.error,
              override: call.override,
              skipped: call.skipped,
              fallback: call.fallback,
            },
          }
        : {}),
    });
  }
  return view;
}

export interface AlignedSlot {
  key: string;
  a?: RunStep;
  b?: RunStep;
  /** Both runs have the step and it is the same (text, answer, call). */
  same: boolean;
}

const stepText = (s: RunStep): string => JSON.stringify([s.label, s.text, s.answer ?? null, s.call ?? null]);

/** Longest common subsequence of two key lists: pairs of indexes. */
function lcs(a: string[], b: string[]): [number, number][] {
  const m = a.length;
  const n = b.length;
  const len: number[][] = Array.from({ length: m + 1 }, () => new Array<number>(n + 1).fill(0));
  for (let i = m - 1; i >= 0; i--)
    for (let j = n - 1; j >= 0; j--) len[i][j] = a[i] === b[j] ? len[i + 1][j + 1] + 1 : Math.max(len[i + 1][j], len[i][j + 1]);
  const pairs: [number, number][] = [];
  for (let i = 0, j = 0; i < m && j < n;) {
    if (a[i] === b[j]) pairs.push([i++, j++]);
    else if (len[i + 1][j] >= len[i][j + 1]) i++;
    else j++;
  }
  return pairs;
}

/** The two runs' steps side by side: by key in step order (programs), by LCS of the state sequence (agents). */
export function alignRuns(a: RunView, b: RunView): AlignedSlot[] {
  const slot = (x?: RunStep, y?: RunStep): AlignedSlot => ({ key: (x ?? y)!.key, a: x, b: y, same: !!x && !!y && stepText(x) === stepText(y) });
  if (a.kind === 'agent' || b.kind === 'agent') {
    const out: AlignedSlot[] = [];
    let i = 0;
    let j = 0;
    for (const [pi, pj] of [
      ...lcs(
        a.steps.map(s => s.key),
        b.steps.map(s => s.key),
      ),
      [a.steps.length, b.steps.length] as [number, number],
    ]) {
      while (i < pi) out.push(slot(a.steps[i++], undefined));
      while (j < pj) out.push(slot(undefined, b.steps[j++]));
      if (pi < a.steps.length && pj < b.steps.length) out.push(slot(a.steps[i++], b.steps[j++]));
    }
    return out;
  }
  // Programs: the same step number is the same step; steps in the order they first appear.
  const keys: string[] = [];
  for (const s of [...a.steps, ...b.steps]) if (!keys.includes(s.key)) keys.push(s.key);
  const num = (k: string) => Number(k.replace(/^\D+/, ''));
  keys.sort((x, y) => num(x) - num(y));
  return keys.map(k =>
    slot(
      a.steps.find(s => s.key === k),
      b.steps.find(s => s.key === k),
    ),
  );
}

function block(title: string, text: string | undefined): string[] {
  if (text === undefined) return [];
  const lines = text.split(/\r?\n/);
  return [`${title}:`, ...lines.map(l => `    ${l}`)];
}

/** One step's lines in a rendered run (the same lines for the same step in both runs). */
function stepLines(s: RunStep | undefined, key: string): string[] {
  if (!s) return [`## ${key}`, '  (not in this run)'];
  const lines = [`## ${s.label}`, ...block('  text', s.text)];
  if (s.call) {
    lines.push(`  tool: ${s.call.tool}`, ...block('  input', s.call.input));
    if (s.call.skipped) lines.push('  skipped: the model wrote the output');
    if (s.call.error !== undefined) lines.push(...block('  error', s.call.error));
    lines.push(...block('  output', s.call.output));
    if (s.call.override !== undefined) lines.push(...block('  override', s.call.override));
  }
  lines.push(...block('  answer', s.answer));
  return lines;
}

/** One run rendered for the diff editor: a header, then the aligned steps of `side`, then the answer. */
export function renderRun(view: RunView, slots: AlignedSlot[], side: 'a' | 'b', title: string): string {
  const lines = [
    `# ${title}`,
    `model: ${view.model}`,
    `status: ${view.status}`,
    `tokens: ${view.tokens}`,
    '',
    ...slots.flatMap(s => [...stepLines(s[side], s.key), '']),
    '# Answer',
    view.answer ?? '(none)',
  ];
  return `${lines.join('\n')}\n`;
}

export interface RunDiff {
  slots: AlignedSlot[];
  /** Slots where the runs differ (one has the step and the other not, or the step differs). */
  differing: number;
  answersDiffer: boolean;
}

export function diffRuns(a: RunView, b: RunView): RunDiff {
  const slots = alignRuns(a, b);
  return { slots, differing: slots.filter(s => !s.same).length, answersDiffer: a.answer !== b.answer };
}

/** The comparison as a terminal shows it: each step same or its differing fields as `-`/`+` lines, then the answers. */
export function diffReport(a: RunView, b: RunView, names: [string, string]): string {
  const d = diffRuns(a, b);
  const out = [
    `--- ${names[0]} (${a.kind}, ${a.status}, ${a.tokens} tokens, answer: ${a.answer ?? '(none)'})`,
    `+++ ${names[1]} (${b.kind}, ${b.status}, ${b.tokens} tokens, answer: ${b.answer ?? '(none)'})`,
  ];
  const field = (name: string, x: string | undefined, y: string | undefined) => {
    if (x === y) return;
    out.push(`  ${name}:`);
    if (x !== undefined) for (const l of x.split('\n')) out.push(`  - ${l}`);
    if (y !== undefined) for (const l of y.split('\n')) out.push(`  + ${l}`);
  };
  for (const s of d.slots) {
    if (s.same) {
      out.push(`${s.a!.label}: same`);
      continue;
    }
    if (!s.a || !s.b) {
      out.push(`${(s.a ?? s.b)!.label}: only in ${s.a ? 'A' : 'B'}`);
      continue;
    }
    out.push(`${s.a.label === s.b.label ? s.a.label : `${s.a.label} / ${s.b.label}`}: differs`);
    field('text', s.a.text, s.b.text);
    field('tool', s.a.call?.tool, s.b.call?.tool);
    field('input', s.a.call?.input, s.b.call?.input);
    field('output', s.a.call?.override ?? s.a.call?.output ?? s.a.call?.error, s.b.call?.override ?? s.b.call?.output ?? s.b.call?.error);
    field('answer', s.a.answer, s.b.answer);
  }
  out.push(d.answersDiffer ? `Answer: differs\n  - ${a.answer ?? '(none)'}\n  + ${b.answer ?? '(none)'}` : `Answer: same (${a.answer ?? '(none)'})`);
  out.push(`${d.differing} of ${d.slots.length} step(s) differ; the answers ${d.answersDiffer ? 'differ' : 'are the same'}.`);
  return out.join('\n');
}
