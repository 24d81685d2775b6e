// What an agent tool is (one declaration, one file each: its name, description, input and output schemas, how the
// editor shows it, and what it does over core) and what a shell supplies to it (ToolHost): where paths may lie, the
// options a call's runs complete theirs with, the key, the stepping sessions a person sees, and what the person sees
// in the editor. `art mcp` (core/cli/mcp.ts) and the editor's language model tools (client/lm/tools.ts) are the two
// shells: each makes a host and calls invokeTool (invoke.ts).
import type { z } from 'zod';
import type { RunOptionName, RunOptions } from '../launch/options';
import type { ChatBackend } from '../model/chatContinuation';
import type { FileDiagnostic } from '../common/diagnostics';
import type { AgentLimits, RunSlots } from './limits';
import type { SessionStop, SessionView } from './sessionStop';
import type { RunConfig } from '../launch/session';
import type { ImproveEnd } from '../improve/improve';

/** What a tool answers: the text a model reads, and the same facts as structured content (MCP's output schema). */
export interface ToolAnswer {
  text: string;
  structured?: Record<string, unknown>;
  /** A failure the caller can fix (one line), or an internal one (the log has the details). */
  isError?: boolean;
}

/** How the editor shows a tool (package.json's `contributes.languageModelTools`, and the question before it runs). */
export interface EditorForm<I> {
  /** `ART: Check File`. */
  displayName: string;
  /** How a person names it in a chat prompt (`#artCheck`). */
  referenceName: string;
  /** What the person reads in the tools picker. */
  userDescription: string;
  /** A codicon, `$(check)`. */
  icon: string;
  /** The line shown while it runs. */
  invocation(input: Partial<I>): string;
  /** The question asked before it runs, for a tool that runs code or calls a model. */
  confirm?(input: Partial<I>): { title: string; message: string };
}

/** One agent tool: offered by `art mcp` under `name` and by the editor as `art_<name>`. */
export interface AgentTool<S extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  /** What a model reads to choose the tool (both shells). */
  description: string;
  input: S;
  /** The structured content of its answer (MCP's output schema). */
  output: z.ZodRawShape;
  /** It runs programs: a call takes one of the places the shell's runs cap allows (limits.ts, RunSlots). */
  runsPrograms?: boolean;
  /** The tool file's tools (commands, HTTP tools, MCP servers) may run in it: its MCP description says whether. */
  userTools?: boolean;
  editor: EditorForm<z.infer<z.ZodObject<S>>>;
  run(input: z.infer<z.ZodObject<S>>, host: ToolHost): Promise<ToolAnswer>;
}

/** Declares a tool (typed from its input shape). */
export function defineTool<S extends z.ZodRawShape>(tool: AgentTool<S>): AgentTool<S> {
  return tool;
}

/** The run options a call's runs get, and what the shell said while completing them (a value lowered to its cap). */
export interface CallOptions {
  raw: Record<string, unknown>;
  /** The call's arguments with every capped one lowered to its cap (limits.ts: `concurrency` too). */
  args: Record<string, unknown>;
  notes: string[];
}

