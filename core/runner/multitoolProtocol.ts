// MultiTool-CoT (Inaba et al. 2023): an inline trigger `<<Tool>>` anywhere in the generated text calls the tool;
// the text before the trigger on its line is the input (when an earlier trigger sits on the same line, from the
// sentence after it) and the output is written right after the trigger. With
// stop sequences the request ends at `>>` (the trigger's close) and the runner writes `>>` itself; without them the
// stream is cut before `>>`. A trigger that names no tool is left to the model.
import { triggerConstraint, type Constraint } from './constraints';
import type { Boundary, DetectedCall, Detection, Protocol, StreamEndAction } from './protocol';
import type { StepView, ToolLookup } from './types';

export interface MultiToolRunSpec {
  /** The few-shot prompt and the question, ending where the model starts its chain of thought. */
  prompt: string;
  /** Texts that end the run when the model writes them (e.g. `\nQ:` before another question). Default none. */
  endMarkers?: string[];
}

const TRIGGER = /<<([^<>\n]{1,64})>>/g;
const OPEN_TRIGGER = /<<([^<>\n]{1,64})$/;

export class MultiToolProtocol implements Protocol {
  readonly kind = 'multitool' as const;
  readonly prompt: string;
  readonly header = '';
  private readonly endMarkers: string[];
  readonly traceConfig: Record<string, unknown>;

  constructor(
    spec: MultiToolRunSpec,
    private readonly tools: ToolLookup,
  ) {
    this.prompt = spec.prompt;
    this.endMarkers = (spec.endMarkers ?? []).filter(m => m);
    this.traceConfig = { endMarkers: this.endMarkers };
  }

  stops(): string[] {
    return ['>>', ...this.endMarkers].slice(0, 4);
  }

  /** Text up to the next trigger (or the end); none while a trigger is open. */
  constraint(written: string): Constraint | null {
    return OPEN_TRIGGER.test(written) ? null : triggerConstraint();
  }

  detect(written: string): Detection[] {
    const out: Detection[] = [];
    let n = 0;
    for (const m of written.matchAll(TRIGGER)) {
      n++;
      out.push(this.boundary(written, m.index!, m[1], n));
    }
    const end = this.endAt(written);
    if (end !== null) return [...out.filter(d => d.cut <= end), { type: 'end', key: 'end', cut: end }];
    return out;
  }

  atStreamEnd(written: string, finishReason: string | undefined, stopsSent: boolean): StreamEndAction {
    if (finishReason === 'length') return { type: 'continue', append: '' };
    const open = OPEN_TRIGGER.exec(written);
    if (stopsSent && finishReason === 'stop' && open) {
      const n = [...written.matchAll(TRIGGER)].length + 1;
      return this.boundary(written, open.index, open[1], n);
    }
    return { type: 'end', key: 'end', cut: written.length };
  }

  resumeAfter(): string {
    return '>>';
  }

  appendOutput(_written: string, _call: DetectedCall, output: string | null): string {
    if (output === null) return '>>';
    return `>> ${output.trim()}`;
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

  answer(written: string): string | null {
    const lines = written
      .split('\n')
      .map(l => l.trim())
      .filter(Boolean);
    return lines.length ? lines[lines.length - 1] : null;
  }

  private boundary(written: string, at: number, name: string, n: number): Boundary {
    const cut = at + 2 + name.length; // before `>>`
    const b: Boundary = { type: 'boundary', key: `t${at}`, cut, step: n, label: `<<${name}>>` };
    const tool = name.trim();
    if (this.tools.get(tool)) {
      const input = triggerInput(written, at);
      b.call = { tool, input: written.slice(input.start, input.end), inputSpan: input, step: n };
    }
    return b;
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
export function triggerInput(written: string, at: number): { start: number; end: number } {
  let start = written.lastIndexOf('\n', at - 1) + 1;
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
