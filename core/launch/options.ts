// The run options, declared once: name, type (a zod schema, with its default), description, and where each one
// appears: as a launch attribute (package.json's configurationAttributes, written by scripts/gen-manifest.mjs), as
// an `art run` flag (parsed and listed in the help by core/cli/run.ts), and as a VS Code setting (`art.<key>`, also
// written into package.json; client/runner/configuration.ts fills a launch configuration's missing options from
// them). RunConfig (launch.ts) and the adapter's launch arguments are typed from it, and every shell validates
// through parseRunOptions, so a bad value gives one line naming the option and what it expects.
import { publicURL, urlSecrets } from '../common/redact';
import { z } from 'zod';
import { CONSTRAIN_MODES } from '../protocols/constraints';
import { SELECT_STRATEGIES } from '../prompt/selection';
import { DEFAULT_WORD_LIST } from '../tools/lookup';
import { TOOLS_FILE_NAME } from '../tools/toolsFile';
import { DEFAULT_MAX_TOKENS } from '../model/types';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../model/bounds';
import { DEFAULT_IDLE_RELEASE_MS, DEFAULT_LOCAL_CONTEXT, GPU_CHOICES } from '../model/defaultModel';
import { DEFAULT_NO_PROGRESS_LIMIT } from '../engine/progress';
import { DEFAULT_LIMITS, DEFAULT_PYTHON } from '../tools/sandbox';
import { withoutUndefined } from '../common/text';

/** A launch configuration or command line that cannot run: the message is one line that says what to fix. */
export class LaunchError extends Error {}

export interface OptionSetting {
  /** The key under `art.` (`model.temperature` is the setting `art.model.temperature`). */
  key: string;
  scope: 'window' | 'resource' | 'machine' | 'machine-overridable';
  description: string;
  /** The setting's default when it differs from the option's (a setting needs one; '' means "not set"). */
  default?: unknown;
  /** Fill the launch option only when the setting differs from its default (the default is a file that may be absent). */
  onlyIfChanged?: boolean;
}

export interface OptionCli {
  /** The flag without `--`. */
  flag: string;
  /** What the help shows after the flag (`N`, `FILE`); none for a boolean flag. */
  arg?: string;
}

export interface RunOptionSpec<S extends z.ZodType = z.ZodType> {
  schema: S;
  /** One sentence, shared by the launch schema, the CLI help and the setting's description. */
  description: string;
  /** What a valid value is, when the schema alone does not say it well (a pattern). */
  expect?: string;
  /** Whether it is a launch attribute (default true). */
  launch?: boolean;
  /** JSON schema additions for the launch attribute (VS Code's `${file}` defaults, enum descriptions). */
  manifest?: Record<string, unknown>;
  /** The `art run` flag; none: not settable from the command line. */
  cli?: OptionCli;
  setting?: OptionSetting;
}

const option = <S extends z.ZodType>(schema: S, spec: Omit<RunOptionSpec<S>, 'schema'>): RunOptionSpec<S> => ({ schema, ...spec });
const path = () => z.string().optional();
const count = (min: number) => z.int().min(min).max(Number.MAX_SAFE_INTEGER);

