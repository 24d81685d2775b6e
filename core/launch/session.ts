// What every run of one configuration shares (a session: the validated options, the tool library, the model and
// the runner options), and what a prepared run is. The key itself comes from the caller (apiKey.ts) and is never
// traced. Every failure is a LaunchError with one line that says what to fix.
import { isAbsolute, resolve } from 'node:path';
import type { FileLanguage } from '../common/language';
import type { CachedModel } from '../replay/cachedModel';
import { OpenAIModel } from '../model/openai';
import { ChatContinuationModel, NO_LOGPROBS_NOTE, type ChatBackend } from '../model/chatContinuation';
import { redactedModel } from './redactedModel';
import { redactUrl } from '../common/redact';
import { LocalModel } from '../model/localModel';
import { capabilitiesOf, hasLiveModel as liveRule } from './modelSources';
import type { ModelClient } from '../model/types';
import type { RetryPolicy } from '../model/retry';
import { Constrainer } from '../protocols/constraints';
import { artToolProgram } from '../protocols/artTools';
import type { Runner } from '../engine/runner';
import type { RunnerOptions } from '../engine/runnerOptions';
import type { TraceRecord, TraceSink } from '../trace/schema';
import { toolTimeoutProblem } from '../tools/common';
import { createToolRegistry, type ToolRegistry } from '../tools/registry';
import { LaunchError, parseRunOptions, type RunOptions, type RunOptionsInput } from './options';
import { DEFAULT_SERVICE_NAME, telemetryFromEnv, tracesUrl } from '../telemetry/config';
import type { Telemetry } from '../telemetry/otlp';
import type { RunInfo } from '../telemetry/spans';

/** The pauses, breakpoints and log only the shells set pass straight through to the runner. */
type PassedRunnerOptions = Pick<RunnerOptions, 'pauseAfterTool' | 'pauseOnToolError' | 'breakpoints' | 'log' | 'sample'>;

/**
 * What a run needs: the declared run options (core/launch/options.ts: `program`, `mode`, `rerank`, ...; relative
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
    /**
     * The chat model the caller has, with `modelSource: 'vscode'` (VS Code's Language Model API,
     * client/lm/vscodeModel.ts): the run's live model instead of the endpoint.
     */
    chatModel?: ChatBackend;
    /** When set, the tool file's tools (commands, HTTP tools, MCP servers) start nothing and answer with this (registry.ts). */
    userToolsRefused?: string;
    /**
     * The environment whose OTEL_EXPORTER_OTLP_* variables and OTEL_SERVICE_NAME configure the runs' telemetry when
     * the `otlp` option does not (the CLI's; VS Code has its art.telemetry.* settings): core/telemetry/config.ts.
     */
    telemetryEnv?: NodeJS.ProcessEnv;
  };

export type RunLanguage = FileLanguage;

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
  /** The Python sandbox's isolation level and what it does not isolate: information, shown as a run's first lines. */
  toolNotes: readonly string[];
  /** The problems of the tool file and MCP servers (the run goes on without those tools), shown after the notes. */
  toolProblems: readonly string[];
  tracePath?: string;
  /** The run's trace records as written (also when no trace file was asked for): what a restart re-uses. */
  records: TraceRecord[];
  /** The recorded completions the run is answered from first (`from`, or a restart's previous run), if any. */
  cache?: CachedModel;
  /** Closes the trace and stops MCP servers. Never rejects: each failure is told once to the run's log. */
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
  /** Where the runs' OpenTelemetry spans go, when telemetry is configured (the `otlp` option, OTEL_* variables). */
  telemetry?: Telemetry;
  /** Stops MCP servers. Never rejects: a failure is told once to the run's log. */
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
      // Reranking needs the model's log-probabilities of a given text (chatModelNotes says when the source has none).
      searchRerank: o.rerank && o.mode === 'generate' && capabilitiesOf(o).promptLogprobs,
      allowUnisolatedCode: o.allowUnisolatedCode,
      wordListPath: o.wordList ? at(o.wordList) : undefined,
      userToolsRefused: config.userToolsRefused,
    });
  } catch (e) {
    throw new LaunchError(`the tools could not be loaded: ${(e as Error).message}`);
  }
  const launchWith = (trace?: TraceSink): Launch => ({ tools, trace, config, options: o, root });
  const telemetry = await openTelemetry(o, config);
  let shared: OpenAIModel | undefined;
  return {
    options: o,
    root,
    tools,
    // One SDK client for the session's runs (`art eval` makes one model per run): each gets a sibling of the first.
    endpointModel: () =>
      o.modelSource === 'endpoint' ? redactedModel((shared ??= openEndpoint(launchWith())).sibling(), [config.apiKey]) : endpointModel(launchWith()),
    runnerOptions: (model, trace) => runnerOptions(launchWith(trace), model),
    telemetry,
    dispose: async () => {
      try {
        await tools.dispose();
      } catch (e) {
        config.log?.(`tools: stopping the MCP servers failed: ${(e as Error).message} (a server process may be left running)`);
      }
    },
  };
}

