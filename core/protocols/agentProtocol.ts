// Agent specs: the decoding monitor (core/agent/monitor.ts) reads every chunk. Reaching an `:env-input` state is a
// tool call: the tool's name is the text of the latest `:tool-name` state and its input the text of the latest
// `:tool-input` state (without those flags: the two states just before the env-input state). The environment then
// writes the env-input state's text (`[Observation] output`). Off-spec text is cut at the violation and the
// longest common prefix of the valid next states' prompt texts is appended, as in Crouse et al. (2023); the runner
// reports each correction as an event.
import type { CompiledAgent } from '../agent/compile';
import { agentConstraint, type Constraint } from '../agent/constrain';
import { StreamMonitor, type MonitorEvent } from '../agent/monitor';
import type { Boundary, DetectedCall, Detection, RunProtocol, StreamEndAction } from './runProtocol';
import type { StepView, ToolLookup } from './types';

type StateEvent = Extract<MonitorEvent, { type: 'state' }>;

export interface AgentRunSpec {
  agent: CompiledAgent;
  /** The question, written after the first state's prompt text (`[Question] ...`). */
  question: string;
  /** Instructions or demonstrations before the run (e.g. a ReACT few-shot prompt). */
  preamble?: string;
}

export class AgentProtocol implements RunProtocol {
  readonly kind = 'agent' as const;
  readonly prompt: string;
  readonly header: string;
  private monitor!: StreamMonitor;
  /** Characters the monitors read so far (all of them, over restarts), for tests of the per-chunk cost. */
  get charsRead(): number {
    return this.monitorsRead + this.monitor.charsRead;
  }
  private monitorsRead = 0;
  private fed = '';
  private events: StateEvent[] = [];
  /** Env-input boundaries built, by event index (for the monitor of the moment: its events do not change). */
  private envBoundaries = new Map<number, Boundary>();
  /** Where the last `\n` of the header and the fed text is (-1: none), and the first one after a final state's event. */
  private lastNewline = -1;
  /** The text fed last, and lastNewline before it. */
  private lastFed = '';
  private newlineBefore = -1;
  private lineAfter: { event: number; at: number } | null = null;
  private violation: Extract<MonitorEvent, { type: 'violation' }> | null = null;
  private readonly flagged: boolean;
  private readonly firstText: string;
  readonly traceConfig: Record<string, unknown>;

  constructor(
    private readonly spec: AgentRunSpec,
    private readonly tools: ToolLookup,
  ) {
    const agent = spec.agent;
    const first = agent.initial.length ? agent.states[agent.positions[agent.initial[0]].state] : undefined;
    if (!first?.text) throw new Error(`agent "${agent.name}" has no first state with a prompt text to put the question in`);
    this.firstText = first.text;
    this.header = `${first.text} ${spec.question.trim()}\n`;
    const pre = spec.preamble?.replace(/\s+$/, '');
    this.prompt = (pre ? `${pre}\n\n` : '') + this.header;
    this.flagged = agent.states.some(s => s.flags.includes('tool-name') || s.flags.includes('tool-input'));
    this.traceConfig = { agent: spec.agent, question: spec.question, preamble: spec.preamble };
    this.sync('');
  }

  stops(): string[] {
    // Stop where the environment takes over, and where the model would start another question.
    const texts = this.spec.agent.states.filter(s => s.envInput && s.text).map(s => s.text);
    return [...new Set([...texts, `\n${this.firstText}`])].slice(0, 4);
  }