export const RUN_OPTIONS = {
  program: option(z.string().min(1), {
    description: 'The task library (.art), agent spec (.agent), MultiTool-CoT prompt (.cot.txt) or run trace (.jsonl) to run.',
    manifest: { default: '${file}' },
  }),
  task: option(z.union([z.string(), count(0)]).optional(), {
    description:
      'ART: the task name or 0-based program index to run; agents: the agent name or index. Default: the program or agent at the cursor (F5), else the first.',
    cli: { flag: 'task', arg: 'T' },
  }),
  input: option(z.string().optional(), {
    description: "ART: a new input for the program (default: the program's own input). Agents: the question (asked for when missing in VS Code).",
    cli: { flag: 'input', arg: 'TEXT' },
  }),
  preamble: option(path(), {
    description:
      'Agents: a text file sent before the question (instructions and few-shot examples, e.g. the ReACT prompt). Default: NAME.preamble.txt beside NAME.agent when there is one.',
    cli: { flag: 'preamble', arg: 'FILE' },
  }),
  mode: option(z.enum(['generate', 'replay']).default('generate'), {
    description:
      'Generate with the model endpoint, or replay the model text recorded in the program (an agent: NAME.transcript.txt beside NAME.agent; a MultiTool-CoT prompt: NAME.answer.txt beside NAME.cot.txt); tools run again, no endpoint. In VS Code the default is "replay" until art.model.name is set; art run replays unless an endpoint (base URL and model) is given.',
    manifest: {
      enumDescriptions: [
        'Generate with the model endpoint (baseURL, model).',
        'Replay the model text recorded in the program; tools run again; no endpoint needed.',
      ],
    },
    cli: { flag: 'mode', arg: 'generate|replay' },
  }),
  baseURL: option(
    z
      .string()
      .regex(/^https?:\/\/\S+$/)
      .optional(),
    {
      description: 'Base URL of the OpenAI-compatible API, e.g. http://127.0.0.1:8000/v1.',
      expect: 'an http:// or https:// URL',
      cli: { flag: 'base-url', arg: 'URL' },
      setting: {
        key: 'model.baseURL',
        scope: 'machine-overridable',
        default: 'http://127.0.0.1:8000/v1',
        description:
          'Base URL of the OpenAI-compatible endpoint (OpenAI, Azure, vLLM, llama.cpp server, Ollama, LM Studio) used to run programs and agents.',
      },
    },
  ),
  model: option(z.string().optional(), {
    description: 'The model name the endpoint serves.',
    cli: { flag: 'model', arg: 'M' },
    setting: { key: 'model.name', scope: 'resource', default: '', description: 'Model name sent to the endpoint.' },
  }),
  api: option(z.enum(['completions', 'chat', 'tools']).default('completions'), {
    description:
      'The completions API (stop sequences honoured), the chat API (the partial program is continued in a message) or, for ART programs, chat function calling ("tools": each tool is offered as a function; a call becomes the step Qk: [tool] instruction and its output goes back as a tool message).',
    manifest: {
      enumDescriptions: [
        'The completions API: the model continues the program text; stop sequences honoured.',
        'The chat API: the program so far in a message, the reply made a bare continuation.',
        'ART programs over chat function calling: the tools offered as functions, a call written as a tool step, its output sent back as a tool message.',
      ],
    },
    cli: { flag: 'api', arg: 'completions|chat|tools' },
    setting: {
      key: 'model.api',
      scope: 'resource',
      description:
        'The API of the endpoint: "completions" (stop sequences honoured), "chat" (the program so far in a message, the reply made a bare continuation) or "tools" (ART programs over chat function calling).',
    },
  }),
  modelSource: option(z.enum(['endpoint', 'vscode', 'local']).default('endpoint'), {
    description:
      "Where a live run's model comes from: the OpenAI-compatible endpoint (baseURL, model), a chat model of VS Code's Language Model API (vscodeModel; GitHub Copilot's or any extension's), which takes no stop sequences, log-probabilities or decoding constraints (ART programs go over its function calling when it has it, over the chat continuation otherwise), or a local GGUF model run in-process (modelFile; no key, no server). On the command line, --model-file chooses the local model.",
    manifest: {
      enumDescriptions: [
        'The OpenAI-compatible endpoint of baseURL and model.',
        "A chat model of VS Code's Language Model API (vscodeModel), asked with VS Code's consent.",
        'A local GGUF model file (modelFile), run in-process by llama.cpp: no key, no server.',
      ],
    },
    setting: {
      key: 'model.source',
      scope: 'window',
      default: 'endpoint',
      description:
        'Where live runs, tests and evaluations started in VS Code get their model: "endpoint" (art.model.baseURL, art.model.name), "vscode", a chat model of VS Code\'s Language Model API (art.model.vscodeModel), or "local", a GGUF model file run in-process (art.model.file). The status bar\'s run mode item chooses it.',
    },
  }),
  modelFile: option(path(), {
    description:
      'A local GGUF model file, run in-process by llama.cpp (node-llama-cpp): the run generates with it, with no key and no server (modelSource "local"; on the command line, giving the file chooses it).',
    cli: { flag: 'model-file', arg: 'FILE' },
    setting: {
      key: 'model.file',
      // A workspace must not make the editor load a file it names: only the user's own settings choose it.
      scope: 'machine',
      default: '',
      description: 'With art.model.source "local": the GGUF model file run in-process (the run mode item chooses or downloads one).',
    },
  }),
  contextSize: option(count(16).optional(), {
    description: `Local model: tokens of context (default: the model's own, at most ${DEFAULT_LOCAL_CONTEXT}); a longer prompt is refused in one line naming both sizes.`,
    cli: { flag: 'context-size', arg: 'N' },
    setting: {
      key: 'model.contextSize',
      scope: 'machine-overridable',
      default: 0,
      onlyIfChanged: true,
      description: `Local model: tokens of context (0: the model's own, at most ${DEFAULT_LOCAL_CONTEXT}).`,
    },
  }),
  idleReleaseMs: option(count(0).default(DEFAULT_IDLE_RELEASE_MS), {
    description:
      'Local model: milliseconds unused after which the model is released from memory (loaded again by the next run; art mcp keeps it between calls).',
    launch: false,
    cli: { flag: 'idle-release-ms', arg: 'MS' },
    setting: {
      key: 'model.idleReleaseMs',
      scope: 'machine-overridable',
      description: 'Local model: milliseconds unused after which the loaded model is released from memory (the next run loads it again).',
    },
  }),
  gpu: option(z.enum(GPU_CHOICES).default('auto'), {
    description:
      'Local model: where llama.cpp runs it: "auto" uses the GPU its binary has when one is usable (Metal on Apple silicon; CUDA or Vulkan only with a GPU build of node-llama-cpp) and the CPU otherwise, which the loading line says; "cpu" never looks for a GPU.',
    manifest: {
      enumDescriptions: ["The GPU of llama.cpp's binary when one is usable, else the CPU.", 'The CPU only.'],
    },
    cli: { flag: 'gpu', arg: 'auto|cpu' },
    setting: {
      key: 'model.gpu',
      scope: 'machine-overridable',
      description:
        'Local model: "auto" runs it on the GPU of llama.cpp\'s binary when one is usable (Metal on Apple silicon), else on the CPU; "cpu" never uses a GPU.',
    },
  }),
  seed: option(count(0).optional(), {
    description:
      'Local model: the sampling seed with a temperature above 0 (each request adds its number, each sample of self-consistency its index), so a run is repeatable.',
    cli: { flag: 'seed', arg: 'N' },
  }),
  vscodeModel: option(z.string().default(''), {
    description:
      'VS Code only, with modelSource "vscode": the Language Model API model, by id, family or name (empty: the first one VS Code offers).',
    setting: {
      key: 'model.vscodeModel',
      scope: 'window',
      description:
        'With art.model.source "vscode": the model by id, family or name (empty: the first one VS Code offers). The status bar\'s run mode item lists them.',
    },
  }),
  apiKeyEnv: option(
    z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
      .default('OPENAI_API_KEY'),
    {
      description:
        'Name of the environment variable holding the API key (in VS Code, used when no key was stored with "ART: Set API Key"). The key itself is never an option.',
      expect: 'an environment variable name',
      cli: { flag: 'api-key-env', arg: 'NAME' },
      setting: {
        key: 'model.apiKeyEnv',
        scope: 'machine-overridable',
        description: 'Name of the environment variable that holds the API key. The key itself never goes in settings, logs or traces.',
      },
    },
  ),
  // The same defaults everywhere (a run, an evaluation; the CLI, VS Code, MCP), so two evaluations of one library
  // differ in nothing else: temperature 0, DEFAULT_MAX_TOKENS.
  temperature: option(z.number().min(0).max(2).default(0), {
    description: 'Sampling temperature.',
    cli: { flag: 'temperature', arg: 'N' },
    setting: { key: 'model.temperature', scope: 'resource', default: 0, description: 'Sampling temperature for program and agent runs.' },
  }),
  maxTokens: option(count(1).default(DEFAULT_MAX_TOKENS), {
    description: 'Maximum tokens per request.',
    cli: { flag: 'max-tokens', arg: 'N' },
    setting: {
      key: 'model.maxTokens',
      scope: 'resource',
      default: DEFAULT_MAX_TOKENS,
      description: 'Maximum tokens the model may generate per request.',
    },
  }),
  requestTimeoutMs: option(
    z
      .int()
      .min(1)
      .max(2 ** 31 - 1)
      .default(DEFAULT_REQUEST_TIMEOUT_MS),
    {
      description:
        'The longest one model request may take, from its start to its last byte (retries and resumed streams included), in milliseconds; a request past it is stopped and the run ends with one line saying so.',
      expect: 'a whole number of milliseconds between 1 and 2147483647',
      cli: { flag: 'request-timeout-ms', arg: 'MS' },
      setting: {
        key: 'model.requestTimeoutMs',
        scope: 'resource',
        description:
          'The longest one model request may take, from its start to its last byte (retries and resumed streams included), in milliseconds.',
      },
    },
  ),
  maxRequests: option(count(1).optional(), {
    description:
      "The most model requests a run may make (tools that ask the model included in none); past it the run ends (limit). Default: the runner's own bound. Useful with a small local model that repeats a step.",
    cli: { flag: 'max-requests', arg: 'N' },
  }),
  noProgressLimit: option(count(1).default(DEFAULT_NO_PROGRESS_LIMIT), {
    description:
      'Requests in a row that add nothing to the program (an empty reply, only a restatement of the text so far, the same text or monitor correction as the request before) after which the run ends (no-progress).',
    cli: { flag: 'no-progress-limit', arg: 'N' },
  }),
  tools: option(path(), {
    description: `The workspace tool file (default: ${TOOLS_FILE_NAME} when present).`,
    cli: { flag: 'tools', arg: 'FILE' },
    setting: {
      key: 'tools.file',
      scope: 'resource',
      default: TOOLS_FILE_NAME,
      onlyIfChanged: true,
      description: 'Workspace file declaring user tools (commands, HTTP endpoints, MCP servers), relative to the workspace folder.',
    },
  }),
  trace: option(path(), {
    description:
      'Where to write the run\'s JSONL trace (VS Code default: a new file in the runs folder, art.runs.folder; "ART: Open Trace" shows it).',
    cli: { flag: 'trace', arg: 'FILE' },
  }),
  otlp: option(
    z
      .string()
      .regex(/^https?:\/\/\S+$/)
      .optional(),
    {
      description:
        "Send each run as an OpenTelemetry trace (GenAI semantic conventions) to this OTLP/HTTP endpoint: a collector's base URL (/v1/traces is added) or its traces URL. The CLI also reads OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_EXPORTER_OTLP_HEADERS and OTEL_SERVICE_NAME (docs/telemetry.md).",
      expect: 'an http:// or https:// URL',
      cli: { flag: 'otlp', arg: 'URL' },
      setting: {
        key: 'telemetry.endpoint',
        scope: 'machine-overridable',
        default: '',
        description:
          "OTLP/HTTP endpoint runs are sent to as OpenTelemetry traces (Phoenix, Langfuse, Jaeger, Tempo; docs/telemetry.md): a collector's base URL or its /v1/traces URL. Empty (the default): nothing is sent anywhere.",
      },
    },
  ),
  otlpContent: option(z.boolean().default(false), {
    description:
      'With otlp: also put the prompts, completions, tool inputs and outputs and the answer into the spans (off: only names, counts, timings and scores; a key never).',
    cli: { flag: 'otlp-content' },
    setting: {
      key: 'telemetry.content',
      scope: 'machine-overridable',
      description:
        'Put the prompts, completions, tool inputs and outputs into the OpenTelemetry spans sent to art.telemetry.endpoint (off: only names, counts, timings and scores; a key never).',
    },
  }),
  pauseBeforeTool: option(z.boolean().default(false), {
    description: 'Also stop before each tool runs, with its input editable (a stop after each tool call always happens).',
  }),
  inlineTriggers: option(z.boolean().default(false), {
    description:
      'ART: also honour MultiTool-CoT triggers (`3 * 4 <<Calculator>>`) inside the answers the model writes (steps that are not tools): the run stops at the trigger like at a tool call, the tool runs and its output is written after it; when the tool fails, the model writes the output.',
    cli: { flag: 'inline-triggers' },
    setting: {
      key: 'tools.inlineTriggers',
      scope: 'resource',
      description:
        'In ART programs, also run the tools that MultiTool-CoT triggers (`3 * 4 <<Calculator>>`) call inside the answers the model writes; the run stops there like at a tool call. Off by default.',
    },
  }),
  stopOnEntry: option(z.boolean().default(false), {
    description: 'Stop before the first request to the model.',
  }),
  trusted: option(z.boolean().default(true), {
    description: 'Standalone adapter only (dist/debugAdapter.js): whether anything may run. In VS Code the workspace trust decides.',
  }),
  cwd: option(path(), {
    description: "Workspace folder the relative paths resolve against (default: the file's workspace folder; `art run`: the current directory).",
    manifest: { default: '${workspaceFolder}' },
    cli: { flag: 'cwd', arg: 'DIR' },
  }),
  pythonPath: option(path(), {
    description: `Python interpreter of the code tools (default ${DEFAULT_PYTHON}).`,
    cli: { flag: 'python', arg: 'PATH' },
    setting: {
      key: 'python.path',
      scope: 'machine-overridable',
      default: DEFAULT_PYTHON,
      description: 'Python interpreter for the code-execution tools (needs sympy and numpy).',
    },
  }),
  pythonTimeoutMs: option(count(1).default(DEFAULT_LIMITS.timeoutMs), {
    description: 'Python sandbox: wall-clock milliseconds before the code is stopped (toolTimeoutMs, when set, wins).',
    cli: { flag: 'python-timeout-ms', arg: 'MS' },
    setting: { key: 'python.timeoutMs', scope: 'resource', description: 'Milliseconds a code-execution step may run before it is stopped.' },
  }),
  pythonMemoryMb: option(count(16).default(DEFAULT_LIMITS.memoryBytes / 2 ** 20), {
    description: 'Python sandbox: address-space limit in MiB.',
    cli: { flag: 'python-memory-mb', arg: 'MB' },
    setting: { key: 'python.memoryMb', scope: 'resource', description: 'Memory (address space, MiB) a code-execution step may use.' },
  }),
  pythonCpuSeconds: option(count(1).optional(), {
    description: 'Python sandbox: CPU seconds (default: the timeout rounded up).',
    cli: { flag: 'python-cpu-seconds', arg: 'S' },
  }),
  pythonMaxOutputBytes: option(count(1).default(DEFAULT_LIMITS.maxOutputBytes), {
    description: 'Python sandbox: cap on stdout and on stderr, each, in bytes; past it the code is stopped.',
    cli: { flag: 'python-output-bytes', arg: 'N' },
    setting: {
      key: 'python.maxOutputBytes',
      scope: 'resource',
      description: 'Bytes a code-execution step may print (stdout and stderr each) before it is stopped.',
    },
  }),
  pythonMaxFileBytes: option(count(0).default(DEFAULT_LIMITS.maxFileBytes), {
    description: 'Python sandbox: the largest file the code may write, in bytes.',
    cli: { flag: 'python-file-bytes', arg: 'N' },
  }),
  allowUnisolatedCode: option(z.boolean().default(false), {
    description:
      'Run model-written Python code even where the sandbox can make no network namespace (no isolation at all: the code can read your files and use the network); refused otherwise, and said in every run when allowed.',
    cli: { flag: 'allow-unisolated-code' },
    setting: {
      key: 'python.allowUnisolatedCode',
      scope: 'machine',
      description:
        'Run model-written Python code even where the sandbox can make no network namespace (containers with the default seccomp profile, macOS, Windows): the code can then read your files and use the network. Refused otherwise. See docs/security.md.',
    },
  }),
  corpus: option(path(), {
    description: "Document folder of the search tools (default: the workspace's corpus/, else examples/corpus/).",
    cli: { flag: 'corpus', arg: 'DIR' },
    setting: {
      key: 'search.corpus',
      scope: 'resource',
      default: '',
      description:
        "Folder of documents the built-in search tool indexes, relative to the workspace folder. Empty: the workspace's corpus/ folder if it has one, else examples/corpus/.",
    },
  }),
  rerank: option(z.boolean().default(false), {
    description:
      "Rerank search results by the model's negative log-likelihood of the question (two scoring requests per passage; needs an endpoint that returns prompt logprobs; unavailable in replay mode).",
    cli: { flag: 'rerank' },
    setting: {
      key: 'search.rerank',
      scope: 'resource',
      description:
        "Rerank the search tool's passages by the model's negative log-likelihood of the question (needs an endpoint with prompt logprobs).",
    },
  }),
  wordList: option(path(), {
    description: `Word list of the lookup tool, one word a line (default ${DEFAULT_WORD_LIST}).`,
    cli: { flag: 'word-list', arg: 'FILE' },
    setting: {
      key: 'lookup.wordList',
      scope: 'resource',
      default: DEFAULT_WORD_LIST,
      description: 'Word list file (one word a line) the lookup tool checks candidate words against.',
    },
  }),
  toolTimeoutMs: option(count(1).optional(), {
    description: "Milliseconds before any tool is stopped (default: each tool's own).",
    cli: { flag: 'tool-timeout-ms', arg: 'MS' },
  }),
  constrain: option(z.enum(CONSTRAIN_MODES).default('off'), {
    description:
      'Decoding constraints sent with each request so the model cannot leave the spec or the step syntax: "auto" asks the endpoint what it is (vLLM, SGLang, llama.cpp server) and sends nothing to others; the decoding monitor stays the check.',
    cli: { flag: 'constrain', arg: 'MODE' },
    setting: {
      key: 'model.constrain',
      scope: 'resource',
      description:
        'Decoding constraints for program and agent runs: "auto" detects vLLM, SGLang or llama.cpp server and sends what it understands; "off" sends none (the decoding monitor still checks and corrects).',
    },
  }),
  select: option(z.enum(SELECT_STRATEGIES).default('same-file'), {
    description:
      'ART: which demonstrations go into the prompt: every program of the file ("same-file"), the most similar programs of the .art files in its folder by BM25 ("similar") or by asking the model whether each task is similar ("llm", scored by the log-probability of "Yes" where the endpoint returns logprobs), or the programs of the folder\'s file that answers a few labelled examples best ("best-cluster": art eval\'s first examples; art run: the programs of the file with the same task name).',
    manifest: {
      enumDescriptions: [
        'Every program of the file being run.',
        "The 5 programs of the folder's .art files most similar to the task (BM25 over task name, description and input).",
        'The 5 programs of the folder\'s .art files the model judges most similar (a similarity prompt; log-probability of "Yes").',
        "Every program of the folder's .art file whose programs answer a few labelled examples best.",
      ],
    },
    cli: { flag: 'select', arg: 'same-file|similar|llm|best-cluster' },
  }),
  samples: option(count(1).max(64).default(1), {
    description:
      'Self-consistency: run this many programs at once and vote on the normalised answer (use a temperature above 0). In the debugger each sample is a thread; each writes its own trace (RUN.sample-k.jsonl), the vote at its end.',
    cli: { flag: 'samples', arg: 'N' },
  }),
  search: option(count(1).max(16).optional(), {
    description:
      "Best-first search over steps (the LLM-programs paper's tree search): at each expansion, sample this many continuations of the next step from the best node so far, scored by the average negative log-likelihood of its path (by vote when the endpoint returns no logprobs), until the best node is a program with its answer or the budget is spent; the chosen path is the run, the other explored nodes are its branches in the run history. Needs an endpoint. Command line only: in the debugger, Sample Alternatives is the same step by hand.",
    launch: false,
    cli: { flag: 'search', arg: 'K' },
  }),
  budget: option(count(1).default(32), {
    description: 'With search: the model calls the search may make in all (each sampled continuation is one, as is any request a tool makes).',
    launch: false,
    cli: { flag: 'budget', arg: 'N' },
  }),
  from: option(path(), {
    description:
      'A trace (.jsonl) of an earlier run: every model request identical to one recorded there (same prompt, stop sequences, max tokens, temperature) is answered from it at no cost; the model is called only from the first changed request.',
    cli: { flag: 'from', arg: 'TRACE' },
  }),
  until: option(count(1).optional(), {
    description: "With from: take from the trace only the requests made before step N was complete (the main line's); call the model from there.",
    cli: { flag: 'until', arg: 'STEP' },
  }),
  replayDelayMs: option(count(0).default(0), {
    description: 'Replay mode: milliseconds between streamed chunks, to watch the program grow.',
    cli: { flag: 'replay-delay-ms', arg: 'MS' },
  }),
};

