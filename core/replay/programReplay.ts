// A model that needs no endpoint: it replays the text a model wrote in a recorded program (everything after the
// prompt's `Q1:`, up to each tool call and on after it), while the tools run again for real. Tool outputs are not
// replayed: the recording's tool answers are slots that the runner fills with fresh outputs, and the replay picks
// up after them. LLM-backed tools (`[generate python code]`, ...) ask the model with a prompt of their own; the
// replay answers such a prompt with the recorded answer of the step whose instruction it contains.
import { foldWhitespace } from '../common/text';
import { openStep, type ArtDocument, type Program } from '../art/ast';
import type { CompiledAgent } from '../agent/compile';
import { StreamMonitor, type MonitorEvent } from '../agent/monitor';
import { ContinuationScript, roughTokens, triggerParts, type ScriptPart } from './script';
import { abortError, sleep } from '../model/retry';
import { StopScanner } from '../model/stops';
import type { CompletionChunk, CompletionRequest, CompletionResult, ModelClient } from '../model/types';
import { streamResult } from '../model/types';
import { Departure } from './liveAfterDeparture';

/** The run left its recording (an override, an edited input, a skipped tool) and there is no model to go on with. */

export interface ReplayOptions {
  /** Tokens per streamed chunk. Default 4. */
  tokensPerChunk?: number;
  /** Delay between chunks, to watch a program grow. Default 0. */
  chunkDelayMs?: number;
  /** Recorded answers of tool steps by instruction, for LLM-backed tools' own prompts. */
  toolAnswers?: { instruction: string; answer: string }[];
  id?: string;
  /** The last marker of a recording that stops without `[EOQ]` and `Ans:` (`#1:`), to say so when the replay reaches it. */
  endsWithoutEoq?: string;
  /**
   * The open step the recording ends at (`Q2:`, see openStep in core/art/ast.ts): once the replay has written it,
   * the run departs and the live model writes from there, in the same request.
   */
  openEnd?: string;
  /**
   * The model that goes on once the run departs from the recording (`depart()`); without it, a departed replay
   * ends the run with a DepartedError that says why.
   */
  live?: ModelClient;
}

export class ReplayModel implements ModelClient {
  readonly id: string;
  readonly honoursStop = true;
  /** Whether the run still follows the recording, and where requests go once it does not (departure.ts). */
  readonly departure: Departure;
  /** The recorded tool answers already given (recordedAnswer). */
  private readonly usedAnswers = new Set<number>();

  constructor(
    readonly script: ContinuationScript,
    private readonly opts: ReplayOptions = {},
  ) {
    this.id = opts.id ?? 'replay';
    this.departure = new Departure(opts.live, 'a replay');
  }

  /**
   * Replays program `index` of `doc`; `isTool` tells which step names are tools (their answers become slots the
   * runner fills).
   */
  static fromArtProgram(doc: ArtDocument, index: number, isTool: (name: string) => boolean, opts: ReplayOptions = {}): ReplayModel {
    const p = doc.programs[index];
    if (!p) throw new Error(`the file has no program ${index} (it has ${doc.programs.length})`);
    const parts = artProgramParts(doc.text, p, isTool);
    const toolAnswers = p.steps
      .filter(s => s.name !== null && isTool(s.name) && s.answer && s.instruction.trim())
      .map(s => ({ instruction: s.instruction.trim(), answer: s.answer!.text }));
    const last = p.steps.at(-1)!;
    const open = openStep(p);
    const endsWithoutEoq = open || p.ans || p.steps.some(s => s.isEoq) ? undefined : last.answer ? `#${last.answer.number}:` : `Q${last.number}:`;
    return new ReplayModel(new ContinuationScript('Q1:', parts), {
      id: `replay:program ${index + 1}`,
      toolAnswers,
      endsWithoutEoq,
      ...(open ? { openEnd: `Q${open.number}:` } : {}),
      ...opts,
    });
  }

  /**
   * Replays an agent transcript (e.g. a ReACT trace): the first line is the question (the run's header), the text
   * of each `:env-input` state is a slot the tools fill again.
   */
  static fromAgentTranscript(agent: CompiledAgent, transcript: string, opts: ReplayOptions = {}): ReplayModel {
    const text = transcript.replace(/\r\n?/g, '\n').replace(/\s+$/, '');
    const nl = text.indexOf('\n');
    if (nl < 0) throw new Error('the transcript has only its first line');
    const monitor = new StreamMonitor(agent);
    const events = [...monitor.feed(text), ...monitor.end()].filter((e): e is Extract<MonitorEvent, { type: 'state' }> => e.type === 'state');
    const parts: ScriptPart[] = [];
    let from = nl + 1;
    events.forEach((e, i) => {
      if (!e.envInput || e.offset < from) return;
      const next = events[i + 1]?.offset ?? text.length;
      const slotEnd = text[next - 1] === '\n' ? next - 1 : next;
      parts.push({ kind: 'model', text: text.slice(from, e.end) });
      parts.push({ kind: 'slot', text: text.slice(e.end, slotEnd), lead: 0 });
      from = slotEnd;
    });
    parts.push({ kind: 'model', text: text.slice(from) });
    return new ReplayModel(
      new ContinuationScript(
        text.slice(0, nl + 1),
        parts.filter(q => q.kind === 'slot' || q.text.length > 0),
      ),
      { id: 'replay:agent transcript', ...opts },
    );
  }

