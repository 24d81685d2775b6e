// No progress, no more requests. A request whose reply adds nothing to the program (an empty reply, a reply that
// was only a restatement of the text so far, the same text as the request before, the same monitor correction as
// the request before) counts against a small budget; when that many requests in a row made no progress, the run
// ends (reason `no-progress`) with what the last of them did. Any request that makes progress starts the count
// again. `maxRequests` stays the outer bound.
import type { ReplyRepair } from '../model/chatReply';
import { plural } from '../common/counts';

/** Requests in a row without progress after which a run ends. */
export const DEFAULT_NO_PROGRESS_LIMIT = 3;

/** What one request did to the program. */
export interface RequestOutcome {
  /** The request's number in the run. */
  n: number;
  /** The text the model added with this request and the runner kept (after cuts), before anything the runner appends. */
  added: string;
  /** The monitor correction the request ended in (agents). */
  correction?: { offset: number; found: string | null; expected: string[]; inserted: string; removed: string };
  /** The changes made to the reply before it joined the program (chat: a restatement dropped, ...). */
  repairs?: readonly ReplyRepair[];
}

const quote = (s: string, max = 60) => JSON.stringify(s.length > max ? `${s.slice(0, max)}…` : s);

export class ProgressBudget {
  private streak = 0;
  private previous: RequestOutcome | null = null;

  constructor(readonly limit = DEFAULT_NO_PROGRESS_LIMIT) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`noProgressLimit must be a whole number of at least 1, not ${limit}`);
  }

  /** Records a request; the reason the run ends (one line) once `limit` requests in a row made no progress, else null. */
  record(o: RequestOutcome): string | null {
    const why = this.stall(o);
    this.previous = o;
    if (!why) {
      this.streak = 0;
      return null;
    }
    this.streak++;
    if (this.streak < this.limit) return null;
    return `no progress in ${plural(this.streak, 'request')} in a row (the last, request ${o.n}: ${why})`;
  }

  /** Starts over (the run went back to an earlier pause). */
  reset(): void {
    this.streak = 0;
    this.previous = null;
  }

  /** Why the request made no progress, or null when it did. */
  private stall(o: RequestOutcome): string | null {
    const prev = this.previous;
    const c = o.correction;
    if (c && prev?.correction) {
      const p = prev.correction;
      if (c.found === p.found && c.inserted === p.inserted && c.removed === p.removed && c.expected.join('\n') === p.expected.join('\n'))
        return `the same monitor correction as the request before (found ${c.found === null ? 'no state' : quote(c.found)}, expected ${c.expected.join(' or ')})`;
    }
    if (c) return null;
    if (o.added.trim() === '') {
      const echo = o.repairs?.find(r => r.kind === 'echo');
      if (echo) return `its reply only restated the text so far (${quote(echo.removed.trim())}), and that was dropped`;
      return o.added ? 'its reply was only white space' : 'its reply added nothing';
    }
    if (prev && !prev.correction && prev.added === o.added) return `it wrote the same text as the request before (${quote(o.added.trim())})`;
    return null;
  }
}