export type RunOptionName = keyof typeof RUN_OPTIONS;
type Shape = { [K in RunOptionName]: (typeof RUN_OPTIONS)[K]['schema'] };
const shape = Object.fromEntries(Object.entries(RUN_OPTIONS).map(([k, o]) => [k, o.schema])) as Shape;
const schema = z.object(shape);

/** The options as a caller gives them (defaults not applied yet). */
export type RunOptionsInput = z.input<typeof schema>;
/** The options after validation, defaults applied. */
export type RunOptions = z.output<typeof schema>;

const entries = () => Object.entries(RUN_OPTIONS) as [RunOptionName, RunOptionSpec][];

type JsonSchema = Record<string, unknown> & {
  type?: string;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  default?: unknown;
};

/** The JSON schema of one option's value (as a user writes it: `io: 'input'`), without zod's safe-integer bounds. */
export function valueSchema(name: RunOptionName): JsonSchema {
  const s = z.toJSONSchema(RUN_OPTIONS[name].schema, { io: 'input' }) as JsonSchema;
  delete s.$schema;
  const clean = (j: JsonSchema): JsonSchema => {
    if (j.maximum === Number.MAX_SAFE_INTEGER) delete j.maximum;
    if (j.anyOf) j.anyOf = j.anyOf.map(clean);
    return j;
  };
  return clean(s);
}

