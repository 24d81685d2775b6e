// ART programs: a query `Qi: [name] instruction` is complete when its answer line `#i:` starts; when `name` is a
// tool, that is a tool call. With stop sequences the request ends at `\n#` (before the answer marker) and the
// runner writes `#i:` itself; without them the stream is cut at the line break before `#`.
//
// With inline triggers (the run option inlineTriggers, off by default), a `<<Tool>>` trigger inside the answer of a
// step the model answers (not a tool step) is a call too, recognised and answered as in a MultiTool-CoT prompt
// (multitoolProtocol.ts): the request ends at the trigger's `>>`, the tool runs, `>> output` is written and the
// model goes on with the same answer; when the tool fails, the runner writes `>>` and the model the output.
import { isEoqName } from '../art/ast';
import { STREAM_STOPS } from '../art/lines';
import { parseArt } from '../art/parse';
import { ArtScanner, type ArtScan, type ScannedStep } from './artScan';
import { artContinuationProblem, RequestCheck, type ContinuationProblem } from './artContinuation';
import { artStepConstraint, type Constraint } from './constraints';
import { TRIGGER_END, findTriggers, openTrigger, shiftBoundary, triggerBoundary, triggerOutput, type Trigger } from './multitoolProtocol';
import type { Boundary, DetectedCall, Detection, RunProtocol, StreamEndAction } from './runProtocol';
import type { PromptDemonstration } from '../trace/vocabulary';
import type { StepView, ToolLookup } from './types';

/** Stop sequences: the answer marker and the starts of another program (see STREAM_STOPS). */
export const ART_STOPS = STREAM_STOPS;

/**
 * The stop sequences of a request that continues an answer the model writes, with inline triggers on: the trigger's
 * end joins the answer marker (the endpoint takes at most four, so `\nInput:` is left to the streaming scanner).
 */
export const ART_TRIGGER_STOPS: readonly string[] = [ART_STOPS[0], TRIGGER_END, ...ART_STOPS.slice(1, 3)];

/** Tools whose output the model goes on writing in the same answer (the ART reference appends search results). */
const OUTPUT_CONTINUED = new Set(['search']);

export interface ArtProtocolOptions {
  /** Honour inline `<<Tool>>` triggers inside the answers the model writes (the run option inlineTriggers). */
  inlineTriggers?: boolean;
  /** The demonstrations in the prompt and why each was chosen (written to the trace's `run` record). */
  demonstrations?: PromptDemonstration[];
}

/**
 * What a reading of the scanner (one generation: texts that extend each other) has found that more text cannot
 * change: the boundaries built, the inline triggers on complete lines, what the check of a request found.
 */
interface Found {
  generation: number;
  /** Boundaries of steps, by step index and cut. */
  boundaries: Map<string, Boundary>;
  /** Inline triggers in the answers the model writes: on complete lines, by step index; on the unfinished line. */
  triggers: Map<number, Boundary[]>;
  unfinished: Map<number, Boundary[]>;
  /** The triggers that end before this are in `triggers`. */
  triggersUpTo: number;
  /** Each step's previous answer, by step index (read once). */
  previous: Map<number, string | undefined>;
  check: RequestCheck | null;
}

export class ArtProtocol implements RunProtocol {
  readonly kind = 'art' as const;
  readonly traceConfig: Record<string, unknown>;
  private readonly scanner = new ArtScanner('Q1:');
  private cache: { text: string; scan: ArtScan } | null = null;
  /** The text detect() read last: what a chunk's `added` extends. */
  private detected: string | null = null;
  private found: Found = newFound(-1);
  /** The new task's input, answer `#0` for tools that read the task (the ART reference's convention). */
  private readonly taskInput: string | undefined;
  private readonly inlineTriggers: boolean;
  readonly demonstrations?: PromptDemonstration[];
  /** Whether the latest request had the trigger's end among its stops (set by stops(), read by atStreamEnd). */
  private triggerStopSent = false;
  /**
   * The text at which a request inside an answer stopped with no trigger open: `\n#` (a line starting with `#`)
   * or a `>>` that closes no trigger (`x >> 2`). The endpoint does not say which stop it met, so the next request
   * continues the same text without `>>` among its stops: whatever stops it then is `\n#`.
   */
  private undecided: string | null = null;
  /** The demonstrations have queries without `[name]`. */
  private readonly freeQueries: boolean;

