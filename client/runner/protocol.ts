// The `art` debug adapter's launch arguments and its custom DAP messages, declared once for the session (which
// may run standalone, with no VS Code) and the VS Code client. Plain data only.
import type { DebugProtocol } from '@vscode/debugprotocol';
import type { Usage } from '../../core/model/types';
import type { EndReason, RunKind, ToolCall } from '../../core/runner/types';

export const DEBUG_TYPE = 'art';

export interface ArtLaunchArguments extends DebugProtocol.LaunchRequestArguments {
  /** The `.art` task library, `.agent` spec, or `.jsonl` trace to run. */
  program: string;
  /** ART: task name or 0-based program index; agents: agent name or index. */
  task?: string | number;
  /** ART: the new input (default: the program's own); agents: the question. */
  input?: string;
  mode?: 'generate' | 'replay';
  baseURL?: string;
  model?: string;
  /** `completions` (default) or `chat`. */
  api?: 'completions' | 'chat';
  /** Name of the environment variable holding the key (default OPENAI_API_KEY). The key itself never goes here. */
  apiKeyEnv?: string;
  temperature?: number;
  maxTokens?: number;
  /** The workspace tool file. */
  tools?: string;
  pauseBeforeTool?: boolean;
  /** Where to write the JSONL trace. */
  trace?: string;
  stopOnEntry?: boolean;
  /** Standalone adapters only (default true); in VS Code the workspace trust decides. */
  trusted?: boolean;
  /** Workspace folder: relative paths resolve against it. */
  cwd?: string;
  pythonPath?: string;
  /** Run Python code even where no network namespace can be made (the sandbox refuses it otherwise). */
  allowUnisolatedCode?: boolean;
  /** Document folder of the `search` tool. */
  corpus?: string;
  toolTimeoutMs?: number;
  /** Replay mode: milliseconds between streamed chunks. */
  replayDelayMs?: number;
}

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
    language: 'art' | 'agent' | 'trace';
    /** The source file and the program's index in it. */
    program: string;
    unit: number;
    text: string;
    calls: ToolCall[];
    usage: Usage;
    requests: number;
    tracePath?: string;
  }
}

/** Request: the output the model sees for the paused tool call (before or after the tool runs). */
export namespace SetToolOutputRequest {
  export const command = 'art/setToolOutput' as const;
  export interface Arguments {
    text: string;
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
  }
}