  async *stream(req: CompletionRequest): AsyncGenerator<CompletionChunk, CompletionResult, void> {
    const live = this.departure.stream(req);
    if (live) return yield* live;
    const text = this.continuation(req.prompt);
    const scanner = new StopScanner(req.stop);
    const tokens = roughTokens(text).slice(0, req.maxTokens ?? Infinity);
    const per = this.opts.tokensPerChunk ?? 4;
    let out = '';
    for (let i = 0; i < tokens.length; i += per) {
      if (req.signal?.aborted) throw abortError(req.signal);
      if (this.opts.chunkDelayMs) await sleep(this.opts.chunkDelayMs, req.signal);
      const group = tokens.slice(i, i + per);
      const { release, stopped } = scanner.push(group.join(''));
      if (release) {
        out += release;
        yield { text: release, recorded: true };
      }
      // No usage: a replay makes no request, and counting its recorded text as tokens claimed a count nobody made.
      if (stopped) return { text: out, finishReason: 'stop' };
    }
    const rest = scanner.flush();
    if (rest) {
      out += rest;
      yield { text: rest, recorded: true };
    }
    const cut = tokens.length < roughTokens(text).length;
    if (!cut && this.opts.openEnd && this.atEnd(req.prompt + out)) return yield* this.fromOpenEnd(req, out);
    return { text: out, finishReason: cut ? 'length' : 'stop' };
  }

  /** Whether `written` reaches the end of the recording. */
  private atEnd(written: string): boolean {
    const pos = this.script.locate(written);
    return !!pos && this.script.rest(pos).text === '';
  }

  /**
   * The recording ends at its open step: the run departs, and the live model writes on from `out` in the same request
   * (a DepartedError that says how to set one when there is none).
   */
  private async *fromOpenEnd(req: CompletionRequest, out: string): AsyncGenerator<CompletionChunk, CompletionResult, void> {
    this.departure.depart(`the program ends at ${this.opts.openEnd ?? 'an open step'}, where the model writes`);
    const live = this.departure.stream({ ...req, prompt: req.prompt + out })!;
    const r = yield* live;
    return {
      ...r,
      text: out + r.text,
    };
  }

  recordedAnswer(instruction: string): string | undefined {
    if (this.departure.departed !== null) return undefined;
    const want = foldWhitespace(instruction);
    const all = this.opts.toolAnswers ?? [];
    // Steps with the same instruction answer in order.
    const i = all.findIndex((a, k) => !this.usedAnswers.has(k) && foldWhitespace(a.instruction) === want);
    if (i < 0) return [...all].reverse().find(a => foldWhitespace(a.instruction) === want)?.answer;
    this.usedAnswers.add(i);
    return all[i].answer;
  }

  async complete(req: CompletionRequest): Promise<CompletionResult> {
    return streamResult(this.stream(req));
  }

  /** What the recorded model writes after `prompt`. */
  private continuation(prompt: string): string {
    const pos = this.script.locate(prompt);
    const rest = pos ? this.script.rest(pos).text : undefined;
    if (rest) return rest;
    const ended = this.opts.endsWithoutEoq;
    const last = this.script.parts.at(-1);
    if (ended && (pos || (last?.kind === 'model' && prompt.includes(last.text.replace(/\s+$/, '')))))
      throw new Error(
        `the recording ends at ${ended} with no [EOQ] and no Ans:, so the replay cannot go on: end the program with the next "Qk: [EOQ]" and "Ans: ..." lines, or run it with a model`,
      );
    if (rest !== undefined) return rest;
    // A tool's own prompt: answer with the recorded answer of the step it is about (the longest instruction found;
    // white space folded, and `#k` also tried as LLM tools rewrite it, "the input").
    const fold = foldWhitespace;
    const inPrompt = fold(prompt);
    let best: { instruction: string; answer: string } | undefined;
    for (const a of this.opts.toolAnswers ?? []) {
      const variants = [fold(a.instruction), fold(a.instruction.replace(/#\d+\b/g, 'the input'))];
      if (variants.some(v => v && inPrompt.includes(v)) && (!best || a.instruction.length > best.instruction.length)) best = a;
    }
    if (best) return best.answer;
    throw new Error('the replayed program does not continue this prompt (the text departs from the recording)');
  }
}

/**
 * The recording of an ART program: the text after `Q1:` through `Ans:`, where each tool step's answer is a slot.
 * The call is complete at `\n#` (the lead covers `k:`), so the runner writes `#k:` and the output itself. In the
 * answers the model wrote, the outputs of inline `<<Tool>>` triggers are slots too (see triggerParts).
 */
export function artProgramParts(text: string, p: Program, isTool: (name: string) => boolean): ScriptPart[] {
  const first = p.steps[0];
  if (!first) throw new Error('the program has no steps to replay');
  const end = p.ans ? p.ans.span.end : p.span.end;
  const parts: ScriptPart[] = [];
  let from = first.marker.end;
  for (const s of p.steps) {
    if (!s.answer) continue;
    if (s.name === null || !isTool(s.name)) {
      // An answer the model wrote: the outputs of its inline triggers (a run with inlineTriggers) are slots.
      if (s.isEoq || !s.answer.text.includes('<<')) continue;
      const span = s.answer.textSpan;
      parts.push({ kind: 'model', text: text.slice(from, span.start) });
      parts.push(...triggerParts(text.slice(span.start, span.end)));
      from = span.end;
      continue;
    }
    const marker = s.answer.marker;
    const valueEnd = Math.max(marker.end, s.answer.textSpan.end);
    parts.push({ kind: 'model', text: text.slice(from, marker.end) });
    parts.push({ kind: 'slot', text: text.slice(marker.end, valueEnd), lead: marker.end - marker.start - 1 });
    from = valueEnd;
  }
  parts.push({ kind: 'model', text: text.slice(from, end) });
  return parts.filter(q => q.kind === 'slot' || q.text.length > 0);
}
