// What a run keeps of each request's reply besides its text: the model's reasoning (a reasoning model's
// `reasoning_content`, a `<think>` block the chat client took out) and the repairs made to a chat reply. Neither is
// ever program text or part of a later prompt; both are shown (snapshot, trace, events).
// A checkpoint keeps a copy (`save`), so going back to a pause, or across to another line, restores what that pause had.
import type { ReplyRepair } from '../model/chatReply';
import type { RequestReasoning } from './types';
import type { StepView } from '../protocols/types';

/** A ReplyLog as a checkpoint keeps it. */
export interface SavedReplies {
  reasoning: RequestReasoning[];
  repairs: [number, ReplyRepair[]][];
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

  /** A copy of the log as it stands (for a checkpoint). */
  save(): SavedReplies {
    return { reasoning: this.list(), repairs: [...this.repairs].map(([n, list]) => [n, [...list]]) };
  }

  /** Back to the log as it was when `saved` was taken (a rewind): in place. */
  restore(saved: SavedReplies): void {
    this.reasoning.splice(0, this.reasoning.length, ...saved.reasoning.map(r => ({ ...r })));
    this.repairs.clear();
    for (const [n, list] of saved.repairs) this.repairs.set(n, [...list]);
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