  constructor(
    readonly prompt: string,
    /** The new program's own lines in the prompt, ending in `Q1:`. */
    readonly header: string,
    private readonly tools: ToolLookup,
    opts: ArtProtocolOptions = {},
  ) {
    this.taskInput = parseArt(header).programs.at(-1)?.input?.text;
    // Queries that name no tool or sub-step (`Q5: Which of these is most like the original?`) in the demonstrations:
    // the model may write such queries too (the real ART library has them).
    this.freeQueries = /^Q\d+[ \t]*[:：][ \t]*[^\s[]/m.test(prompt.slice(0, prompt.length - header.length));
    this.inlineTriggers = !!opts.inlineTriggers;
    this.demonstrations = opts.demonstrations;
    this.traceConfig = this.inlineTriggers ? { inlineTriggers: true } : {};
  }

  stops(written: string): string[] {
    this.triggerStopSent = this.inlineTriggers && written !== this.undecided && this.inModelAnswer(this.scan(written));
    return [...(this.triggerStopSent ? ART_TRIGGER_STOPS : ART_STOPS)];
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

  detect(written: string, added?: string): Detection[] {
    const scan = this.scan(written, added);
    this.detected = written;
    const found = this.found;
    const out: Detection[] = [];
    scan.steps.forEach((s, i) => {
      if (s.answerBreak === null) return;
      out.push(this.stepBoundary(scan, i, s.answerBreak));
      if (this.inlineTriggers && this.answeredByModel(s)) out.push(...(found.triggers.get(i) ?? []), ...(found.unfinished.get(i) ?? []));
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
      if (scan.last === 'answer') {
        const i = scan.steps.length - 1;
        // Nothing after a tool's output line: the model wrote no step (no `\n#` was met); ask again as it stands
        // (a model that keeps adding nothing runs out of its no-progress budget).
        if (this.isTool(last.name) && written.endsWith('\n')) return { type: 'continue', append: '' };
        if (this.inlineTriggers && this.answeredByModel(last)) {
          // The request ended at a trigger's `>>`: the trigger is its call (or, naming no tool, the model goes on).
          const open = openTrigger(written, last.answerSpan!.start);
          if (open) return this.trigger(written, scan, i, open, findTriggers(written, last.answerSpan!.start, open.at).length);
          if (this.triggerStopSent) {
            this.undecided = written;
            return { type: 'continue', append: '' };
          }
        }
        this.undecided = null;
        return { type: 'continue', append: '\n#' };
      }
    }
    return { type: 'incomplete', message: scan.steps.length ? 'the model stopped before writing `Ans:`' : 'the model wrote no step' };
  }

  /** See core/protocols/artContinuation.ts. */
  checkContinuation(written: string, from: number, final: boolean): ContinuationProblem | null {
    const scan = this.scan(written);
    const found = this.found;
    if (found.check?.from !== from) {
      // Right after a tool's output line the model must start a step (a request never starts there otherwise).
      const before = scan.steps.filter(s => s.querySpan.start < from).at(-1);
      const afterTool = from > 0 && written[from - 1] === '\n' && !!before?.answerSpan && this.isTool(before.name);
      found.check = new RequestCheck(from, written.lastIndexOf('\n', from - 1) + 1, afterTool);
    }
    const w = this.scanner.window;
    const text = { text: written, window: w.text, base: w.base, lastNewline: this.scanner.lastNewline };
    return artContinuationProblem(text, scan, found.check, final, this.freeQueries);
  }

  resumeAfter(_written: string, b: Boundary): string {
    return b.inline ? TRIGGER_END : `\n#${b.step}:`;
  }

  appendOutput(_written: string, call: DetectedCall, output: string | null): string {
    if (call.inline) return triggerOutput(output);
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

  /** A step whose answer the model writes: not a tool, not `[EOQ]`, its answer started. */
  private answeredByModel(s: ScannedStep | undefined): boolean {
    return !!s && s.answerSpan !== null && !s.isEoq && !this.isTool(s.name);
  }

  /** Whether the text ends inside an answer the model writes (where inline triggers are honoured). */
  private inModelAnswer(scan: ArtScan): boolean {
    return scan.last === 'answer' && scan.endAt === null && this.answeredByModel(scan.steps[scan.steps.length - 1]);
  }

  /** The boundary of trigger `t`, the `j`-th (0-based) in the answer of step `i`; `t` and `written` start at `base`. */
  private trigger(written: string, scan: ArtScan, i: number, t: Trigger, j: number, base = 0): Boundary {
    const s = scan.steps[i];
    const floor = Math.max(0, s.answerSpan!.start - base);
    const b = shiftBoundary(triggerBoundary(written, t, { key: `q${i}t${j}`, step: s.number, floor }, this.tools), base);
    b.inline = true;
    if (b.call) {
      b.call.inline = true;
      b.call.previousAnswer = this.previousAnswer(scan, i);
    }
    return b;
  }

  /** The answer of the step before step `i` (complete: read once). */
  private previousAnswer(scan: ArtScan, i: number): string | undefined {
    const found = this.found;
    if (!found.previous.has(i)) found.previous.set(i, scan.steps[i - 1]?.answer ?? undefined);
    return found.previous.get(i);
  }

  /** The boundary of step `i` at `cut`, built once (the step's query and the answers before it are complete then). */
  private stepBoundary(scan: ArtScan, i: number, cut: number): Boundary {
    const key = `${i}:${cut}`;
    let b = this.found.boundaries.get(key);
    if (!b) this.found.boundaries.set(key, (b = this.boundary(scan, i, cut)));
    return b;
  }

  /**
   * The inline triggers the scanner's last reading brought. Its window starts where a line starts (a trigger never
   * holds a `\n`), so every trigger that ends in it is in it: those that end on lines read for good are kept, once
   * (`triggersUpTo`), and those on the unfinished line are found again at each reading.
   */
  private readTriggers(scan: ArtScan): void {
    const found = this.found;
    const w = this.scanner.window;
    const end = w.base + w.text.length;
    found.unfinished = new Map();
    scan.steps.forEach((s, i) => {
      if (!this.answeredByModel(s)) return;
      const from = Math.max(s.answerSpan!.start, w.base);
      const to = Math.min(s.answerSpan!.end, end);
      if (from >= to) return;
      const kept = found.triggers.get(i) ?? [];
      const unfinished: Boundary[] = [];
      for (const t of findTriggers(w.text, from - w.base, to - w.base)) {
        const ends = w.base + t.at + t.name.length + 4;
        if (ends <= found.triggersUpTo) continue;
        if (ends <= w.done) kept.push(this.trigger(w.text, scan, i, t, kept.length, w.base));
        else unfinished.push(this.trigger(w.text, scan, i, t, kept.length + unfinished.length, w.base));
      }
      if (kept.length) found.triggers.set(i, kept);
      if (unfinished.length) found.unfinished.set(i, unfinished);
    });
    found.triggersUpTo = Math.max(found.triggersUpTo, w.done);
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

  /**
   * The reading of `written`. `added`: `written` is the text detect() read last followed by `added` (a chunk), and
   * only the scanner's window and `added` are read.
   */
  private scan(written: string, added?: string): ArtScan {
    if (this.cache?.text === written) return this.cache.scan;
    const d = this.detected;
    const more = added !== undefined && d !== null && this.cache?.text === d && d.length + added.length === written.length;
    const scan = more ? this.scanner.scanMore(written, added) : this.scanner.scan(written);
    this.cache = { text: written, scan };
    if (this.found.generation !== this.scanner.generation) this.found = newFound(this.scanner.generation);
    if (this.inlineTriggers) this.readTriggers(scan);
    return scan;
  }
}

function newFound(generation: number): Found {
  return { generation, boundaries: new Map(), triggers: new Map(), unfinished: new Map(), triggersUpTo: 0, previous: new Map(), check: null };
}
