// What a run keeps of each request's reply besides its text: the model's reasoning (a reasoning model's
// `reasoning_content`, a `<think>` block the chat client took out) and the repairs made to a chat reply. Neither is
// ever program text or part of a later prompt; both are shown (snapshot, trace, events).
import type { ReplyRepair } from '../model/chatReply';
import type { StepView } from '../runner/types';

/** The reasoning of one request: `at` is where its text starts in the generated text. */
export interface RequestReasoning {
  request: number;
  at: number;
  text: string;
}

export class ReplyLog {
  private readonly reasoning: RequestReasoning[] = [];
  private readonly repairs = new Map<number, ReplyRepair[]>();

  /** Request `n` (its text starting at `at`) streamed reasoning and/or repairs. */
  add(n: number, at: number, reasoning: string | undefined, repairs: readonly ReplyRepair[] | undefined): void {
    if (reasoning) {
      const last = this.reasoning[this.reasoning.length - 1];
      if (last?.request === n) last.text += reasoning;
      else this.reasoning.push({ request: n, at, text: reasoning });
    }
    if (repairs?.length) this.repairs.set(n, [...(this.repairs.get(n) ?? []), ...repairs]);
  }

  reasoningOf(n: number): string | undefined {
    return this.reasoning.find(r => r.request === n)?.text;
  }

  repairsOf(n: number): readonly ReplyRepair[] {
    return this.repairs.get(n) ?? [];
  }

  /** Every request's reasoning so far, oldest first. */
  list(): RequestReasoning[] {
    return this.reasoning.map(r => ({ ...r }));
  }

  /** Back to the run as it was after `requests` requests (a rewind): later requests' records are dropped. */
  restore(requests: number): void {
    for (let i = this.reasoning.length - 1; i >= 0 && this.reasoning[i].request > requests; i--) this.reasoning.pop();
    for (const n of [...this.repairs.keys()]) if (n > requests) this.repairs.delete(n);
  }

  /**
   * Gives each step the reasoning of the requests whose text starts inside it (or, before any step, the first
   * step): what the model thought while it wrote that step. `shift`: where the generated text starts in the
   * steps' spans (the header's length).
   */
  annotate(steps: StepView[], shift: number): StepView[] {
    if (!this.reasoning.length || !steps.length) return steps;
    for (const r of this.reasoning) {
      const at = r.at + shift;
      let step = steps[0];
      for (const s of steps) if (s.span.start <= at) step = s;
      step.reasoning = step.reasoning ? `${step.reasoning}\n${r.text}` : r.text;
    }
    return steps;
  }
}
