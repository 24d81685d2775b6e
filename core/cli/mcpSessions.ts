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
import type { RunConfig } from '../launch/session';
import { SteppingSession, SteppingSessions, type Stop } from '../launch/stepping';
import { mayCallEndpoint } from '../launch/apiKey';
import { DEFAULT_SESSION_IDLE_S } from './mcpStart';
import { END_REASONS } from '../trace/vocabulary';
import type { PauseInfo, RunResult } from '../engine/types';
import { CliError } from './files';
import {
  NOT_FOR_MCP_RUN,
  userToolsRefusedOf,
  confinedRunOptions,
  toolsSentence,
  guarded,
  redact,
  keysOf,
  mcpKey,
  mcpLabel,
  existingFile,
  runOptionShape,
  toolResult,
  type McpContext,
} from './mcpCommon';
import { replayUnlessEndpoint } from './optionFlags';
import { describeStop, withCall, type SessionStop } from './sessionStop';

export { describeStop, type SessionStop };

/** Sessions one client may keep open at once: each holds a run, its tools and its sandbox. */
export const MAX_SESSIONS = 16;

/** A session of the client's: the core's stepping session, the key its run read and its launch notes. */
interface Session {
  id: string;
  stepping: SteppingSession;
  /** The key the run read, if any: kept out of every answer. */
  key?: string;
  /** The launcher's log lines (the sandbox's isolation, tool problems). */
  notes: string[];
  stop(): Promise<unknown>;
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

/** How a departed replay goes on, in the words of the MCP tools' own arguments. */
export const MCP_GO_ON =
  'call debug_start again with "mode": "replay" and an endpoint ("baseURL" and "model", or art mcp started with --base-url and --model) to replay up to there and go on live, or debug_step_back to go back before the change';

/** A departure's text with the way on said in the MCP tools' arguments, not the editor's or the command line's. */
export function mcpDeparture(error: string): string {
  const cut = error.indexOf(': set a model');
  return cut < 0 ? error : `${error.slice(0, cut)}: ${MCP_GO_ON}`;
}

export class DebugSessions {
  private readonly sessions = new SteppingSessions<Session>(MAX_SESSIONS);

  constructor(private readonly ctx: McpContext) {}

  get size(): number {
    return this.sessions.size;
  }

  /** The keys the open sessions read: kept out of every answer. */
  keys(): string[] {
    return this.sessions.values().flatMap(s => (s.key ? [s.key] : []));
  }

  /** Prepares the run of `args` (`file` and run options) and runs it to its first pause or its end. */
  async start(args: Record<string, unknown> & { file: string }, signal?: AbortSignal): Promise<SessionStop> {
    const { session: s } = await this.sessions.add(
      async id => {
        const raw: Record<string, unknown> = { ...(await confinedRunOptions(this.ctx, args)), program: await existingFile(this.ctx, args.file) };
        replayUnlessEndpoint(raw);
        const o = parseRunOptions(raw, mcpLabel('file'));
        const notes: string[] = [];
        const { key, note } = mcpKey(this.ctx, o, mayCallEndpoint(o));
        if (note) notes.push(note);
        const config: RunConfig = {
          ...o,
          apiKey: key,
          telemetryEnv: this.ctx.env,
          trusted: true,
          pauseAfterTool: true,
          pauseOnToolError: true,
          userToolsRefused: userToolsRefusedOf(this.ctx),
          log: line => notes.push(line),
        };
        const stepping = new SteppingSession(await prepareRun(config), config, {
          idleMs: this.idleMs,
          onIdle: () => this.expire(id),
        });
        return { id, stepping, key, notes, stop: () => stepping.stop() };
      },
      () => new CliError(`art mcp: ${MAX_SESSIONS} sessions are open: end one with debug_stop before starting another`),
    );
    const stop = await this.answer(s, () => s.stepping.start(signal));
    return { ...stop, notes: [...s.stepping.run.toolProblems, ...s.notes] };
  }

  /** Resumes a paused session, the paused tool's output first replaced by `output` when given. */
  async continue(id: string, output?: string, signal?: AbortSignal): Promise<SessionStop> {
    const s = this.get(id);
    const runner = s.stepping.run.runner;
    if (output !== undefined) {
      if (!runner.paused?.call) throw new CliError(`art mcp: session ${id} is not paused at a tool call: give no "output" to continue`);
      runner.setToolOutput(output);
    }
    return this.answer(s, () => s.stepping.drive(() => runner.continue(), signal));
  }

  /** Back to the previous pause, or the start of the run (nothing before it is generated again). */
  async stepBack(id: string, signal?: AbortSignal): Promise<SessionStop> {
    const s = this.get(id, true);
    if (s.stepping.departed) return this.answer(s, () => s.stepping.backBeforeDeparture(signal));
    return this.answer(s, () => s.stepping.drive(() => s.stepping.run.runner.stepBack(), signal));
  }

  /** Ends a session wherever it stands, at once also while a request is driving it (its step is cancelled). */
  async stop(id: string): Promise<SessionStop> {
    const s = this.sessions.get(id);
    if (!s) throw noSession(id);
    this.sessions.delete(id, s);
    const departed = s.stepping.departed;
    const r = await s.stepping.stop();
    const view = endView(s.id, r);
    return redact(departed ? { ...view, status: 'stopped', error: undefined } : view, s.key ? [s.key] : []);
  }

