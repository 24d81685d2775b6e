// The stepping sessions of `art mcp`: `debug_start` prepares a run as `art run` would (the same options, sandbox and
// key rule) that pauses after every tool call and on a tool's error, and keeps it under an id; `debug_continue`
// (optionally overriding the paused tool's output, as the debugger's setVariable does), `debug_step_back` and
// `debug_stop` drive it through the Runner's methods, each answering with the next pause or the end. A pause is
// awaited with the runner's `paused` event, raced with the end of its run. Every session is stopped when the client
// goes (stopAll).
import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { prepareRun } from '../launch/launch';
import { parseRunOptions } from '../launch/options';
import type { PreparedRun } from '../launch/session';
import { apiKeyFromEnv } from '../launch/apiKey';
import { END_REASONS } from '../trace/vocabulary';
import { type PauseInfo, type RunResult } from '../engine/types';
import { CliError } from './files';
import {
  NOT_FOR_MCP_RUN,
  guarded,
  redact,
  keysOf,
  mcpLabel,
  existingFile,
  runOptionShape,
  runOptionsOf,
  toolResult,
  type McpContext,
} from './mcpCommon';
import { replayUnlessEndpoint } from './optionFlags';
import { describeStop, withCall, type SessionStop } from './sessionStop';

export { describeStop, type SessionStop };

/** Sessions one client may keep open at once: each holds a run, its tools and its sandbox. */
export const MAX_SESSIONS = 16;

interface Session {
  id: string;
  run: PreparedRun;
  /** The run's end (runner.run() never rejects). */
  ended: Promise<RunResult>;
  /** A request is driving the run: another is refused. */
  busy: boolean;
  /** The key the run read, if any: kept out of every answer. */
  key?: string;
  /** The launcher's log lines (the sandbox's isolation, tool problems). */
  notes: string[];
}

export const STOP_SHAPE = {
  session: z.string(),
  status: z.enum(['paused', ...END_REASONS]),
  reason: z.string().optional(),
  description: z.string().optional(),
  step: z.number().optional(),
  label: z.string().optional(),
  tool: z.string().optional(),
  input: z.string().optional(),
  previousAnswer: z.string().optional(),
  output: z.string().optional(),
  override: z.string().optional(),
  error: z.string().optional(),
  program: z.string(),
  answer: z.string().nullable().optional(),
  canStepBack: z.boolean().optional(),
  notes: z.array(z.string()).optional(),
};

export class DebugSessions {
  private readonly sessions = new Map<string, Session>();
  private count = 0;

  constructor(private readonly ctx: McpContext) {}

  get size(): number {
    return this.sessions.size;
  }

  /** The keys the open sessions read: kept out of every answer. */
  keys(): string[] {
    return [...this.sessions.values()].flatMap(s => (s.key ? [s.key] : []));
  }

  /** Prepares the run of `args` (`file` and run options) and runs it to its first pause or its end. */
  async start(args: Record<string, unknown> & { file: string }): Promise<SessionStop> {
    if (this.sessions.size >= MAX_SESSIONS)
      throw new CliError(`art mcp: ${MAX_SESSIONS} sessions are open: end one with debug_stop before starting another`);
    const raw: Record<string, unknown> = { ...runOptionsOf(args), program: existingFile(this.ctx, args.file) };
    replayUnlessEndpoint(raw);
    const o = parseRunOptions(raw, mcpLabel('file'));
    const notes: string[] = [];
    const key = apiKeyFromEnv(o, this.ctx.env);
    const run = await prepareRun({
      ...o,
      apiKey: key,
      telemetryEnv: this.ctx.env,
      trusted: true,
      pauseAfterTool: true,
      pauseOnToolError: true,
      log: line => notes.push(line),
    });
    const id = String(++this.count);
    const s: Session = { id, run, ended: undefined as unknown as Promise<RunResult>, busy: true, notes, key };
    this.sessions.set(id, s);
    const stop = await this.next(s, () => (s.ended = run.runner.run()));
    return { ...stop, notes: [...run.toolProblems, ...notes] };
  }

  /** Resumes a paused session, the paused tool's output first replaced by `output` when given. */
  async continue(id: string, output?: string): Promise<SessionStop> {
    const s = this.get(id);
    const runner = s.run.runner;
    if (output !== undefined) {
      if (!runner.paused?.call) throw new CliError(`art mcp: session ${id} is not paused at a tool call: give no "output" to continue`);
      runner.setToolOutput(output);
    }
    return this.next(s, () => runner.continue());
  }

  /** Back to the previous pause, or the start of the run (nothing before it is generated again). */
  async stepBack(id: string): Promise<SessionStop> {
    const s = this.get(id);
    return this.next(s, () => s.run.runner.stepBack());
  }

  /** Ends a session wherever it stands. */
  async stop(id: string): Promise<SessionStop> {
    const s = this.get(id);
    return this.next(s, () => s.run.runner.stop());
  }

