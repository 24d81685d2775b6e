// MultiTool-CoT (Inaba et al. 2023): an inline trigger `<<Tool>>` anywhere in the generated text calls the tool;
// the text before the trigger on its line is the input (when an earlier trigger sits on the same line, from the
// sentence after it) and the output is written right after the trigger. With
// stop sequences the request ends at `>>` (the trigger's close) and the runner writes `>>` itself; without them the
// stream is cut before `>>`. A trigger that names no tool is left to the model. The recognition below (triggers,
// their input, the output written after them) is also what an ART run uses inside the answers the model writes
// (the run option inlineTriggers, see artProtocol.ts).
import { triggerConstraint, type Constraint } from './constraints';
import type { Boundary, DetectedCall, Detection, RunProtocol, StreamEndAction } from './runProtocol';
import type { StepView, ToolLookup } from './types';

export interface MultiToolRunSpec {
  /** The few-shot prompt and the question, ending where the model starts its chain of thought. */
  prompt: string;
  /** Texts that end the run when the model writes them (e.g. `\nQ:` before another question). Default none. */
  endMarkers?: string[];
  /**
   * The words before the answer, as the prompt's examples state it (`So the answer is`; see answerMarkerOf). The
   * answer is what follows its last occurrence, else the CoT convention's `the answer is`. Default the convention.
   */
  answerMarker?: string;
}

/** The chain-of-thought convention: "... So the answer is 53." */
export const CONVENTIONAL_ANSWER_MARKER = 'the answer is';

/**
 * The words the prompt's examples put before their answer: the longest common start (word by word, case folded) of
 * the last sentence of each example's answer, when there are at least two and it leaves each sentence a word to
 * answer with (`So the answer is 53.`, `So the answer is 89.` → `So the answer is`); else the convention.
 */
export function answerMarkerOf(exampleAnswers: readonly string[]): string {
  const finals = exampleAnswers
    .map(
      a =>
        a
          .trim()
          .split(/(?<=[.!?])\s+(?=\S)/)
          .pop() ?? '',
    )
    .filter(Boolean)
    .map(s => s.split(/\s+/));
  if (finals.length < 2) return CONVENTIONAL_ANSWER_MARKER;
  let n = 0;
  while (finals.every(w => n < w.length - 1 && w[n].toLowerCase() === finals[0][n].toLowerCase())) n++;
  const marker = finals[0].slice(0, n).join(' ').replace(/[:,]$/, '');
  return marker.length >= 3 ? marker : CONVENTIONAL_ANSWER_MARKER;
}

/**
 * The answer a chain of thought states: what follows the last `marker` (case folded; a `:` after it skipped) up to
 * the end of its sentence or line, or, the marker absent, the convention's; null when the text states none.
 */
export function statedAnswer(written: string, marker: string = CONVENTIONAL_ANSWER_MARKER): string | null {
  for (const m of marker.toLowerCase() === CONVENTIONAL_ANSWER_MARKER ? [marker] : [marker, CONVENTIONAL_ANSWER_MARKER]) {
    const at = written.toLowerCase().lastIndexOf(m.toLowerCase());
    if (at < 0) continue;
    const rest = written.slice(at + m.length).replace(/^\s*:?[ \t]*/, '');
    const line = rest.split('\n')[0];
    // The sentence ends at a full stop followed by a space or the end (not the one in 3.5).
    const end = /[.!?](\s|$)/.exec(line);
    const answer = (end ? line.slice(0, end.index) : line).trim();
    if (answer) return answer;
  }
  return null;
}

const TRIGGER = /<<([^<>\n]{1,64})>>/g;
const OPEN_TRIGGER = /<<([^<>\n]{1,64})$/;

/** The end of a trigger: the stop sequence that ends a request there, and what the runner writes itself. */
export const TRIGGER_END = '>>';

/** A trigger `<<name>>` (closed) or `<<name` (open: the text ends there, cut by the stop sequence `>>`). */
export interface Trigger {
  /** Offset of `<<`. */
  at: number;
  name: string;
  closed: boolean;
}

/** The closed triggers in `text` from `from` to `to`, in order (`<<name>>` wholly inside the range). */
export function findTriggers(text: string, from = 0, to = text.length): Trigger[] {
  const out: Trigger[] = [];
  const part = text.slice(from, to);
  for (const m of part.matchAll(TRIGGER)) out.push({ at: from + m.index!, name: m[1], closed: true });
  return out;
}

