// The `art` debug adapter's launch arguments and its custom DAP messages, declared once for the session (which
// may run standalone, with no VS Code) and the VS Code client. Plain data only.
import type { DebugProtocol } from '@vscode/debugprotocol';
import type { Usage } from '../../core/model/types';
import type { FileLanguage } from '../../core/common/language';
import type { RunOptionsInput } from '../../core/launch/options';
import type { PromptReport } from '../../core/prompt/promptReport';
import type { Alternative, EndReason, RunKind, ToolCall } from '../../core/trace/vocabulary';
import type { MonitorCorrection } from '../../core/agent/monitor';

export const DEBUG_TYPE = 'art';

/**
 * The launch arguments are the run options (core/launch/options.ts, where each one is declared and documented), the
 * configuration's `name`, and `modeReason`: why the client chose the mode (VS Code: the status bar's mode, the launch
 * configuration, a program with no recording), which the run's first line says; not a run option.
 */
export type ArtLaunchArguments = DebugProtocol.LaunchRequestArguments & RunOptionsInput & { name?: string; modeReason?: string };

// Custom messages, each declared once as a namespace (as server/protocol.ts declares the LSP ones): its name and
// the shape of its body or arguments. The adapter sends them; the VS Code client and other DAP clients read them.

/** Event: the program text changed; replace everything from `from` (a UTF-16 offset) with `text`. */
export namespace TextEvent {
  export const event = 'art/text' as const;
  export interface Body {
    /** Starts at 1 with each run (a restart begins a new document). */
    run: number;
    /** `art` text is an ART program; agent and trigger runs are transcripts. */
    kind: RunKind;
    from: number;
    text: string;
    /** The whole program's length after the change (a check for the client). */
    length: number;
    /** Self-consistency: which sample's program (1-based, its thread), of how many. */
    sample?: { index: number; of: number };
    /**
     * The URI of the document the client shows this program in, when the adapter was given a document scheme (VS
     * Code: `art-run`): the stack frames of the run name the same URI, and the name is unique among the runs of the
     * extension host (`Debug Elementary Math (run 3).art-run`).
     */
    document?: string;
  }
}

/** Event: the run ended. */
export namespace EndEvent {
  export const event = 'art/end' as const;
  export interface Body {
    run: number;
    reason: EndReason;
    answer: string | null;
    error?: string;
    kind: RunKind;
    language: FileLanguage;
    /** The source file and the program's index in it. */
    program: string;
    unit: number;
    text: string;
    calls: ToolCall[];
    usage: Usage;
    requests: number;
    tracePath?: string;
    /** Self-consistency: which sample ended (1-based, its thread), of how many; sent once every sample has ended. */
    sample?: { index: number; of: number };
  }
}

/** Request: the output the model sees for the paused tool call (before or after the tool runs). */
export namespace SetToolOutputRequest {
  export const command = 'art/setToolOutput' as const;
  export interface Arguments {
    text: string;
    /** Self-consistency: the sample's thread (default: the first paused sample). Also for the other requests here. */
    threadId?: number;
  }
}

/** Request: the paused call's input, before the tool runs (launch with `pauseBeforeTool`). */
export namespace SetToolInputRequest {
  export const command = 'art/setToolInput' as const;
  export type Arguments = SetToolOutputRequest.Arguments;
}

/** Request: do not run the paused tool; the model writes its output (before the tool runs). */
export namespace SkipToolRequest {
  export const command = 'art/skipTool' as const;
}

/**
 * Request: the prompt of the run (of thread `threadId`'s sample in a self-consistency run; default the first), with
 * the demonstrations in it and why each was chosen, and what the model wrote after it so far.
 */
export namespace PromptRequest {
  export const command = 'art/prompt' as const;
  export interface Arguments {
    threadId?: number;
  }
  export type Response = PromptReport;
}

/** Request: where the run stands. */
export namespace StateRequest {
  export const command = 'art/state' as const;
  export interface Response {
    run: number;
    state: 'idle' | 'running' | 'paused' | 'finished';
    kind?: RunKind;
    program?: string;
    text: string;
    call?: ToolCall;
    /** The paused call's phase: before the tool runs (input editable) or after. */
    phase?: 'before' | 'after';
    tracePath?: string;
    /** Agents: the decoding monitor's corrections still in the text (offsets in `text`). */
    corrections?: MonitorCorrection[];
    /** While paused: why (the runner's reason and description) and the step paused at (ART's k of `Qk`, its label). */
    pause?: { reason: string; description: string; step?: number; label?: string };
    /** While paused: whether there is an earlier pause (or the run's start) to step back to. */
    canStepBack?: boolean;
    /** While paused: the text as the run goes on from here (the paused call's output, or its override, appended). */
    textOnResume?: string;
  }
}

/**
 * Request (while paused): `k` continuations of the next step, best first: ranked by average negative
 * log-likelihood where the endpoint returns logprobs (`nll`), else by vote (`nll` null). The names are the issue's,
 * without the `art/` prefix, so any DAP client can send them.
 */
export namespace AlternativesRequest {
  export const command = 'alternatives' as const;
  export interface Arguments {
    k: number;
    threadId?: number;
  }
  export interface Response {
    alternatives: Alternative[];
  }
}

/** Request (while paused, after `alternatives`): continue with alternative `index`; the others stay in the trace as branches. */
export namespace ChooseAlternativeRequest {
  export const command = 'chooseAlternative' as const;
  export interface Arguments {
    index: number;
    threadId?: number;
  }
}