/** What a shell supplies to every tool. */
export interface ToolHost {
  /** Where relative paths start (the server's working directory, the first workspace folder). */
  readonly cwd: string;
  /** That folder as errors name it: `/w, the server's working directory`. */
  readonly cwdShown: string;
  /** A path the caller gave: absolute, links followed, inside the folders the shell allows (else a one-line error). */
  path(given: string, what: string): Promise<string>;
  /** The file the person has open in the editor: the default of a tool's file argument; undefined outside the editor. */
  activeFile(): string | undefined;
  /**
   * The run options of a call: the caller's (those of `args` that are run options) lowered to their caps, their paths
   * confined, completed by the user's (art mcp's flags, the editor's settings). `program`: the file run.
   */
  runOptions(args: Record<string, unknown>, program?: string): Promise<CallOptions>;
  /** How an option is named in an error, a tool's file argument being `fileField`. */
  label(fileField: string): (name: RunOptionName) => string;
  /** The key a run of `o` gets, and a note when it gets none. `needed`: whether the run may call the endpoint at all. */
  key(o: RunOptions, needed: boolean): Promise<{ key?: string; note?: string }>;
  /** The chat model of a run whose model source is the editor's (VS Code's Language Model API); none elsewhere. */
  chatModel(o: RunOptions, purpose: string): Promise<ChatBackend | undefined>;
  /** The secrets kept out of every answer (the key, the sessions' keys). */
  secrets(): string[];
  /** Why the tool file's tools start nothing in this shell, or undefined when they may. */
  readonly userToolsRefused: string | undefined;
  /** Whether anything may run (the workspace trust; `art mcp`: registering it is the trust). */
  readonly trusted: boolean;
  /** The environment whose OTEL_* variables configure the runs' telemetry (art mcp's; none in the editor). */
  readonly telemetryEnv?: NodeJS.ProcessEnv;
  /** The caps in force (limits.ts). */
  readonly limits: AgentLimits;
  /** Where an evaluation's runs go when the call names no folder, and whether ART writes a .gitignore into one it makes. */
  readonly runs: { folder: string; gitignore: boolean };
  /** Examples an evaluation runs at once when the call gives no `concurrency` (art mcp: 4, at most its cap; the editor's setting). */
  readonly concurrency: number;
  /** The places for calls that run programs, shared by every call of the shell. */
  readonly slots: RunSlots;
  /** The call was cancelled. */
  readonly signal: AbortSignal;
  /** Progress of a long call: a message, and how far it is when known. */
  progress(message: string, done?: number, total?: number): void;
  /** A line in the shell's log. */
  log(line: string): void;
  /** The stepping sessions this shell's tools drive. */
  readonly sessions: SessionHost;
  /** What the person sees in the editor; none outside it. */
  readonly views?: EditorViews;
}

/** A run to step, as debug_start prepares it: the configuration, its key and the notes of its launch. */
export interface SessionLaunch {
  config: RunConfig;
  key?: string;
  notes: string[];
}

/**
 * The stepping sessions of a shell: `art mcp`'s own (sessions.ts), or the editor's debug sessions, the one the person
 * looks at by default. `id` undefined: the session the person sees (the latest one started, outside the editor).
 */
export interface SessionHost {
  /** Starts a run that pauses after each tool call and waits for its first pause or its end. */
  start(launch: () => Promise<SessionLaunch>, signal: AbortSignal): Promise<SessionStop>;
  /** Where a session stands. */
  state(id?: string): Promise<SessionView>;
  /** Replaces the paused tool's output (a replay departs from its recording there); the session stays paused. */
  setOutput(id: string | undefined, output: string): Promise<SessionView>;
  /** Resumes a paused session (its paused tool's output first replaced by `output`) to its next pause or its end. */
  continue(id: string | undefined, output: string | undefined, signal: AbortSignal): Promise<SessionView>;
  /** Back to the previous pause, or the start of the run. */
  stepBack(id: string | undefined, signal: AbortSignal): Promise<SessionView>;
  /** Ends a session wherever it stands. */
  stop(id: string | undefined): Promise<SessionStop>;
  /** The prompt of the run a session (the one the person sees by default) is at, when the shell can ask it. */
  prompt?(id?: string): Promise<string | undefined>;
  /** The keys the open sessions read. */
  keys(): string[];
}

/** What the editor shows a person: each is where the tool's work appears in the editor. */
export interface EditorViews {
  /** The diagnostics of files as the Problems view shows them (the language server's, with the workspace's tools). */
  diagnostics(paths: readonly string[]): Promise<FileDiagnostic[]>;
  /** Opens an evaluation's results in the evaluation view. */
  showEvaluation(resultsPath: string): Promise<void>;
  /** Opens a proposed library against the library, asks Accept / Discard (not awaited); the line the answer ends with. */
  proposeLibrary(library: string, end: ImproveEnd): Promise<string>;
  /** Shows a prompt report's text in a read-only editor. */
  showText(title: string, text: string): Promise<void>;
}
