// The `art` debug adapter's launch arguments and its custom DAP messages, declared once for the session (which
// may run standalone, with no VS Code) and the VS Code client. Plain data only.
import type { DebugProtocol } from '@vscode/debugprotocol';
import type { Usage } from '../../core/model/types';
import type { RunOptionsInput } from '../../core/runner/options';
import type { EndReason, RunKind, ToolCall } from '../../core/runner/types';

export const DEBUG_TYPE = 'art';

/** The launch arguments are the run options (core/runner/options.ts, where each one is declared and documented). */
export type ArtLaunchArguments = DebugProtocol.LaunchRequestArguments & RunOptionsInput;

/** Custom event: the program text changed; replace everything from `from` (a UTF-16 offset) with `text`. */
export const TEXT_EVENT = 'art/text';
export interface TextEventBody {
  /** Starts at 1 with each run (a restart begins a new document). */
  run: number;
  /** `art` text is an ART program; agent and trigger runs are transcripts. */
  kind: RunKind;
  from: number;
  text: string;
  /** The whole program's length after the change (a check for the client). */
  length: number;
}

/** Custom event: the run ended. */
export const END_EVENT = 'art/end';
export interface EndEventBody {
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

/** Custom requests (customRequest in VS Code): act on the paused tool call. */
export const SET_TOOL_OUTPUT = 'art/setToolOutput';
export const SET_TOOL_INPUT = 'art/setToolInput';
export const SKIP_TOOL = 'art/skipTool';
export interface TextArguments {
  text: string;
}

/** Custom request: where the run stands. */
export const STATE_REQUEST = 'art/state';
export interface StateResponseBody {
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