/**
 * The telemetry the options configure: `otlp` (a collector's base or traces URL), else the OTLP variables of
 * `telemetryEnv`; none when neither says where (nothing is sent). The SDK is loaded only then. A bad endpoint is one
 * line and no telemetry: the run goes on.
 */
async function openTelemetry(o: RunOptions, c: RunConfig): Promise<Telemetry | undefined> {
  const env = telemetryFromEnv(c.telemetryEnv ?? {});
  const url = o.otlp ? tracesUrl(o.otlp) : env.endpoint;
  if (!url) return undefined;
  try {
    const { telemetryFor } = await (otlpModule ??= import('../telemetry/otlp'));
    return telemetryFor(
      {
        url,
        headers: env.headers,
        serviceName: env.serviceName ?? DEFAULT_SERVICE_NAME,
        resource: env.resource,
        content: o.otlpContent || env.content,
      },
      c.log,
    );
  } catch (e) {
    c.log?.(redactUrl(`telemetry: ${url}: ${(e as Error).message} (no spans are sent; give an http:// or https:// OTLP endpoint)`, url));
    return undefined;
  }
}

/** The SDK wiring, once a run asked for telemetry (never loaded otherwise). */
let otlpModule: Promise<typeof import('../telemetry/otlp')> | undefined;

/**
 * Sends the spans the process still holds (waiting at most the bound core/telemetry/otlp.ts sets, EXIT_FLUSH_MS) and
 * stops its telemetry: the end of a command. Nothing to do when no run asked for telemetry.
 */
export async function endTelemetry(): Promise<void> {
  if (otlpModule) await (await otlpModule).shutdownTelemetry();
}

/** What the spans of a run say that its trace does not: the program, the mode, the API, where the model is. */
export function runInfo(o: RunOptions, title: string, file?: string, task?: string): RunInfo {
  const provider = o.mode === 'replay' ? 'replay' : o.modelSource === 'endpoint' ? 'openai' : o.modelSource;
  const model = provider === 'openai' ? o.model : provider === 'vscode' ? o.vscodeModel : provider === 'local' ? o.modelFile : undefined;
  return { title, file, mode: o.mode, api: o.api, provider, ...(model ? { model } : {}), ...(task !== undefined ? { task } : {}) };
}

/** What the builders of a run (one per language) are given. */
export interface Launch {
  tools: ToolRegistry;
  trace: TraceSink | undefined;
  config: RunConfig;
  /** The validated options of `config`. */
  options: RunOptions;
  root: string;
  /** Records whose completions answer identical requests first. */
  cached?: TraceRecord[];
}

/** What a builder makes; prepareRun adds the rest of the PreparedRun. */
export type Made = Pick<PreparedRun, 'runner' | 'unit' | 'title' | 'ownProgram' | 'model'>;

/** The runner's options for one run with `model`. */
export function runnerOptions(launch: Launch, model: ModelClient): RunnerOptions {
  const o = launch.options;
  return {
    model: launch.config.wrapModel ? launch.config.wrapModel(model) : model,
    tools: launch.tools,
    temperature: o.temperature,
    maxTokens: o.maxTokens,
    noProgressLimit: o.noProgressLimit,
    ...(o.maxRequests !== undefined ? { maxRequests: o.maxRequests } : {}),
    pauseBeforeTool: o.pauseBeforeTool,
    pauseAfterTool: launch.config.pauseAfterTool,
    pauseOnToolError: launch.config.pauseOnToolError,
    stopOnEntry: o.stopOnEntry,
    breakpoints: launch.config.breakpoints,
    sample: launch.config.sample,
    toolTimeoutMs: o.toolTimeoutMs,
    workspaceRoot: launch.root,
    trace: launch.trace,
    log: launch.config.log,
    // A source that takes no decoding constraint is said once in the notes (chatModelNotes).
    constrainer: constrainerOf(launch),
  };
}

/** The run's decoding constraints, in the dialect its model source takes (none when it takes none). */
function constrainerOf(launch: Launch): Constrainer | undefined {
  const o = launch.options;
  const caps = capabilitiesOf(o);
  if (o.mode !== 'generate' || o.constrain === 'off' || !caps.constraints) return undefined;
  // A source that enforces one dialect itself (the local model: llama.cpp's grammar) needs no probe in `auto`.
  const mode = o.constrain === 'auto' && caps.constraints !== 'probe' ? caps.constraints : o.constrain;
  return new Constrainer({ mode, baseURL: o.baseURL, log: launch.config.log, exact: caps.exactGrammar });
}

/** Whether a live model is configured (the one rule: core/launch/modelSources.ts). */
export function hasLiveModel(launch: Launch): boolean {
  return liveRule(launch.options, launch.config.chatModel);
}