/** The trigger `text` ends in before its `>>` (`... 3 * 4 <<Calculator`), starting at or after `from`; else null. */
export function openTrigger(text: string, from = 0): Trigger | null {
  const m = OPEN_TRIGGER.exec(text.slice(from));
  return m ? { at: from + m.index, name: m[1], closed: false } : null;
}

/**
 * The boundary of the trigger `t` (the stop point is before its `>>`): a call when its name is a tool. The input is
 * the text before it on its line, from `floor` on (where the line's own text starts, e.g. after `#2:`).
 */
export function triggerBoundary(written: string, t: Trigger, where: { key: string; step: number; floor?: number }, tools: ToolLookup): Boundary {
  const cut = t.at + 2 + t.name.length; // before `>>`
  const b: Boundary = { type: 'boundary', key: where.key, cut, step: where.step, label: `<<${t.name}>>` };
  const tool = t.name.trim();
  if (tools.get(tool)) {
    const input = triggerInput(written, t.at, where.floor);
    b.call = { tool, input: written.slice(input.start, input.end), inputSpan: input, step: where.step };
  }
  return b;
}

/** What the runner writes after a trigger's call: `>> output`, or `>>` alone so the model writes the output. */
export function triggerOutput(output: string | null): string {
  if (output === null) return TRIGGER_END;
  return `${TRIGGER_END} ${output.trim()}`;
}

/**
 * What detect() has found in the text it read last (`length` characters), kept so that a chunk's text is read
 * alone: the triggers (a trigger is at most MAX_TRIGGER characters and holds no line break), the first end marker,
 * the end of that text (enough to find a trigger or a marker that a chunk completes) and its unfinished line.
 */
interface Read {
  length: number;
  triggers: Boundary[];
  end: number | null;
  /** The last MAX_TRIGGER - 1 characters or more (at least the longest end marker's length - 1). */
  tail: string;
  /** The text since the last `\n`, in pieces: joined only when a trigger on it is found. */
  line: string;
}

/** `<<` + 64 characters + `>>`. */
const MAX_TRIGGER = 68;

export class MultiToolProtocol implements RunProtocol {
  readonly kind = 'multitool' as const;
  readonly prompt: string;
  readonly header = '';
  private readonly endMarkers: string[];
  private readonly answerMarker: string;
  readonly traceConfig: Record<string, unknown>;
  private read: Read | null = null;
  /** Characters detect() read so far, for tests of the per-chunk cost. */
  charsRead = 0;

  constructor(
    spec: MultiToolRunSpec,
    private readonly tools: ToolLookup,
  ) {
    this.prompt = spec.prompt;
    this.endMarkers = (spec.endMarkers ?? []).filter(m => m);
    this.answerMarker = spec.answerMarker?.trim() || CONVENTIONAL_ANSWER_MARKER;
    this.traceConfig = { endMarkers: this.endMarkers, answerMarker: this.answerMarker };
  }

  stops(): string[] {
    return [TRIGGER_END, ...this.endMarkers].slice(0, 4);
  }

  /** Text up to the next trigger (or the end); none while a trigger is open. */
  constraint(written: string): Constraint | null {
    return OPEN_TRIGGER.test(written) ? null : triggerConstraint();
  }

  /**
   * The triggers and the end marker. `added`: `written` is the text of the last call followed by `added` (a chunk),
   * and only `added` and the end of the last text are read.
   */
  detect(written: string, added?: string): Detection[] {
    const r = added !== undefined && this.read?.length === written.length - added.length ? this.readMore(this.read, added) : this.readAll(written);
    this.read = r;
    if (r.end !== null) return [...r.triggers.filter(d => d.cut <= r.end!), { type: 'end', key: 'end', cut: r.end }];
    return [...r.triggers];
  }

  private readAll(written: string): Read {
    this.charsRead += written.length;
    const nl = written.lastIndexOf('\n');
    return {
      length: written.length,
      triggers: findTriggers(written).map((t, i) => this.boundary(written, t, i + 1)),
      end: this.endAt(written),
      tail: written.slice(-this.tailLength()),
      line: written.slice(nl + 1),
    };
  }