  /** Stops every session (the client went): their tools, sandboxes and MCP servers end too. */
  stopAll(): Promise<void> {
    return this.sessions.stopAll();
  }

  /** How long a session nobody drives lives: `art mcp --session-idle-s`, else DEFAULT_SESSION_IDLE_S. */
  private get idleMs(): number {
    return this.ctx.start?.sessionIdleMs ?? DEFAULT_SESSION_IDLE_S * 1000;
  }

  private expire(id: string): void {
    const s = this.sessions.get(id);
    if (!s) return;
    this.ctx.log(`art mcp: session ${id} was idle for ${this.idleMs / 1000} s: stopped (art mcp --session-idle-s)`);
    void this.stop(id).catch(() => {});
  }

  private get(id: string, departedToo = false): Session {
    const s = this.sessions.get(id);
    if (!s) throw noSession(id);
    if (s.stepping.busy) throw new CliError(`art mcp: session ${id} is busy with another request: wait for its answer, or end it with debug_stop`);
    if (s.stepping.departed) {
      if (departedToo) return s;
      throw new CliError(
        `art mcp: session ${id} departed from its recording and ended: debug_step_back goes back before that, debug_stop forgets it`,
      );
    }
    if (!s.stepping.run.runner.paused) throw new CliError(`art mcp: session ${id} is not paused`);
    return s;
  }

  /** The answer to a command: the pause, or the end (a session that ended is forgotten, but a departed one). */
  private async answer(s: Session, command: () => Promise<Stop>): Promise<SessionStop> {
    const secrets = s.key ? [s.key] : [];
    let stop: Stop;
    try {
      stop = await command();
    } catch (e) {
      // A method the run refused (not at a call, nothing to go back to): the session stays paused as it was.
      if (s.stepping.run.runner.paused) throw new CliError(`art mcp: session ${s.id}: ${(e as Error).message}`);
      throw e;
    }
    if ('paused' in stop) return redact(this.pauseView(s, stop.paused), secrets);
    const view = redact(endView(s.id, stop.ended), secrets);
    // A departed replay is kept: a step back replays to the pause it departed from; debug_stop forgets it.
    if (s.stepping.departed && this.sessions.get(s.id) === s) return { ...view, canStepBack: s.stepping.departed.pauses > 0 };
    this.sessions.delete(s.id, s);
    return view;
  }

  private pauseView(s: Session, p: PauseInfo): SessionStop {
    const { call } = p;
    const runner = s.stepping.run.runner;
    const view: SessionStop = {
      session: s.id,
      status: 'paused',
      reason: p.reason,
      description: p.description,
      // With the paused call's output (or its override) appended, as the run goes on from here.
      program: runner.textOnResume(),
      canStepBack: runner.checkpointList().length > 1,
    };
    if (p.step) Object.assign(view, { step: p.step.number, label: p.step.label });
    return call ? withCall(view, call) : view;
  }
}

const noSession = (id: string) => new CliError(`art mcp: no session "${id}": it ended or was never started; start one with debug_start`);

function endView(id: string, r: RunResult): SessionStop {
  const view: SessionStop = { session: id, status: r.reason, answer: r.answer, program: r.snapshot.text };
  if (r.error !== undefined) view.error = r.reason === 'departed' ? mcpDeparture(r.error) : r.error;
  return view;
}

/** Registers debug_start, debug_continue, debug_step_back and debug_stop over `sessions`. */
export function registerDebugTools(server: McpServer, sessions: DebugSessions, ctx: McpContext): void {
  const answer = (stop: SessionStop) =>
    toolResult(describeStop(stop), stop as unknown as Record<string, unknown>, [...keysOf(ctx), ...sessions.keys()]);
  const sessionArg = { session: z.string().describe('The id debug_start returned.') };

  server.registerTool(
    'debug_start',
    {
      title: 'Start a stepping session',
      description:
        'Start a run that pauses after each tool call (and on a tool error), as the debugger does: returns a session id and the first pause (tool, input, output, step, the program so far), or the end when the run makes no call. Replays the recorded program unless an endpoint (baseURL and model, or art mcp\'s --base-url and --model) or mode "generate" is given. A session nobody drives is stopped after art mcp\'s --session-idle-s.' +
        toolsSentence(ctx),
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
    async (args, extra) => guarded('debug_start', ctx, true, async () => answer(await sessions.start(args, extra.signal))),
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
    async (args, extra) => guarded('debug_continue', ctx, true, async () => answer(await sessions.continue(args.session, args.output, extra.signal))),
  );
  server.registerTool(
    'debug_step_back',
    {
      title: 'Step back in a stepping session',
      description:
        'Go back to the previous pause of a session: its state is restored and nothing before it is generated again. A replay that departed from its recording goes back to the pause it departed from (replayed again, its tools run again).',
      inputSchema: sessionArg,
      outputSchema: STOP_SHAPE,
    },
    async (args, extra) => guarded('debug_step_back', ctx, true, async () => answer(await sessions.stepBack(args.session, extra.signal))),
  );
  server.registerTool(
    'debug_stop',
    {
      title: 'Stop a stepping session',
      description:
        'End a session wherever it stands, at once also while another request drives it (the step in flight is cancelled; its tools and sandbox end too); returns the program as it stood. A departed session is forgotten.',
      inputSchema: sessionArg,
      outputSchema: STOP_SHAPE,
    },
    async args => guarded('debug_stop', ctx, true, async () => answer(await sessions.stop(args.session))),
  );
}