/** package.json's `contributes.debuggers[0].configurationAttributes.launch`. */
export function launchAttributes(): { required: string[]; properties: Record<string, JsonSchema> } {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, o] of entries()) {
    if (o.launch === false) continue;
    const { type, enum: en, anyOf, default: def, ...rest } = valueSchema(name);
    if (!o.schema.safeParse(undefined).success) required.push(name);
    const settingNote = o.setting ? ` In VS Code, when left out: the setting art.${o.setting.key}.` : '';
    properties[name] = withoutUndefined({ type, anyOf, enum: en, ...rest, default: def, description: o.description + settingNote, ...o.manifest });
  }
  return { required, properties };
}

/** package.json's settings for the options that have one (`art.<key>`). */
export function optionSettings(): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const [name, o] of entries()) {
    if (!o.setting) continue;
    const { type, enum: en, anyOf, default: def, ...rest } = valueSchema(name);
    const d = o.setting.default !== undefined ? o.setting.default : def;
    if (d === undefined) throw new Error(`run option ${name}: its setting art.${o.setting.key} needs a default`);
    out[`art.${o.setting.key}`] = withoutUndefined({
      type,
      anyOf,
      enum: en,
      default: d,
      ...withoutPattern(rest),
      scope: o.setting.scope,
      description: o.setting.description,
    });
  }
  return out;
}

