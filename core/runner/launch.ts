// From a launch configuration to a ready Runner: reads the file (`.art` task library, `.agent` spec, or a `.jsonl`
// trace to replay), picks the task, builds the model (an OpenAI-compatible endpoint, or the replay model that
// replays the program's recorded text) and the tool library, and opens the trace. Shared by the shells that run
// programs: the debug adapter and `art run`. Every failure is a LaunchError with one line that says what to fix.
import { basename, extname, isAbsolute, resolve } from 'node:path';
import { compileAgent } from '../agent/compile';
import { checkAgentFile } from '../agent/check';
import { parseAgentFile } from '../agent/parse';
import type { AgentDef, AgentFile } from '../agent/ast';
import type { CompiledAgent } from '../agent/compile';
import { readTextFile, TextFileError } from '../common/textFile';
import { normalizeName, programTitle, type ArtDocument } from '../art/ast';
import { parseArt } from '../art/parse';
import { OpenAIModel } from '../model/openai';
import { ReplayModel } from '../model/replay';
import type { ModelClient } from '../model/types';
import type { RetryPolicy } from '../model/retry';
import { toolTimeoutProblem } from '../tools/common';
import { createToolRegistry, type ToolRegistry } from '../tools/registry';
import { answerBeside, COT_EXTENSION, existing, isCotPrompt, preambleBeside, transcriptBeside } from './companions';
import { cotRecording, fillCotPrompt } from './cotPrompt';
import { Constrainer } from './constraints';
import { createAgentRunner, createArtRunner, createMultiToolRunner } from './create';
import { libraryAsRun, taskOf } from './prompt';
import { promptReportFromTrace, type PromptReport } from './promptReport';
import { chooseDemonstrations, folderLibraries } from './taskSelection';
import { Runner } from './runner';
import { MemoryTrace, TraceReplayModel, TraceWriter, cacheEntries, parseTrace, protocolFromTrace, traceReplayTools } from './trace';
import { CachedModel } from '../model/cache';
import { LaunchError, parseRunOptions, type RunOptions, type RunOptionsInput } from './options';
import type { RunnerOptions, ToolCall, TraceRecord, TraceSink } from './types';
import { foldWhitespace, quoteShort } from '../common/text';

export { LaunchError };

/** The pauses, breakpoints and log only the shells set pass straight through to the runner. */
type PassedRunnerOptions = Pick<RunnerOptions, 'pauseAfterTool' | 'pauseOnToolError' | 'breakpoints' | 'log' | 'sample'>;

/**
 * What a run needs: the declared run options (core/runner/options.ts: `program`, `mode`, `rerank`, ...; relative
 * paths resolve against `cwd`, default the current directory), validated here, plus what only the caller knows.
 */
export type RunConfig = Omit<RunOptionsInput, 'trusted'> &
  PassedRunnerOptions & {
    /** The file's text when the caller has it (an editor's unsaved buffer); read from disk otherwise. */
    text?: string;
    /** The key itself: the caller reads it from SecretStorage or an environment variable. Never traced. */
    apiKey?: string;
    /** Whether anything may run (the workspace trust). */
    trusted: boolean;
    /** Records of an earlier run whose completions answer identical requests (a restart: the previous run's). */
    cache?: TraceRecord[];
    /** Wraps the model the runner (and its LLM-backed tools) asks, e.g. to count calls against a search's budget. */
    wrapModel?: (model: ModelClient) => ModelClient;
    /** How long the endpoint's client waits before retrying (default DEFAULT_RETRY, core/model/retry.ts). */
    retry?: Partial<RetryPolicy>;
  };

export type RunLanguage = 'art' | 'agent' | 'multitool' | 'trace';