  /** `added`: `written` is the text of the last call followed by `added` (a chunk); only `added` is read. */
  detect(written: string, added?: string): Detection[] {
    this.sync(written, added);
    const out: Detection[] = [];
    const h = this.header.length;
    this.events.forEach((ev, i) => {
      if (ev.offset < h) return;
      if (ev.envInput) out.push(this.envBoundaryOf(i, ev.offset - h));
      else out.push({ type: 'boundary', key: `s${i}`, cut: ev.end - h, step: i + 1, label: ev.state, state: ev.state });
    });
    if (this.violation) {
      const v = this.violation.violation;
      if (this.monitor.isFinal || v.expected.length === 0) out.push({ type: 'end', key: 'end', cut: Math.max(0, v.offset - h) });
      else
        out.push({
          type: 'correction',
          key: `v${v.offset}`,
          cut: v.offset - h,
          insert: this.violation.corrected.slice(v.offset),
          found: v.found,
          expected: v.expected,
        });
      return out;
    }
    // A final state with nothing that may follow ends the run at the end of its line.
    const last = this.events[this.events.length - 1];
    if (last && this.monitor.isFinal && this.monitor.expectedNext().length === 0) {
      const nl = this.newlineAfter(this.events.length - 1);
      if (nl >= 0) out.push({ type: 'end', key: 'end', cut: nl - h });
    }
    return out;
  }

  /**
   * The first `\n` at or after the end of event `i` (in the header and the fed text), or -1. Found once; until then
   * only the text fed last (a chunk) is searched when the text before it has none there.
   */
  private newlineAfter(i: number): number {
    const from = this.events[i].end;
    if (this.lineAfter?.event === i) return this.lineAfter.at;
    if (this.lastNewline < from) return -1;
    const fed = this.lastFed;
    const start = this.monitor.text.length - fed.length;
    // No `\n` at or after `from` before the text fed last: the first is in it.
    const at = this.newlineBefore < from ? start + fed.indexOf('\n', Math.max(0, from - start)) : (this.header + this.fed).indexOf('\n', from);
    this.lineAfter = { event: i, at };
    return at;
  }

  atStreamEnd(written: string, finishReason: string | undefined, stopsSent: boolean): StreamEndAction {
    this.sync(written);
    if (this.monitor.isFinal) return { type: 'end', key: 'end', cut: written.length };
    if (finishReason === 'length') return { type: 'continue', append: '' };
    const expected = this.monitor.expectedNext();
    const env = this.spec.agent.states.find(s => s.envInput && expected.includes(s.name));
    // Stopped at an env-input state's prompt text: the environment's turn.
    if (stopsSent && finishReason === 'stop' && env) return this.envBoundary(this.events.length, written.length, env.name);
    // The model ended early: the monitor's correction for an early end appends the valid continuation prefix.
    const insert = this.monitor.expectedPrefix();
    if (!insert) return { type: 'incomplete', message: `the model stopped in state ${this.monitor.current ?? '(none)'}` };
    const sep = written === '' || /\s$/.test(written) ? '' : '\n';
    return { type: 'correction', key: `v${this.header.length + written.length}`, cut: written.length, insert: sep + insert, found: null, expected };
  }

  resumeAfter(): string {
    return '';
  }

  appendOutput(written: string, call: DetectedCall, output: string | null): string {
    const state = this.spec.agent.states.find(s => s.name === call.state);
    const sep = written === '' || written.endsWith('\n') ? '' : '\n';
    const opener = state?.text ?? '';
    if (output === null) return `${sep}${opener}`;
    return `${sep}${opener} ${output.trim()}\n`;
  }

  steps(written: string): StepView[] {
    this.sync(written);
    const full = this.header + written;
    return this.events.map((ev, i) => {
      const next = this.events[i + 1];
      const end = next ? next.offset : this.violation ? this.violation.violation.offset : full.length;
      return {
        index: i + 1,
        number: i + 1,
        label: ev.state,
        name: null,
        text: full.slice(ev.end, end).trim(),
        tool: ev.envInput,
        span: { start: ev.offset, end },
      };
    });
  }

  answer(written: string): string | null {
    this.sync(written);
    if (!this.monitor.isFinal) return null;
    const steps = this.steps(written);
    return steps[steps.length - 1]?.text ?? null;
  }

  agentState(written: string): { current: string | null; expected: string[] } {
    this.sync(written);
    return { current: this.monitor.current, expected: this.monitor.expectedNext() };
  }

  /** From where the monitor stands: the rest of the run up to the next env-input state or the end (none past a violation). */
  constraint(written: string): Constraint | null {
    this.sync(written);
    if (this.violation) return null;
    const m = this.monitor;
    return agentConstraint(this.spec.agent, { positions: m.currentPositions.length ? m.currentPositions : null, tail: m.text.slice(m.safeLength) });
  }