/**
 * Launch options from settings: `read(key)` reads `art.<key>`. An empty string is "not set"; an `onlyIfChanged`
 * setting counts only when it differs from its default.
 */
export function optionsFromSettings(read: (key: string) => unknown): Partial<Record<RunOptionName, unknown>> {
  const out: Partial<Record<RunOptionName, unknown>> = {};
  for (const [name, o] of entries()) {
    if (!o.setting) continue;
    const v = read(o.setting.key);
    if (v === undefined || v === null || v === '') continue;
    if (o.setting.onlyIfChanged && v === o.setting.default) continue;
    out[name] = v;
  }
  return out;
}

/** What a valid value of the option is, in words. */
export function expectation(name: RunOptionName): string {
  return RUN_OPTIONS[name].expect ?? describeSchema(valueSchema(name));
}

function describeSchema(j: JsonSchema): string {
  if (j.anyOf) return j.anyOf.map(describeSchema).join(' or ');
  if (j.enum)
    return j.enum.length === 2 ? j.enum.map(v => JSON.stringify(v)).join(' or ') : `one of ${j.enum.map(v => JSON.stringify(v)).join(', ')}`;
  if (j.type === 'boolean') return 'true or false';
  if (j.type === 'string') return j.minLength ? 'a non-empty string' : 'a string';
  if (j.type === 'number' || j.type === 'integer') {
    const what = j.type === 'integer' ? 'an integer' : 'a number';
    if (j.minimum !== undefined && j.maximum !== undefined) return `${what} from ${j.minimum} to ${j.maximum}`;
    if (j.minimum !== undefined) return `${what} of at least ${j.minimum}`;
    return what;
  }
  return JSON.stringify(j);
}