export interface PreparedRun {
  runner: Runner;
  language: RunLanguage;
  /** Absolute path of the file run. */
  path: string;
  text: string;
  /** The program (ART) or agent index in the file; 0 for a MultiTool-CoT prompt; -1 for a trace. */
  unit: number;
  title: string;
  /** ART: the run replays the file's own program, so step k of the run is the source program's `Qk:`. */
  ownProgram: boolean;
  model: ModelClient;
  /**
   * First the Python sandbox's isolation level and what it does not isolate, then the problems of the tool file and
   * MCP servers (the run goes on without those tools). Shown as the run's first lines.
   */
  toolProblems: readonly string[];
  tracePath?: string;
  /** The run's trace records as written (also when no trace file was asked for): what a restart re-uses. */
  records: TraceRecord[];
  /** The recorded completions the run is answered from first (`from`, or a restart's previous run), if any. */
  cache?: CachedModel;
  /** Closes the trace and stops MCP servers. */
  dispose(): Promise<void>;
}

const UNTRUSTED = 'this workspace is not trusted: nothing runs in Restricted Mode (trust the workspace to run programs)';

/**
 * What every run of one configuration shares: the validated options, the tool library and how to make the model and
 * the runner options. `art eval` runs many programs over one session; prepareRun makes one run of it.
 */
export interface RunSession {
  options: RunOptions;
  /** The folder relative paths resolve against. */
  root: string;
  tools: ToolRegistry;
  /** The endpoint's model (a LaunchError when baseURL or model is missing). */
  endpointModel(): ModelClient;
  /** The runner's options for one run with `model`, writing to `trace`. */
  runnerOptions(model: ModelClient, trace?: TraceSink): RunnerOptions;
  /** Stops MCP servers. */
  dispose(): Promise<void>;
}

/** Validates the configuration and loads the tools. */
export async function openSession(config: RunConfig): Promise<RunSession> {
  if (!config.trusted) throw new LaunchError(UNTRUSTED);
  const o = parseRunOptions(config);
  const root = resolve(o.cwd ?? process.cwd());
  const at = (p: string) => (isAbsolute(p) ? p : resolve(root, p));
  // Checked here, where the timeout enters the runner, whatever the caller validated: past 2^31-1 ms, setTimeout
  // would fire at once and every tool would time out.
  const timeoutProblem = o.toolTimeoutMs === undefined ? undefined : toolTimeoutProblem(o.toolTimeoutMs);
  if (timeoutProblem) throw new LaunchError(`toolTimeoutMs: ${timeoutProblem}`);
  let tools: ToolRegistry;
  try {
    tools = await createToolRegistry({
      workspaceRoot: root,
      trusted: true,
      toolsFile: o.tools ? at(o.tools) : undefined,
      pythonPath: o.pythonPath,
      pythonLimits: {
        timeoutMs: o.pythonTimeoutMs,
        memoryBytes: o.pythonMemoryMb * 2 ** 20,
        cpuSeconds: o.pythonCpuSeconds,
        maxOutputBytes: o.pythonMaxOutputBytes,
        maxFileBytes: o.pythonMaxFileBytes,
      },
      corpusDir: o.corpus,
      searchRerank: o.rerank && o.mode === 'generate',
      allowUnisolatedCode: o.allowUnisolatedCode,
      wordListPath: o.wordList ? at(o.wordList) : undefined,
    });
  } catch (e) {
    throw new LaunchError(`the tools could not be loaded: ${(e as Error).message}`);
  }
  const base = (trace?: TraceSink): Base => ({ tools, trace, config, options: o, root });
  let shared: OpenAIModel | undefined;
  return {
    options: o,
    root,
    tools,
    // One SDK client for the session's runs (`art eval` makes one model per run): each gets a sibling of the first.
    endpointModel: () => (shared ??= endpointModel(base())).sibling(),
    runnerOptions: (model, trace) => runnerOptions(base(trace), model),
    dispose: () => tools.dispose(),
  };
}