  /**
   * Keeps the monitor in step with the text: feeds what was added, or starts over when text was cut or edited.
   * `added`: `written` is the text of the last call followed by `added` (nothing else is read).
   */
  private sync(written: string, added?: string): void {
    if (this.monitor && added !== undefined && this.fed.length + added.length === written.length) {
      if (added) this.feed(added);
    } else if (this.monitor && written.startsWith(this.fed)) {
      if (written.length > this.fed.length) this.feed(written.slice(this.fed.length));
    } else {
      this.monitorsRead += this.monitor?.charsRead ?? 0;
      this.monitor = new StreamMonitor(this.spec.agent);
      this.events = [];
      this.violation = null;
      this.envBoundaries = new Map();
      this.lastNewline = -1;
      this.lineAfter = null;
      this.feed(this.header + written);
    }
    this.fed = written;
  }

  private feed(text: string): void {
    this.lastFed = text;
    const nl = text.lastIndexOf('\n');
    this.newlineBefore = this.lastNewline;
    if (nl >= 0) this.lastNewline = this.monitor.text.length + nl;
    this.take(this.monitor.feed(text));
  }

  private take(events: MonitorEvent[]): void {
    for (const e of events) {
      if (e.type === 'state') this.events.push(e);
      else this.violation = e;
    }
  }

  /** The boundary of the env-input state entered as event `i`, built once (the states before it do not change). */
  private envBoundaryOf(i: number, cut: number): Boundary {
    let b = this.envBoundaries.get(i);
    if (!b) this.envBoundaries.set(i, (b = this.envBoundary(i, cut)));
    return b;
  }

  /** The env-input state entered as event `i` (or about to be entered when `name` is given). */
  private envBoundary(i: number, cut: number, name?: string): Boundary {
    const state = name ?? this.events[i].state;
    const full = this.header + this.fed;
    const text = (j: number) => full.slice(this.events[j].end, j + 1 < this.events.length ? this.events[j + 1].offset : full.length).trim();
    // The states since the previous env-input state.
    let from = i - 1;
    while (from >= 0 && !this.events[from].envInput) from--;
    const since = Array.from({ length: i - from - 1 }, (_, k) => from + 1 + k);
    const flagOf = (j: number) => this.spec.agent.states.find(s => s.name === this.events[j].state)?.flags ?? [];
    let nameIdx: number | undefined;
    let inputIdx: number | undefined;
    if (this.flagged) {
      nameIdx = [...since].reverse().find(j => flagOf(j).includes('tool-name'));
      inputIdx = [...since].reverse().find(j => flagOf(j).includes('tool-input'));
    } else if (since.length >= 2 && this.tools.get(text(since[since.length - 2]))) {
      nameIdx = since[since.length - 2];
      inputIdx = since[since.length - 1];
    }
    // Without a tool-name state the env-input state itself names the call (e.g. Reflexion's Evaluation): unless a
    // tool of that name exists, it fails and the model or the user supplies the text.
    if (inputIdx === undefined && since.length) inputIdx = since[since.length - 1];
    const h = this.header.length;
    const inputSpan =
      inputIdx === undefined
        ? { start: cut, end: cut }
        : spanOfTrimmed(full, this.events[inputIdx].end, inputIdx + 1 < this.events.length ? this.events[inputIdx + 1].offset : full.length, h);
    const call: DetectedCall = {
      tool: nameIdx === undefined ? state : text(nameIdx),
      input: inputIdx === undefined ? '' : text(inputIdx),
      inputSpan,
      step: i + 1,
      state,
    };
    return { type: 'boundary', key: `s${i}`, cut, step: i + 1, label: state, state, call };
  }
}

/** The span of the trimmed text between `start` and `end` of `full`, shifted by `-shift`. */
function spanOfTrimmed(full: string, start: number, end: number, shift: number): { start: number; end: number } {
  let s = start;
  let e = end;
  while (s < e && /\s/.test(full[s])) s++;
  while (e > s && /\s/.test(full[e - 1])) e--;
  return { start: s - shift, end: e - shift };
}