/**
 * Validates the declared options in `raw` (other keys are ignored: a DAP client adds its own) and applies the
 * defaults. An empty string or null counts as not given. `label` names an option in the error (`launch attribute
 * "temperature"`, `--temperature`). Throws a LaunchError with one line.
 */
export function parseRunOptions(raw: object, label: (name: RunOptionName) => string = launchLabel): RunOptions {
  const picked: Record<string, unknown> = {};
  for (const name of Object.keys(RUN_OPTIONS)) {
    const v = (raw as Record<string, unknown>)[name];
    if (v !== undefined && v !== null && v !== '') picked[name] = v;
  }
  const r = schema.safeParse(picked);
  if (r.success) return r.data;
  const name = r.error.issues[0].path[0] as RunOptionName;
  const value = picked[name];
  if (value === undefined) throw new LaunchError(`${label(name)} is missing: ${RUN_OPTIONS[name].description}`);
  // A URL's user, password and query (a key may sit there) are not echoed.
  const shown = typeof value === 'string' && urlSecrets(value).length ? publicURL(value) : value;
  throw new LaunchError(`${label(name)}: expected ${expectation(name)}, not ${JSON.stringify(shown)}`);
}

export const launchLabel = (name: RunOptionName) => `launch attribute "${name}"`;

/** The options `art run` has, in declaration order. */
export function cliOptions(): { name: RunOptionName; cli: OptionCli; spec: RunOptionSpec }[] {
  return entries().flatMap(([name, spec]) => (spec.cli ? [{ name, cli: spec.cli, spec }] : []));
}

/** Whether `art run` reads the option as a flag without a value. */
export function isBooleanOption(name: RunOptionName): boolean {
  return valueSchema(name).type === 'boolean';
}

/** A command-line value as the schema wants it: numbers for number options (text that is no number stays text, to be rejected). */
export function fromCliText(name: RunOptionName, text: string): unknown {
  const t = valueSchema(name).type;
  if ((t === 'number' || t === 'integer') && text.trim() !== '' && Number.isFinite(Number(text))) return Number(text);
  return text;
}

function withoutPattern(j: Record<string, unknown>): Record<string, unknown> {
  // A setting's empty default ('' = not set) must stay valid in the Settings editor.
  const { pattern: _p, minLength: _m, ...rest } = j;
  return rest;
}

/** The pauses of a run nobody steps through (art eval, art test, art run --search, the Test Explorer): none, not even on a tool error. */
export const HEADLESS = { pauseAfterTool: false, pauseOnToolError: false } as const;
