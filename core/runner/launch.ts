// From a launch configuration to a ready Runner: reads the file (`.art` task library, `.agent` spec, or a `.jsonl`
// trace to replay), picks the task, builds the model (an OpenAI-compatible endpoint, or the replay model that
// replays the program's recorded text) and the tool library, and opens the trace. Shared by the shells that run
// programs: the debug adapter and `art run`. Every failure is a LaunchError with one line that says what to fix.
import { readFileSync, statSync } from 'node:fs';
import { extname, isAbsolute, resolve } from 'node:path';
import { compileAgent } from '../agent/compile';
import { checkAgentFile } from '../agent/check';
import { parseAgentFile } from '../agent/parse';
import type { AgentDef, AgentFile } from '../agent/ast';
import { normalizeName, programTitle, type ArtDocument } from '../art/ast';
import { parseArt } from '../art/parse';
import { OpenAIModel } from '../model/openai';
import { ReplayModel } from '../model/replay';
import type { ModelClient } from '../model/types';
import { createToolRegistry, type ToolRegistry } from '../tools/registry';
import { CONSTRAIN_MODES, Constrainer, type ConstrainMode } from './constraints';
import { createAgentRunner, createArtRunner } from './create';
import { Runner } from './runner';
import { TraceReplayModel, TraceWriter, parseTrace, protocolFromTrace, traceReplayTools } from './trace';
import type { RunnerOptions, TraceRecord, TraceSink } from './types';

export class LaunchError extends Error {}

export type RunMode = 'generate' | 'replay';

/** The pause, breakpoint and timeout options pass straight through to the runner. */
type PassedRunnerOptions = Pick<RunnerOptions, 'pauseBeforeTool' | 'pauseAfterTool' | 'pauseOnToolError' | 'stopOnEntry' | 'breakpoints' | 'toolTimeoutMs' | 'log'>;

export interface RunConfig extends PassedRunnerOptions {
  /** The `.art`, `.agent` or `.jsonl` (trace) file; relative to `workspaceRoot`. */
  program: string;
  /** The file's text when the caller has it (an editor's unsaved buffer); read from disk otherwise. */
  text?: string;
  /** ART: a task name or a 0-based program index; agents: an agent name or index. Default: the first one. */
  task?: string | number;
  /** ART: the new input (default: the program's own); agents: the question (required). */
  input?: string;
  /** Default `generate`; `replay` replays the program's recorded model text, tools re-executed. */
  mode?: RunMode;
  baseURL?: string;
  model?: string;
  api?: 'completions' | 'chat';
  /** The key itself: the caller reads it from SecretStorage or an environment variable. Never traced. */
  apiKey?: string;
  temperature?: number;
  maxTokens?: number;
  /** The workspace tool file (default `.art-tools.json` in the workspace folder, when present). */
  toolsFile?: string;
  /** Workspace folder: relative paths resolve against it. Default: the current directory. */
  workspaceRoot?: string;
  pythonPath?: string;
  /** Document folder of `search` (default: the workspace's `corpus/`, else `examples/corpus/`). */
  corpusDir?: string;
  trusted: boolean;
  /** Replay: milliseconds between streamed chunks, to watch the program grow. Default 0. */
  replayDelayMs?: number;
  /** Where to write the JSONL trace. */
  tracePath?: string;
  /** Decoding constraints sent with each request (see constraints.ts): `auto` probes the endpoint. Default `off`. */
  constrain?: ConstrainMode;
}

export type RunLanguage = 'art' | 'agent' | 'trace';

export interface PreparedRun {
  runner: Runner;
  language: RunLanguage;
  /** Absolute path of the file run. */
  path: string;
  text: string;
  /** The program (ART) or agent index in the file; -1 for a trace. */
  unit: number;
  title: string;
  /** ART: the run replays the file's own program, so step k of the run is the source program's `Qk:`. */
  ownProgram: boolean;
  model: ModelClient;
  /** Problems of the tool file and MCP servers (the run goes on without those tools). */
  toolProblems: readonly string[];
  tracePath?: string;
  /** Closes the trace and stops MCP servers. */
  dispose(): Promise<void>;
}

const UNTRUSTED = 'this workspace is not trusted: nothing runs in Restricted Mode (trust the workspace to run programs)';