  /** Stops every session (the client went): their tools, sandboxes and MCP servers end too. */
  async stopAll(): Promise<void> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(
      all.map(async s => {
        s.run.runner.stop();
        await s.ended;
        await s.run.dispose();
      }),
    );
  }

  private get(id: string): Session {
    const s = this.sessions.get(id);
    if (!s) throw new CliError(`art mcp: no session "${id}": it ended or was never started; start one with debug_start`);
    if (s.busy) throw new CliError(`art mcp: session ${id} is busy with another request: wait for its answer`);
    if (!s.run.runner.paused) throw new CliError(`art mcp: session ${id} is not paused`);
    return s;
  }

  /** Does `go` and waits for the run's next pause or its end; an ended session is disposed of and forgotten. */
  private async next(s: Session, go: () => void): Promise<SessionStop> {
    const runner = s.run.runner;
    s.busy = true;
    let onPause!: (p: PauseInfo) => void;
    const paused = new Promise<PauseInfo>(resolve => (onPause = resolve));
    runner.once('paused', onPause);
    try {
      go();
      const stop = await Promise.race([paused.then(p => ({ p })), s.ended.then(r => ({ r }))]);
      const secrets = s.key ? [s.key] : [];
      if ('p' in stop) return redact(this.pauseView(s, stop.p), secrets);
      this.sessions.delete(s.id);
      await s.run.dispose();
      return redact(endView(s.id, stop.r), secrets);
    } catch (e) {
      // A method the run refused (not at a call, nothing to go back to): the session stays paused as it was.
      if (runner.paused) throw new CliError(`art mcp: session ${s.id}: ${(e as Error).message}`);
      throw e;
    } finally {
      runner.off('paused', onPause);
      s.busy = false;
    }
  }

  private pauseView(s: Session, p: PauseInfo): SessionStop {
    const { call } = p;
    const view: SessionStop = {
      session: s.id,
      status: 'paused',
      reason: p.reason,
      description: p.description,
      // With the paused call's output (or its override) appended, as the run goes on from here.
      program: s.run.runner.textOnResume(),
      canStepBack: s.run.runner.checkpointList().length > 1,
    };
    if (p.step) Object.assign(view, { step: p.step.number, label: p.step.label });
    return call ? withCall(view, call) : view;
  }
}

function endView(id: string, r: RunResult): SessionStop {
  const view: SessionStop = { session: id, status: r.reason, answer: r.answer, program: r.snapshot.text };
  if (r.error !== undefined) view.error = r.error;
  return view;
}

/** Registers debug_start, debug_continue, debug_step_back and debug_stop over `sessions`. */
export function registerDebugTools(server: McpServer, sessions: DebugSessions, ctx: McpContext): void {
  const answer = (stop: SessionStop, args: Record<string, unknown>) =>
    toolResult(describeStop(stop), stop as unknown as Record<string, unknown>, [...keysOf(ctx, args), ...sessions.keys()]);
  const sessionArg = { session: z.string().describe('The id debug_start returned.') };

  server.registerTool(
    'debug_start',
    {
      title: 'Start a stepping session',
      description:
        'Start a run that pauses after each tool call (and on a tool error), as the debugger does: returns a session id and the first pause (tool, input, output, step, the program so far), or the end when the run makes no call. Replays the recorded program unless an endpoint (baseURL and model) or mode "generate" is given.',
      inputSchema: {
        file: z
          .string()
          .min(1)
          .describe(
            "The task library (.art), agent spec (.agent), MultiTool-CoT prompt or trace (.jsonl); relative paths start at the server's working directory.",
          ),
        ...runOptionShape(NOT_FOR_MCP_RUN),
      },
      outputSchema: STOP_SHAPE,
    },
    async args => guarded('debug_start', ctx, args, async () => answer(await sessions.start(args), args)),
  );
  server.registerTool(
    'debug_continue',
    {
      title: 'Continue a stepping session',
      description:
        'Resume a paused session until its next pause or its end (status, answer, and why a replay departed). "output" first replaces the paused tool\'s output, as setting its value in the debugger does; a replay departs from its recording there.',
      inputSchema: { ...sessionArg, output: z.string().optional().describe("The output the model sees instead of the paused tool's.") },
      outputSchema: STOP_SHAPE,
    },
    async args => guarded('debug_continue', ctx, args, async () => answer(await sessions.continue(args.session, args.output), args)),
  );
  server.registerTool(
    'debug_step_back',
    {
      title: 'Step back in a stepping session',
      description: 'Go back to the previous pause of a session: its state is restored and nothing before it is generated again.',
      inputSchema: sessionArg,
      outputSchema: STOP_SHAPE,
    },
    async args => guarded('debug_step_back', ctx, args, async () => answer(await sessions.stepBack(args.session), args)),
  );
  server.registerTool(
    'debug_stop',
    {
      title: 'Stop a stepping session',
      description: 'End a session wherever it stands (its tools and sandbox end too); returns the program as it stood.',
      inputSchema: sessionArg,
      outputSchema: STOP_SHAPE,
    },
    async args => guarded('debug_stop', ctx, args, async () => answer(await sessions.stop(args.session), args)),
  );
}
