// ART programs: a query `Qi: [name] instruction` is complete when its answer line `#i:` starts; when `name` is a
// tool, that is a tool call. With stop sequences the request ends at `\n#` (before the answer marker) and the
// runner writes `#i:` itself; without them the stream is cut at the line break before `#`.
import { isEoqName } from '../art/ast';
import { STREAM_STOPS } from '../art/lines';
import { parseArt } from '../art/parse';
import { ArtScanner, type ArtScan, type ScannedStep } from './artScan';
import { artStepConstraint, type Constraint } from './constraints';
import type { Boundary, DetectedCall, Detection, Protocol, StreamEndAction } from './protocol';
import type { PromptDemonstration } from './promptReport';
import type { StepView, ToolLookup } from './types';

/** Stop sequences: the answer marker and the starts of another program (see STREAM_STOPS). */
export const ART_STOPS = STREAM_STOPS;

/** Tools whose output the model goes on writing in the same answer (the ART reference appends search results). */
const OUTPUT_CONTINUED = new Set(['search']);

export class ArtProtocol implements Protocol {
  readonly kind = 'art' as const;
  readonly traceConfig = {};
  private readonly scanner = new ArtScanner('Q1:');
  private cache: { text: string; scan: ArtScan } | null = null;
  /** The new task's input, answer `#0` for tools that read the task (the ART reference's convention). */
  private readonly taskInput: string | undefined;

  constructor(
    readonly prompt: string,
    /** The new program's own lines in the prompt, ending in `Q1:`. */
    readonly header: string,
    private readonly tools: ToolLookup,
    /** The demonstrations in the prompt and why each was chosen (written to the trace's `run` record). */
    readonly demonstrations?: PromptDemonstration[],
  ) {
    this.taskInput = parseArt(header).programs.at(-1)?.input?.text;
  }

  stops(): string[] {
    return [...ART_STOPS];
  }

  isTool(name: string | null): boolean {
    if (!name) return false;
    if (isEoqName(name)) return false;
    return this.tools.get(name) !== undefined;
  }

  /**
   * At the start of a step (after the header's `Q1:`, or after a tool's output line), the step up to its call;
   * none inside an answer. `stepNames` restricts the names (the tool library and the library's sub-steps).
   */
  constraint(written: string): Constraint | null {
    const scan = this.scan(written);
    if (scan.ans || scan.endAt !== null) return null;
    if (written.trim() === '') return artStepConstraint(1, true, this.stepNames);
    const last = scan.steps[scan.steps.length - 1];
    if (!last || scan.last !== 'answer' || !written.endsWith('\n')) return null;
    return artStepConstraint(last.number + 1, false, this.stepNames);
  }

  /** Step names a constraint allows; any name when unset. */
  stepNames: string[] | undefined;

  detect(written: string): Detection[] {
    const scan = this.scan(written);
    const out: Detection[] = [];
    scan.steps.forEach((s, i) => {
      if (s.answerBreak !== null) out.push(this.boundary(scan, i, s.answerBreak));
    });
    if (scan.endAt !== null) out.push({ type: 'end', key: 'end', cut: scan.endAt });
    else if (scan.ans?.lineComplete) out.push({ type: 'end', key: 'end', cut: scan.ans.span.end });
    return out;
  }

  atStreamEnd(written: string, finishReason: string | undefined, stopsSent: boolean): StreamEndAction {
    const scan = this.scan(written);
    if (scan.endAt !== null) return { type: 'end', key: 'end', cut: scan.endAt };
    if (scan.ans) return { type: 'end', key: 'end', cut: written.length };
    if (finishReason === 'length') return { type: 'continue', append: '' };
    if (stopsSent && finishReason === 'stop') {
      // The endpoint stopped at `\n#`: right after a query, its answer is due; inside an answer, a line that
      // starts with `#` (a Python comment) was cut and is given back.
      const last = scan.steps[scan.steps.length - 1];
      if (scan.last === 'query' && last && !last.isEoq) return this.boundary(scan, scan.steps.length - 1, written.length);
      if (scan.last === 'answer') return { type: 'continue', append: '\n#' };
    }
    return { type: 'incomplete', message: scan.steps.length ? 'the model stopped before writing `Ans:`' : 'the model wrote no step' };
  }

  resumeAfter(_written: string, b: Boundary): string {
    return `\n#${b.step}:`;
  }

  appendOutput(_written: string, call: DetectedCall, output: string | null): string {
    const marker = `\n#${call.step}:`;
    if (output === null) return marker;
    const text = output.replace(/\s+$/, '');
    const value = text === '' ? '' : text.includes('\n') ? `\n${text}` : ` ${text}`;
    return marker + value + (OUTPUT_CONTINUED.has(call.tool.trim().toLowerCase()) ? '' : '\n');
  }

  steps(written: string): StepView[] {
    const scan = this.scan(written);
    const shift = this.header.length;
    return scan.steps.map((s, i) => ({
      index: i + 1,
      number: s.number,
      label: `Q${s.number}`,
      name: s.name,
      text: s.instruction.trim(),
      answer: s.answer ?? undefined,
      tool: this.isTool(s.name),
      // The first query's marker is the header's `Q1:`.
      span: { start: i === 0 ? shift - 3 : s.querySpan.start + shift, end: (s.answerSpan?.end ?? s.querySpan.end) + shift },
    }));
  }

  answer(written: string): string | null {
    return this.scan(written).ans?.text ?? null;
  }

  private boundary(scan: ArtScan, i: number, cut: number): Boundary {
    const s = scan.steps[i];
    const b: Boundary = { type: 'boundary', key: `q${i}`, cut, step: s.number, label: `Q${s.number}` };
    if (this.isTool(s.name)) b.call = this.call(scan.steps, i);
    return b;
  }

  private call(steps: ScannedStep[], i: number): DetectedCall {
    const s = steps[i];
    const answers = new Map<number, string>();
    if (this.taskInput !== undefined) answers.set(0, this.taskInput);
    for (const p of steps.slice(0, i)) if (p.answer !== null) answers.set(p.number, p.answer);
    const prev = steps[i - 1];
    return {
      tool: s.name!,
      input: s.instruction.trim(),
      inputSpan: s.instructionSpan,
      previousAnswer: prev?.answer ?? undefined,
      answers,
      step: s.number,
    };
  }

  private scan(written: string): ArtScan {
    if (this.cache?.text !== written) this.cache = { text: written, scan: this.scanner.scan(written) };
    return this.cache.scan;
  }
}