/**
 * The run's live model: the caller's chat model with `modelSource: 'vscode'`, else the endpoint's (a LaunchError when
 * baseURL or model is missing), its output redacted of the key: an endpoint that echoes it has it neither shown nor
 * recorded (core/launch/redactedModel.ts).
 */
export function endpointModel(launch: Launch): ModelClient {
  if (launch.options.modelSource === 'vscode') {
    const chat = launch.config.chatModel;
    if (!chat)
      throw new LaunchError(
        'the model source is "vscode" (a model of VS Code\'s Language Model API) but none is available: choose one in the status bar\'s run mode item, or set modelSource "endpoint"',
      );
    // ART programs go over the model's function calling when it has it (the tool library offered as functions).
    return redactedModel(new ChatContinuationModel(chat, artToolProgram(launch.tools.catalog().all())), [launch.config.apiKey]);
  }
  if (launch.options.modelSource === 'local') return localModel(launch);
  return redactedModel(openEndpoint(launch), [launch.config.apiKey]);
}

/**
 * The caller's chat model named by `wanted` (VS Code's Language Model API: art.model.vscodeModel); rejects with a
 * one-line reason when there is none. `justification` is what the consent dialog says the requests are for.
 */
export type ChatModelProvider = (wanted: string, justification: string) => Promise<ChatBackend>;

/**
 * The caller's chat model when the run's model source is VS Code's: a run that generates cannot start without it
 * (a LaunchError saying why); a replay goes on without one (it says so if it departs and needs the model).
 */
export async function callerChatModel(
  o: Pick<RunOptions, 'modelSource' | 'vscodeModel' | 'mode'>,
  provide: ChatModelProvider | undefined,
  justification: string,
): Promise<ChatBackend | undefined> {
  if (o.modelSource !== 'vscode' || !provide) return undefined;
  try {
    return await provide(o.vscodeModel, justification);
  } catch (e) {
    if (o.mode === 'generate') throw new LaunchError((e as Error).message);
    return undefined;
  }
}

/**
 * What the run's model source cannot do, said once as a run's or an evaluation's first lines (from its
 * capabilities: core/launch/modelSources.ts): no stop sequences, no log-probabilities, no decoding constraint; for
 * VS Code's models also whether programs go over function calling. None for an endpoint (a probe says what it takes).
 */
export function chatModelNotes(o: Pick<RunOptions, 'modelSource' | 'constrain'>, chat: ChatBackend | undefined): string[] {
  if (o.modelSource === 'endpoint' || (o.modelSource === 'vscode' && !chat)) return [];
  const caps = capabilitiesOf(o);
  const lines =
    chat && o.modelSource === 'vscode'
      ? [
          `model: ${chat.id} (VS Code's Language Model API), ${
            chat.callsFunctions ? 'ART programs over its function calling' : 'programs continued over chat (it calls no functions)'
          }${caps.stopSequences ? '' : '; no stop sequences: they are applied as the reply streams'}`,
        ]
      : [];
  if (!caps.generatedLogprobs) lines.push(`model: ${NO_LOGPROBS_NOTE}`);
  if (!caps.constraints && o.constrain !== 'off')
    lines.push(`model: constrain "${o.constrain}" is not applied: the model takes no decoding constraint (the monitor still checks every step)`);
  return lines;
}

/** The local model of `modelFile`: the process's one copy of it, loaded at the first request (core/model/localModel.ts). */
function localModel(launch: Launch): LocalModel {
  const o = launch.options;
  if (!o.modelFile)
    throw new LaunchError('the model source is "local" but no model file is given: give a GGUF file (modelFile / --model-file / art.model.file)');
  return new LocalModel({
    file: isAbsolute(o.modelFile) ? o.modelFile : resolve(launch.root, o.modelFile),
    contextSize: o.contextSize || undefined,
    idleReleaseMs: o.idleReleaseMs,
    gpu: o.gpu,
    seed: (o.seed ?? 0) + (launch.config.sample?.index ?? 0) * 1_000_003,
    log: launch.config.log,
  });
}

function openEndpoint(launch: Launch): OpenAIModel {
  const o = launch.options;
  if (!o.baseURL)
    throw new LaunchError(
      'no model: give a local GGUF model file (modelFile / --model-file), or the base URL and model name of an OpenAI-compatible endpoint (baseURL and model / --base-url and --model)',
    );
  if (!o.model) throw new LaunchError('no model: give the model name the endpoint serves (model / --model)');
  // The tools API offers the tool library (built-in and workspace tools) as functions.
  const toolProgram = o.api === 'tools' ? artToolProgram(launch.tools.catalog().all()) : undefined;
  return new OpenAIModel({
    baseURL: o.baseURL,
    model: o.model,
    apiKey: launch.config.apiKey,
    api: o.api,
    toolProgram,
    requestTimeoutMs: o.requestTimeoutMs,
    retry: launch.config.retry,
  });
}