export async function prepareRun(config: RunConfig): Promise<PreparedRun> {
  if (!config.trusted) throw new LaunchError(UNTRUSTED);
  if (!config.program || typeof config.program !== 'string') throw new LaunchError('no program: give the .art or .agent file to run');
  const root = resolve(config.workspaceRoot ?? process.cwd());
  const at = (p: string) => (isAbsolute(p) ? p : resolve(root, p));
  const path = at(config.program);
  const text = config.text ?? readProgram(path);
  const language = languageOf(path);
  const mode = config.mode ?? 'generate';
  if (mode !== 'generate' && mode !== 'replay') throw new LaunchError(`unknown mode "${String(mode)}": use "generate" or "replay"`);
  if (config.constrain !== undefined && !CONSTRAIN_MODES.includes(config.constrain)) throw new LaunchError(`unknown constrain mode "${String(config.constrain)}": use one of ${CONSTRAIN_MODES.join(', ')}`);

  let tools: ToolRegistry;
  try {
    tools = await createToolRegistry({
      workspaceRoot: root,
      trusted: true,
      toolsFile: config.toolsFile ? at(config.toolsFile) : undefined,
      pythonPath: config.pythonPath,
      corpusDir: config.corpusDir,
    });
  } catch (e) {
    throw new LaunchError(`the tools could not be loaded: ${(e as Error).message}`);
  }

  let writer: TraceWriter | undefined;
  const tracePath = config.tracePath ? at(config.tracePath) : undefined;
  const dispose = async () => {
    writer?.close();
    await tools.dispose();
  };
  try {
    if (tracePath) {
      try {
        writer = new TraceWriter(tracePath, config.apiKey ? [config.apiKey] : []);
      } catch (e) {
        throw new LaunchError(`${tracePath}: cannot write the trace: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
    }
    const trace: TraceSink | undefined = writer;
    const base = { tools, trace, config, mode, root };
    const made = language === 'art' ? makeArtRun(text, base) : language === 'agent' ? makeAgentRun(text, base) : makeTraceRun(text, path, base);
    return { ...made, language, path, text, toolProblems: tools.problems, tracePath, dispose };
  } catch (e) {
    await dispose();
    if (e instanceof LaunchError) throw e;
    throw new LaunchError((e as Error).message);
  }
}

interface Base {
  tools: ToolRegistry;
  trace: TraceSink | undefined;
  config: RunConfig;
  mode: RunMode;
  root: string;
}

type Made = Pick<PreparedRun, 'runner' | 'unit' | 'title' | 'ownProgram' | 'model'>;

function runnerOptions(b: Base, model: ModelClient): RunnerOptions {
  const c = b.config;
  return {
    model,
    tools: b.tools,
    temperature: c.temperature,
    maxTokens: c.maxTokens,
    pauseBeforeTool: c.pauseBeforeTool,
    pauseAfterTool: c.pauseAfterTool,
    pauseOnToolError: c.pauseOnToolError,
    stopOnEntry: c.stopOnEntry,
    breakpoints: c.breakpoints,
    toolTimeoutMs: c.toolTimeoutMs,
    workspaceRoot: b.root,
    trace: b.trace,
    log: c.log,
    constrainer: b.mode === 'generate' && c.constrain && c.constrain !== 'off' ? new Constrainer({ mode: c.constrain, baseURL: c.baseURL }) : undefined,
  };
}

function endpointModel(c: RunConfig): ModelClient {
  if (!c.baseURL) throw new LaunchError('no endpoint: give the base URL of an OpenAI-compatible API (baseURL / --base-url), or run in replay mode');
  if (!/^https?:\/\/\S+$/.test(c.baseURL)) throw new LaunchError(`the base URL "${c.baseURL}" is not an http:// or https:// URL`);
  if (!c.model) throw new LaunchError('no model: give the model name the endpoint serves (model / --model)');
  return new OpenAIModel({ baseURL: c.baseURL, model: c.model, apiKey: c.apiKey, api: c.api });
}

function makeArtRun(text: string, b: Base): Made {
  const doc = parseArt(text);
  const index = pickProgram(doc, b.config.task);
  const program = doc.programs[index];
  if (!program.input) throw new LaunchError(`program ${index} (${programTitle(program, index)}) has no Input: line to run`);
  const input = b.config.input?.trim() ? b.config.input : undefined;
  let model: ModelClient;
  if (b.mode === 'replay') {
    if (!program.steps.length) throw new LaunchError(`program ${index} (${programTitle(program, index)}) has no steps to replay`);
    model = ReplayModel.fromArtProgram(doc, index, name => b.tools.get(name) !== undefined, { chunkDelayMs: b.config.replayDelayMs });
  } else {
    model = endpointModel(b.config);
  }
  const runner = createArtRunner({ library: doc, program: index, task: input !== undefined ? { input } : undefined }, runnerOptions(b, model));
  return { runner, unit: index, title: programTitle(program, index), ownProgram: b.mode === 'replay' && (input === undefined || input.trim() === program.input.text.trim()), model };
}

/** The program a `task` names: a 0-based index, or a task name (its `(Task name)` or title), case-insensitively. */
export function pickProgram(doc: ArtDocument, task: string | number | undefined): number {
  const runnable = doc.programs.map((p, i) => ({ p, i })).filter(({ p }) => !p.template);
  if (!runnable.length) throw new LaunchError('the file has no program to run (only a prompt template, or nothing)');
  const list = () => runnable.map(({ p, i }) => `${i}: ${programTitle(p, i)}`).join(', ');
  if (task === undefined || task === '') return runnable[0].i;
  const asIndex = typeof task === 'number' ? task : /^\s*\d+\s*$/.test(task) ? Number(task) : undefined;
  if (asIndex !== undefined) {
    const p = doc.programs[asIndex];
    if (!Number.isInteger(asIndex) || !p) throw new LaunchError(`no program ${asIndex}: the file has programs ${list()}`);
    if (p.template) throw new LaunchError(`program ${asIndex} is the prompt template, not a program: choose one of ${list()}`);
    return asIndex;
  }
  const want = normalizeName(String(task));
  const byName = runnable.filter(({ p, i }) => normalizeName(p.description?.taskName ?? '') === want || normalizeName(programTitle(p, i)) === want);
  if (byName.length) return byName[0].i;
  throw new LaunchError(`no task named "${task}": the file has ${list()}`);
}

function makeAgentRun(text: string, b: Base): Made {
  const file = parseAgentFile(text);
  const errors = checkAgentFile(file).filter(d => d.severity === 'error');
  if (errors.length) throw new LaunchError(`the spec has ${errors.length} error(s), the first: ${errors[0].message} (fix them first; see the Problems view or 'art check')`);
  const index = pickAgent(file, b.config.task);
  const agent = file.agents[index];
  const question = b.config.input?.trim();
  if (!question) throw new LaunchError(`an agent run needs an input: the question for ${agent.name || 'the agent'}`);
  if (b.mode === 'replay') throw new LaunchError('replay mode replays a recorded program; an agent spec has none: run it in generate mode, or launch the .jsonl trace of an earlier run to replay it');
  const model = endpointModel(b.config);
  const runner = createAgentRunner({ agent: compileAgent(agent), question }, runnerOptions(b, model));
  return { runner, unit: index, title: agent.name || `agent ${index}`, ownProgram: false, model };
}

export function pickAgent(file: AgentFile, task: string | number | undefined): number {
  const named = (a: AgentDef, i: number) => `${i}: ${a.name || '(unnamed)'}`;
  if (!file.agents.length) throw new LaunchError('the file defines no agent');
  const list = () => file.agents.map(named).join(', ');
  if (task === undefined || task === '') return 0;
  const asIndex = typeof task === 'number' ? task : /^\s*\d+\s*$/.test(task) ? Number(task) : undefined;
  if (asIndex !== undefined) {
    if (!file.agents[asIndex]) throw new LaunchError(`no agent ${asIndex}: the file has ${list()}`);
    return asIndex;
  }
  const i = file.agents.findIndex(a => a.name === String(task));
  if (i < 0) throw new LaunchError(`no agent named "${task}": the file has ${list()}`);
  return i;
}

function makeTraceRun(text: string, path: string, b: Base): Made {
  const { records, errors } = parseTrace(text);
  if (errors.length) throw new LaunchError(`${path}:${errors[0].line}: ${errors[0].message}`);
  if (!records.some(r => r.t === 'run')) throw new LaunchError(`${path}: not a run trace (it has no "run" record)`);
  const model = new TraceReplayModel(records as TraceRecord[]);
  // The recorded tool outputs, with the recorded overrides in their place: the model sees what it saw then.
  const tools = traceReplayTools(records.map(r => (r.t === 'tool' && r.call.override !== undefined ? { ...r, call: { ...r.call, output: r.call.override, error: undefined } } : r)));
  const runner = new Runner(protocolFromTrace(records, tools), { ...runnerOptions(b, model), tools });
  const run = records.find(r => r.t === 'run');
  return { runner, unit: -1, title: `trace of ${run?.t === 'run' ? run.kind : 'a'} run`, ownProgram: false, model };
}

function languageOf(path: string): RunLanguage {
  const ext = extname(path).toLowerCase();
  if (ext === '.art') return 'art';
  if (ext === '.agent') return 'agent';
  if (ext === '.jsonl') return 'trace';
  throw new LaunchError(`${path}: cannot run a '${ext || 'file without extension'}' file: give a task library (.art), an agent spec (.agent) or a run trace (.jsonl)`);
}

function readProgram(path: string): string {
  let isDir = false;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    throw new LaunchError(`${path}: no such file`);
  }
  if (isDir) throw new LaunchError(`${path}: is a directory, not a program file`);
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new LaunchError(`${path}: cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}
