// What a replay (a program's, a trace's) keeps of departing from its recording: why it departed, and where its
// requests go then: to the live model (an endpoint, or VS Code's), or nowhere, with a DepartedError that says how to
// go on. departure.ts says when a run departs and rejoins.
import type { CompletionChunk, CompletionRequest, CompletionResult, ModelClient } from '../model/types';
import { DepartedError } from '../engine/types';

/** A model that follows a recording until told the run departs from it (a program's replay, a trace's replay). */
export interface Departing {
  /** Why the run no longer follows the recording, or null while it does. */
  readonly departed: string | null;
  /** The model that writes the rest once the run departed, if any. */
  readonly live: ModelClient | undefined;
  depart(why: string): void;
  rejoin(): void;
}

export class Departure implements Departing {
  private why: string | null = null;

  /** `recording`: what the replay follows, as its error names it ("a replay", "a trace"). */
  constructor(
    readonly live: ModelClient | undefined,
    private readonly recording: string,
  ) {}

  get departed(): string | null {
    return this.why;
  }

  /**
   * The text no longer is what was recorded (`why`: the user set an output, edited an input, skipped a tool): the
   * recording cannot say what the model would write after it, so every later request goes to the live model, or,
   * without one, fails with a DepartedError. The requests before it cost nothing.
   */
  depart(why: string): void {
    this.why ??= why;
  }

  /**
   * The run went back to before the change that made it depart (a step back): the text is the recorded one again,
   * so the recording answers again and the live model is asked nothing.
   */
  rejoin(): void {
    this.why = null;
  }

  /** After a departure, the live model's stream of `req` (a DepartedError without one); null while the run follows the recording. */
  stream(req: CompletionRequest): AsyncGenerator<CompletionChunk, CompletionResult, void> | null {
    if (this.why === null) return null;
    if (this.live) return this.live.stream(req);
    throw new DepartedError(
      `the run departed from its recording (${this.why}), and ${this.recording} cannot say what the model writes after that: set a model (in VS Code the status bar's run mode item: an endpoint or one of VS Code's models; on the command line --base-url and --model) and run again to go on live from there`,
    );
  }
}