export async function prepareRun(config: RunConfig): Promise<PreparedRun> {
  const session = await openSession(config);
  const o = session.options;
  const { root, tools } = session;
  const at = (p: string) => (isAbsolute(p) ? p : resolve(root, p));
  const path = at(o.program);
  let text: string;
  let language: RunLanguage;
  try {
    text = config.text ?? readProgram(path);
    language = languageOf(path);
  } catch (e) {
    await session.dispose();
    throw e;
  }
  const mode = o.mode;
  // Reranking scores passages with the model's log-probabilities; the replay model has none.
  if (o.rerank && mode === 'replay' && language !== 'trace')
    config.log?.('search reranking is unavailable in replay mode (the recorded text has no log-probabilities): search keeps the BM25 order');

  let writer: TraceWriter | undefined;
  const tracePath = o.trace ? at(o.trace) : undefined;
  const dispose = async () => {
    writer?.close();
    await session.dispose();
  };
  try {
    if (tracePath) {
      try {
        writer = new TraceWriter(tracePath, config.apiKey ? [config.apiKey] : []);
      } catch (e) {
        throw new LaunchError(`${tracePath}: cannot write the trace: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
    }
    const memory = new MemoryTrace();
    const trace: TraceSink = { write: r => (writer?.write(r), memory.write(r)) };
    const cached = cacheRecords(config, o, at);
    const base: Base = { tools, trace, config, options: o, root, cached };
    const made =
      language === 'art'
        ? await makeArtRun(text, path, base)
        : language === 'agent'
          ? makeAgentRun(text, path, base)
          : language === 'multitool'
            ? makeCotRun(text, path, base)
            : makeTraceRun(text, path, base);
    const cache = made.model instanceof CachedModel ? made.model : undefined;
    return { ...made, language, path, text, toolProblems: [...tools.notes, ...tools.problems], tracePath, records: memory.records, cache, dispose };
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
  /** The validated options of `config`. */
  options: RunOptions;
  root: string;
  /** Records whose completions answer identical requests first. */
  cached?: TraceRecord[];
}

/** The records a run is answered from first: the `from` trace (limited by `until`), else a restart's previous run. */
function cacheRecords(config: RunConfig, o: RunOptions, at: (p: string) => string): TraceRecord[] | undefined {
  if (o.until !== undefined && !o.from) throw new LaunchError('until needs from: the trace (.jsonl) to take the steps before it from');
  if (!o.from) return config.cache;
  const file = at(o.from);
  let text: string;
  try {
    text = readTextFile(file);
  } catch (e) {
    throw new LaunchError(`${file}: cannot read the trace to re-run from: ${(e as Error).message}`);
  }
  const { records, errors } = parseTrace(text);
  if (errors.length) throw new LaunchError(`${file}:${errors[0].line}: ${errors[0].message} (give a trace written by an earlier run as from)`);
  if (!records.some(r => r.t === 'run')) throw new LaunchError(`${file}: not a run trace (it has no "run" record)`);
  return records;
}

/** The model, answered first from the recorded completions when there are any. */
function withCache(b: Base, make: () => ModelClient): ModelClient {
  // Re-running from a trace needs no endpoint until a request is not in it.
  if (!b.cached) return make();
  const model = b.options.baseURL || b.options.mode === 'replay' ? make() : undefined;
  const entries = cacheEntries(b.cached, b.options.from ? b.options.until : undefined);
  const run = b.cached.find(r => r.t === 'run');
  return new CachedModel(model, entries, { honoursStop: run?.t === 'run' ? run.honoursStop : undefined });
}

type Made = Pick<PreparedRun, 'runner' | 'unit' | 'title' | 'ownProgram' | 'model'>;

function runnerOptions(b: Base, model: ModelClient): RunnerOptions {
  const c = b.config;
  const o = b.options;
  return {
    model: c.wrapModel ? c.wrapModel(model) : model,
    tools: b.tools,
    temperature: o.temperature,
    maxTokens: o.maxTokens,
    pauseBeforeTool: o.pauseBeforeTool,
    pauseAfterTool: c.pauseAfterTool,
    pauseOnToolError: c.pauseOnToolError,
    stopOnEntry: o.stopOnEntry,
    breakpoints: c.breakpoints,
    sample: c.sample,
    toolTimeoutMs: o.toolTimeoutMs,
    workspaceRoot: b.root,
    trace: b.trace,
    log: c.log,
    constrainer:
      b.options.mode === 'generate' && b.options.constrain !== 'off'
        ? new Constrainer({ mode: b.options.constrain, baseURL: b.options.baseURL })
        : undefined,
  };
}

function endpointModel(b: Base): OpenAIModel {
  const o = b.options;
  if (!o.baseURL) throw new LaunchError('no endpoint: give the base URL of an OpenAI-compatible API (baseURL / --base-url), or run in replay mode');
  if (!o.model) throw new LaunchError('no model: give the model name the endpoint serves (model / --model)');
  return new OpenAIModel({ baseURL: o.baseURL, model: o.model, apiKey: b.config.apiKey, api: o.api, retry: b.config.retry });
}

async function makeArtRun(text: string, path: string, b: Base): Promise<Made> {
  // `%%` reads `%` in a library with a `%s` template (prompt.ts): lines and program indices are unchanged.
  const doc = libraryAsRun(parseArt(text));
  const index = pickProgram(doc, b.options.task);
  const program = doc.programs[index];
  if (!program.input) throw new LaunchError(`program ${index} (${programTitle(program, index)}) has no Input: line to run`);
  const input = b.options.input?.trim() ? b.options.input : undefined;
  let replay: ReplayModel | undefined;
  if (b.options.mode === 'replay') {
    if (!program.steps.length) throw new LaunchError(`program ${index} (${programTitle(program, index)}) has no steps to replay`);
    // A configured endpoint is where the run goes on once it departs from the recording.
    const live = b.options.baseURL && b.options.model ? endpointModel(b) : undefined;
    replay = ReplayModel.fromArtProgram(doc, index, name => b.tools.get(name) !== undefined, { chunkDelayMs: b.options.replayDelayMs, live });
  }
  const model = withCache(b, () => replay ?? endpointModel(b));
  const demonstrations = await selectForRun(doc, path, index, input, model, b);
  const runner = createArtRunner(
    { library: doc, program: index, task: input !== undefined ? { input } : undefined, demonstrations, inlineTriggers: b.options.inlineTriggers },
    runnerOptions(b, model),
  );
  if (replay) {
    // Step k of a replay of the file's own program is its Qk: a tool whose output now differs ends the recording.
    const own = input === undefined || input.trim() === program.input.text.trim();
    departOnEdit(runner, replay, b, own ? call => program.steps.find(s => s.number === call.step)?.answer?.text : undefined);
  }
  return {
    runner,
    unit: index,
    title: programTitle(program, index),
    ownProgram: b.options.mode === 'replay' && (input === undefined || input.trim() === program.input.text.trim()),
    model,
  };
}

/**
 * A replay follows its recording only while the run is what was recorded: the first change (an output set by hand,
 * an edited input, a skipped tool, or a tool that now gives another output than the recording has, because the code
 * or the tool changed) ends that, and the log and the trace say where the run went on live, or why it cannot go on.
 * Going back to the pause of that change or before it (step back, reverse continue, restart frame) undoes it: the run
 * follows the recording again; going back to a pause after it keeps the run live. `recorded` gives the recorded
 * output of a call, when the recording has one to compare with.
 */
function departOnEdit(runner: Runner, model: ReplayModel, b: Base, recorded?: (call: ToolCall) => string | undefined): void {
  /** The checkpoint of the pause the departing change was made at. */
  let departedAt = -1;
  const depart = (why: string, call: ToolCall) => {
    model.depart(why);
    departedAt = runner.checkpointList().at(-1)?.index ?? 0;
    const live = model.live;
    runner.writeTrace({ t: 'live', at: Date.now(), callId: call.id, why, model: live?.id ?? '' });
    b.config.log?.(
      live
        ? `The run departs from its recording here (${why}): from the next request on, ${live.id} writes the rest live.`
        : `The run departs from its recording here (${why}): replay mode has no model to go on with, so the run stops at the next request (set a model endpoint to go on live).`,
    );
  };
  runner.on('edit', ({ what, call }) => {
    if (model.departed !== null) return;
    const at = runner.protocol.kind === 'art' ? `#${call.step}` : `[${call.tool}]`;
    depart(
      what === 'output'
        ? `${at}'s output was set by hand`
        : what === 'input'
          ? `the input of [${call.tool}] was edited`
          : `[${call.tool}] was skipped`,
      call,
    );
  });
  if (recorded)
    runner.on('toolDone', ({ call }) => {
      // An output set by hand is an edit (above); a failed tool's output is the model's to write, here the recording's.
      if (model.departed !== null || call.inline || call.override !== undefined || call.skipped || call.error !== undefined) return;
      const was = recorded(call);
      if (was === undefined || call.output === undefined || foldWhitespace(was) === foldWhitespace(call.output)) return;
      const shown = (t: string) => quoteShort(foldWhitespace(t), 60);
      depart(`#${call.step} [${call.tool}] now gives ${shown(call.output)} where the recording has ${shown(was)}`, call);
    });
  runner.on('rewound', ({ checkpoint }) => {
    const why = model.departed;
    if (why === null || checkpoint > departedAt) return;
    model.rejoin();
    runner.writeTrace({ t: 'rejoin', at: Date.now(), why: `back before the change (${why})` });
    b.config.log?.(`Back before the change that left the recording (${why}): the run follows its recording again (no model requests).`);
  });
}

/**
 * The demonstrations by the run option `select` (`same-file`: every program of the file but the one run). The folder's
 * other .art files are the candidates of the other strategies; `best-cluster` tries each on the programs of the file
 * with the run program's task name (their inputs and answers), the run program left out.
 */
async function selectForRun(doc: ArtDocument, path: string, index: number, input: string | undefined, model: ModelClient, b: Base) {
  const strategy = b.options.select;
  if (strategy === 'same-file')
    return chooseDemonstrations({ strategy, libraries: [{ path: resolve(path), doc }], task: { input: '' }, exclude: [index] });
  if (b.options.mode === 'replay' && (strategy === 'llm' || strategy === 'best-cluster'))
    throw new LaunchError(`select "${strategy}" asks the model: run in generate mode (replay mode has no model to ask)`);
  const task = { ...taskOf(doc, index), ...(input !== undefined ? { input } : {}) };
  const program = doc.programs[index];
  const name = normalizeName(program.description?.taskName ?? '');
  const labelled = doc.programs
    .filter((p, i) => i !== index && name && normalizeName(p.description?.taskName ?? '') === name && p.input && p.ans)
    .map(p => ({ input: p.input!.text, target: p.ans!.text }));
  if (strategy === 'best-cluster' && !labelled.length)
    throw new LaunchError(
      `select "best-cluster" needs labelled examples: the file has no other program of the task "${program.description?.taskName ?? programTitle(program, index)}" (art eval --select best-cluster uses the dataset's)`,
    );
  try {
    return await chooseDemonstrations({
      strategy,
      libraries: folderLibraries(path, doc),
      task,
      model,
      labelled,
      runnerOptions: { ...runnerOptions({ ...b, trace: undefined }, model), log: undefined },
      exclude: [index],
      explain: line => b.config.log?.(`select ${strategy}: ${line}`),
    });
  } catch (e) {
    throw new LaunchError(`select "${strategy}": ${(e as Error).message}`);
  }
}

/** The prompt of a prepared run (what its first request sends), its demonstrations and why each was chosen. */
export function promptReportOf(run: PreparedRun, sample?: { index: number; of: number }): PromptReport {
  const r = run.runner;
  const generated = r.text.slice(r.protocol.header.length);
  return {
    kind: r.protocol.kind,
    title: run.language === 'trace' ? undefined : run.title,
    program: run.path,
    model: run.model.id,
    prompt: r.protocol.prompt,
    header: r.protocol.header,
    demonstrations: r.protocol.demonstrations,
    generated: generated || undefined,
    sample,
  };
}

/**
 * The prompt a run of `config` would send, without running it: the run is prepared (the task picked, the
 * demonstrations selected, as a run selects them) and disposed of. A trace (.jsonl) gives the prompt it recorded.
 */
export async function promptOfRun(config: RunConfig): Promise<PromptReport> {
  const program = resolve(config.cwd ?? process.cwd(), String(config.program ?? ''));
  if (config.program && languageOf(program) === 'trace') {
    const { records, errors } = parseTrace(config.text ?? readProgram(program));
    if (errors.length) throw new LaunchError(`${program}:${errors[0].line}: ${errors[0].message}`);
    try {
      return promptReportFromTrace(records, program);
    } catch (e) {
      throw new LaunchError(`${program}: ${(e as Error).message}`);
    }
  }
  const run = await prepareRun({ ...config, trace: undefined, stopOnEntry: false });
  try {
    return promptReportOf(run);
  } finally {
    await run.dispose();
  }
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

function makeAgentRun(text: string, path: string, b: Base): Made {
  const file = parseAgentFile(text);
  const errors = checkAgentFile(file).filter(d => d.severity === 'error');
  if (errors.length)
    throw new LaunchError(
      `the spec has ${errors.length} error(s), the first: ${errors[0].message} (fix them first; see the Problems view or 'art check')`,
    );
  const index = pickAgent(file, b.options.task);
  const agent = compileAgent(file.agents[index]);
  const title = file.agents[index].name || `agent ${index}`;
  const preamble = agentPreamble(path, b);
  let question = b.options.input?.trim();
  let model: ModelClient;
  if (b.options.mode === 'replay') {
    const recording = existing(transcriptBeside(path));
    if (!recording)
      throw new LaunchError(
        `replay mode replays a recorded run, and ${basename(path)} has none beside it: add ${basename(transcriptBeside(path))} (a transcript, the question on its first line), run in generate mode, or launch the .jsonl trace of an earlier run`,
      );
    const transcript = readCompanion(recording);
    const recorded = recordedQuestion(agent, transcript, recording);
    if (question && question !== recorded)
      throw new LaunchError(
        `${basename(recording)} answers the question "${recorded}": leave the input empty to replay it, or run in generate mode to ask another`,
      );
    question = recorded;
    const live = b.options.baseURL && b.options.model ? endpointModel(b) : undefined;
    try {
      model = ReplayModel.fromAgentTranscript(agent, transcript, {
        chunkDelayMs: b.options.replayDelayMs,
        live,
        id: `replay:${basename(recording)}`,
      });
    } catch (e) {
      throw new LaunchError(`${recording}: ${(e as Error).message}`);
    }
  } else {
    if (!question) throw new LaunchError(`an agent run needs an input: the question for ${title}`);
    model = withCache(b, () => endpointModel(b));
  }
  const runner = createAgentRunner({ agent, question, preamble }, runnerOptions(b, model));
  if (model instanceof ReplayModel) departOnEdit(runner, model, b);
  return { runner, unit: index, title, ownProgram: false, model };
}

/** The `preamble` option's file, else NAME.preamble.txt beside the spec, else none. */
function agentPreamble(specPath: string, b: Base): string | undefined {
  const given = b.options.preamble;
  const file = given ? (isAbsolute(given) ? given : resolve(b.root, given)) : existing(preambleBeside(specPath));
  if (!file) return undefined;
  if (given && !existing(file)) throw new LaunchError(`preamble: ${file} does not exist: give the text file of instructions and examples`);
  return readCompanion(file);
}

/** The question a transcript answers: its first line without the first state's prompt text (`[Question]`). */
function recordedQuestion(agent: CompiledAgent, transcript: string, path: string): string {
  const first = agent.initial.length ? agent.states[agent.positions[agent.initial[0]].state] : undefined;
  const line = transcript
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/, 1)[0]
    .trim();
  if (!first?.text || !line.startsWith(first.text))
    throw new LaunchError(`${path}: the first line must be the question, starting with ${JSON.stringify(first?.text ?? '')}`);
  return line.slice(first.text.length).trim();
}

function readCompanion(path: string): string {
  try {
    return readTextFile(path);
  } catch (e) {
    if (!(e instanceof TextFileError)) throw e;
    throw new LaunchError(`${path}: ${e.message}`);
  }
}

/** A MultiTool-CoT prompt (`NAME.cot.txt`): replay mode replays `NAME.answer.txt` beside it. */
function makeCotRun(text: string, path: string, b: Base): Made {
  const fill = (question: string) => {
    try {
      return fillCotPrompt(text, question);
    } catch (e) {
      throw new LaunchError(`${path}: ${(e as Error).message}`);
    }
  };
  let question = b.options.input?.trim();
  let model: ModelClient;
  if (b.options.mode === 'replay') {
    const recording = existing(answerBeside(path));
    if (!recording)
      throw new LaunchError(
        `replay mode replays a recorded answer, and ${basename(path)} has none beside it: add ${basename(answerBeside(path))} (the question on its first line, then the chain of thought), or run in generate mode`,
      );
    let recorded: ReturnType<typeof cotRecording>;
    try {
      recorded = cotRecording(readCompanion(recording), fill);
    } catch (e) {
      if (e instanceof LaunchError) throw e;
      throw new LaunchError(`${recording}: ${(e as Error).message}`);
    }
    if (question && question.replace(/\s+/g, ' ') !== recorded.question)
      throw new LaunchError(
        `${basename(recording)} answers the question "${recorded.question}": leave the input empty to replay it, or run in generate mode to ask another`,
      );
    question = recorded.question;
    const live = b.options.baseURL && b.options.model ? endpointModel(b) : undefined;
    model = new ReplayModel(recorded.script, { chunkDelayMs: b.options.replayDelayMs, live, id: `replay:${basename(recording)}` });
  } else {
    if (!question) throw new LaunchError(`a MultiTool-CoT run needs an input: the question that fills the prompt's %s`);
    model = endpointModel(b);
  }
  const runner = createMultiToolRunner(fill(question).spec, runnerOptions(b, model));
  if (model instanceof ReplayModel) departOnEdit(runner, model, b);
  return { runner, unit: 0, title: basename(path, COT_EXTENSION), ownProgram: false, model };
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
  const tools = traceReplayTools(
    records.map(r =>
      r.t === 'tool' && r.call.override !== undefined ? { ...r, call: { ...r.call, output: r.call.override, error: undefined } } : r,
    ),
  );
  const runner = new Runner(protocolFromTrace(records, tools), { ...runnerOptions(b, model), tools });
  const run = records.find(r => r.t === 'run');
  return { runner, unit: -1, title: `trace of ${run?.t === 'run' ? run.kind : 'a'} run`, ownProgram: false, model };
}

function languageOf(path: string): RunLanguage {
  if (isCotPrompt(path)) return 'multitool';
  const ext = extname(path).toLowerCase();
  if (ext === '.art') return 'art';
  if (ext === '.agent') return 'agent';
  if (ext === '.jsonl') return 'trace';
  throw new LaunchError(
    `${path}: cannot run a '${ext || 'file without extension'}' file: give a task library (.art), an agent spec (.agent), a MultiTool-CoT prompt (${COT_EXTENSION}) or a run trace (.jsonl)`,
  );
}

function readProgram(path: string): string {
  try {
    return readTextFile(path);
  } catch (e) {
    if (!(e instanceof TextFileError)) throw e;
    throw new LaunchError(`${path}: ${e.message}${e.kind === 'directory' ? ', not a program file' : ''}`);
  }
}