  /** The text read last (`r`) followed by `added`: the triggers and the marker that end in `added`. */
  private readMore(r: Read, added: string): Read {
    const window = r.tail + added;
    const base = r.length - r.tail.length;
    this.charsRead += window.length;
    const nl = added.lastIndexOf('\n');
    const line = nl < 0 ? r.line + added : added.slice(nl + 1);
    const triggers = [...r.triggers];
    let lineText: string | null = null;
    for (const t of findTriggers(window)) {
      if (t.at + t.name.length + 4 <= r.tail.length) continue; // ended in the text read last: found then
      // The trigger's line, from its start (the input is the text before the trigger on it).
      const lineStart = window.lastIndexOf('\n', t.at);
      let text: string;
      let offset: number;
      if (lineStart >= 0) {
        text = window;
        offset = base;
      } else {
        if (lineText === null) {
          lineText = nl < 0 ? r.line + added : r.line + added.slice(0, nl + 1);
          this.charsRead += lineText.length;
        }
        text = lineText;
        offset = r.length - r.line.length;
      }
      const at = { ...t, at: base + t.at - offset };
      triggers.push(shiftBoundary(this.boundary(text, at, triggers.length + 1, offset), offset));
    }
    let end = r.end;
    if (end === null) {
      for (const m of this.endMarkers) {
        const i = window.indexOf(m);
        if (i >= 0 && (end === null || base + i < end)) end = base + i;
      }
    }
    const tail = window.slice(-this.tailLength());
    return { length: r.length + added.length, triggers, end, tail, line };
  }

  /** How much of the end of the text a reading keeps: a trigger or an end marker that a chunk completes starts in it. */
  private tailLength(): number {
    return Math.max(MAX_TRIGGER - 1, ...this.endMarkers.map(m => m.length - 1));
  }

  atStreamEnd(written: string, finishReason: string | undefined, stopsSent: boolean): StreamEndAction {
    if (finishReason === 'length') return { type: 'continue', append: '' };
    const open = openTrigger(written);
    if (stopsSent && finishReason === 'stop' && open) return this.boundary(written, open, findTriggers(written).length + 1);
    return { type: 'end', key: 'end', cut: written.length };
  }

  resumeAfter(): string {
    return TRIGGER_END;
  }

  appendOutput(_written: string, _call: DetectedCall, output: string | null): string {
    return triggerOutput(output);
  }

  steps(written: string): StepView[] {
    return [...written.matchAll(TRIGGER)].map((m, i) => {
      const after = m.index! + m[0].length;
      const lineEnd = written.indexOf('\n', after);
      const input = triggerInput(written, m.index!);
      return {
        index: i + 1,
        number: i + 1,
        label: `<<${m[1]}>>`,
        name: m[1].trim(),
        text: written.slice(input.start, input.end),
        answer: written.slice(after, lineEnd < 0 ? written.length : lineEnd).trim(),
        tool: this.tools.get(m[1].trim()) !== undefined,
        span: { start: input.start, end: lineEnd < 0 ? written.length : lineEnd },
      };
    });
  }

  /** The answer as the prompt's examples state it (see statedAnswer); null when the text states none. */
  answer(written: string): string | null {
    return statedAnswer(written, this.answerMarker);
  }

  /** The boundary of trigger `t` (the `n`-th) of `written`, which starts at `offset` in the whole text. */
  private boundary(written: string, t: Trigger, n: number, offset = 0): Boundary {
    return triggerBoundary(written, t, { key: `t${offset + t.at}`, step: n }, this.tools);
  }

  private endAt(written: string): number | null {
    let first: number | null = null;
    for (const m of this.endMarkers) {
      const i = written.indexOf(m);
      if (i >= 0 && (first === null || i < first)) first = i;
    }
    return first;
  }
}

/**
 * Where the input of the trigger at `at` lies: the text before it on its line; when an earlier trigger sits on the
 * same line, from the first sentence after that trigger's output. Trimmed.
 */
export function triggerInput(written: string, at: number, floor = 0): { start: number; end: number } {
  let start = Math.max(floor, written.lastIndexOf('\n', at - 1) + 1);
  const prev = written.lastIndexOf('>>', at - 1);
  if (prev >= start) {
    start = prev + 2;
    const sentence = /[.!?;]\s+/g;
    let m: RegExpExecArray | null;
    let from = start;
    sentence.lastIndex = start;
    while ((m = sentence.exec(written)) && m.index < at) from = m.index + m[0].length;
    start = from;
  }
  let end = at;
  while (start < end && /\s/.test(written[start])) start++;
  while (end > start && /\s/.test(written[end - 1])) end--;
  return { start, end };
}

/** A boundary found in a text that starts at `offset`, with its offsets in the whole text. */
export function shiftBoundary(b: Boundary, offset: number): Boundary {
  if (!offset) return b;
  b.cut += offset;
  if (b.call) b.call.inputSpan = { start: b.call.inputSpan.start + offset, end: b.call.inputSpan.end + offset };
  return b;
}
