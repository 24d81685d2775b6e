// `art mcp`: a Model Context Protocol server over stdio (the official SDK) for any MCP client: the CLI's commands
// as tools (check, run, test, evaluate, show_prompt, constrain) and stepping sessions (mcpSessions.ts). Each tool
// reuses the command's own function and returns a text summary and structured content (its output schema). The
// trust rules are the CLI's: everything runs as `art run` runs it (model-written code in the Python sandbox), the key
// only from the environment variable `apiKeyEnv` names, never in a result. Relative paths start at the server's
// working directory (MCP clients start it in the workspace).
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { RootsListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { checkFiles, checkSummary, formatDiagnostic, unreadFiles } from './check';
import { constraintOf } from './constrain';
import { END_REASONS } from '../trace/vocabulary';
import { compareFiles } from './compare';
import { COMPARE_METRICS } from '../evaluation/compare';
import { NOT_FOR_TEST, programLine, testLibraries } from './test';
import { NOT_FOR_EVAL } from './eval';
import { NOT_FOR_PROMPT } from './prompt';
import { sayRepairs } from './run';
import { replayUnlessEndpoint } from './optionFlags';
import { prepareRun } from '../launch/launch';
import { HEADLESS, parseRunOptions } from '../launch/options';
import { mayCallEndpoint, promptAsksModel } from '../launch/apiKey';
import { promptOfRun } from '../launch/promptOfRun';
import { describeFailure } from '../evaluation/libraryTest';
import { defaultResultsPath, evaluate } from '../evaluation/evaluate';
import { formatSummary, summarise, type EvalResult } from '../evaluation/eval';
import { describeWhy, formatPromptReport } from '../prompt/promptReport';
import { DEFAULT_RUNS_FOLDER } from '../settings/settings';
import { DebugSessions, registerDebugTools } from './mcpSessions';
import { registerImprove } from './mcpImprove';
import {
  NOT_FOR_MCP_RUN,
  userToolsRefusedOf,
  confinedRunOptions,
  filePath,
  toolsSentence,
  guarded,
  keysOf,
  keyVariable,
  mcpKey,
  mcpLabel,
  existingFile,
  pathIn,
  rangeShape,
  runOptionShape,
  toolResult,
  type McpContext,
  type McpStart,
} from './mcpCommon';
import { allowedFolders } from './mcpPaths';
import { mcpStartFlags, mcpUsage } from './mcpStart';
import { CliError } from './files';
import { version as VERSION } from '../../package.json';

/** One side of a comparison: its file, the examples both have, how many it got right, and what produced it. */
const compareSide = z.looseObject({ file: z.string(), n: z.number(), correct: z.number(), accuracy: z.number() });
export { mcpUsage };

/** The client's roots (`roots/list`), asked again when it says they changed; undefined when it declares none. */
function clientRoots(server: McpServer): () => Promise<readonly string[] | undefined> {
  let asked: Promise<readonly string[] | undefined> | undefined;
  server.server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
    asked = undefined;
  });
  return () => {
    if (!server.server.getClientCapabilities()?.roots) return Promise.resolve(undefined);
    return (asked ??= server.server.listRoots().then(
      r => r.roots.map(x => x.uri),
      () => {
        asked = undefined;
        return [];
      },
    ));
  };
}

/** The server with every tool registered; `close` (also called when the connection closes) stops the stepping sessions. */
export function createArtMcpServer(ctx: McpContext): { server: McpServer; sessions: DebugSessions; close(): Promise<void> } {
  const server = new McpServer({ name: 'art', version: VERSION }, { capabilities: { tools: {}, logging: {} } });
  const roots = clientRoots(server);
  ctx = { ...ctx, folders: () => allowedFolders({ cwd: ctx.cwd, allowPaths: ctx.start?.allowPaths ?? [], clientRoots: roots }) };
  const sessions = new DebugSessions(ctx);
  registerCheck(server, ctx);
  registerRun(server, ctx);
  registerTest(server, ctx);
  registerEvaluate(server, ctx);
  registerImprove(server, ctx);
  registerShowPrompt(server, ctx);
  registerConstrain(server, ctx);
  registerDebugTools(server, sessions, ctx);
  // The client went (the transport closed): every session stops, its tools and sandbox with it.
  let closing: Promise<void> | undefined;
  const close = () => (closing ??= sessions.stopAll());
  server.server.onclose = () => void close();
  return { server, sessions, close };
}

function registerCheck(server: McpServer, ctx: McpContext): void {
  const diagnostic = z.object({
    range: rangeShape,
    severity: z.enum(['error', 'warning', 'information', 'hint']),
    code: z.string(),
    message: z.string(),
  });
  server.registerTool(
    'check',
    {
      title: 'Check ART files',
      description:
        'The diagnostics of task libraries (.art) and agent specs (.agent), as `art check` reports them: per file, each problem\'s code (e.g. tool-name-typo), 0-based range and message, then a summary. A file that cannot be read is an "unreadable-file" diagnostic; the others are still checked.',
      inputSchema: { files: z.array(filePath('A .art or .agent file')).min(1) },
      outputSchema: {
        files: z.array(z.object({ file: z.string(), diagnostics: z.array(diagnostic) })),
        errors: z.number(),
        warnings: z.number(),
        summary: z.string(),
      },
    },
    async args =>
      guarded('check', ctx, false, async () => {
        // Checked once each at their absolute paths, shown as the client first gave them; every name given gets its
        // file's diagnostics (a.art and ./a.art are one file).
        const absolute = new Map<string, string>();
        const given = new Map<string, string>();
        for (const f of args.files) {
          const path = await pathIn(ctx, f, 'file');
          absolute.set(f, path);
          if (!given.has(path)) given.set(path, f);
        }
        const checked = checkFiles([...given.keys()]).diagnostics;
        const diagnostics = checked.map(d => ({ ...d, file: given.get(d.file) ?? d.file }));
        const summary = checkSummary(given.size, diagnostics);
        // Nothing read, nothing checked: an error naming each file and the fix, not a report of problems.
        if (unreadFiles(diagnostics) >= given.size) throw new CliError([...diagnostics.map(d => `${d.file}: ${d.message}`), summary].join('\n'));
        const files = args.files.map(file => ({
          file,
          diagnostics: checked
            .filter(d => d.file === absolute.get(file))
            .map(({ range, severity, code, message }) => ({ range, severity, code, message })),
        }));
        return toolResult([...diagnostics.map(formatDiagnostic), summary].join('\n'), {
          files,
          errors: diagnostics.filter(d => d.severity === 'error').length,
          warnings: diagnostics.filter(d => d.severity === 'warning').length,
          summary,
        });
      }),
  );
}

const callShape = z.object({
  step: z.number(),
  tool: z.string(),
  input: z.string(),
  output: z.string().optional(),
  override: z.string().optional(),
  error: z.string().optional(),
});

function registerRun(server: McpServer, ctx: McpContext): void {
  server.registerTool(
    'run',
    {
      title: 'Run a program',
      description:
        'Run a program of a task library (.art), an agent spec (.agent), a MultiTool-CoT prompt or a trace (.jsonl) to its end, as `art run` does: returns the program written and the answer. Replays the recorded program (tools run again, no endpoint) unless an endpoint (baseURL and model, or art mcp\'s --base-url and --model) or mode "generate" is given; the key is the one art mcp was started with, sent only to the origins it allows. Cancelling the request stops the run.' +
        toolsSentence(ctx),
      inputSchema: { file: filePath('The file to run'), ...runOptionShape(NOT_FOR_MCP_RUN) },
      outputSchema: {
        status: z.enum(END_REASONS),
        answer: z.string().nullable(),
        program: z.string(),
        error: z.string().optional(),
        mode: z.enum(['generate', 'replay']),
        calls: z.array(callShape),
        requests: z.number(),
        trace: z.string().optional(),
        notes: z.array(z.string()),
      },
    },
    async (args, extra) =>
      guarded('run', ctx, true, async () => {
        const raw: Record<string, unknown> = { ...(await confinedRunOptions(ctx, args)), program: await existingFile(ctx, args.file) };
        replayUnlessEndpoint(raw);
        const o = parseRunOptions(raw, mcpLabel('file'));
        const notes: string[] = [];
        const { key, note } = mcpKey(ctx, o, mayCallEndpoint(o));
        if (note) notes.push(note);
        const run = await prepareRun({
          ...o,
          apiKey: key,
          telemetryEnv: ctx.env,
          trusted: true,
          ...HEADLESS,
          userToolsRefused: userToolsRefusedOf(ctx),
          log: line => notes.push(line),
        });
        sayRepairs(run.runner, !!run.tracePath, line => notes.push(line));
        const stop = () => run.runner.stop();
        extra.signal.addEventListener('abort', stop, { once: true });
        if (extra.signal.aborted) stop();
        let result;
        try {
          result = await run.runner.run();
        } finally {
          extra.signal.removeEventListener('abort', stop);
          await run.dispose();
        }
        const s = result.snapshot;
        const calls = s.calls.map(c => ({
          step: c.step,
          tool: c.tool,
          input: c.input,
          ...(c.output !== undefined ? { output: c.output } : {}),
          ...(c.override !== undefined ? { override: c.override } : {}),
          ...(c.error !== undefined ? { error: c.error } : {}),
        }));
        const end =
          result.reason === 'finished'
            ? `Answer: ${result.answer ?? '(none)'}`
            : `the run ended (${result.reason})${result.error ? `: ${result.error}` : ''}${result.answer ? `; answer so far: ${result.answer}` : ''}`;
        return toolResult(
          `${s.text}${s.text.endsWith('\n') ? '' : '\n'}\n${end}`,
          {
            status: result.reason,
            answer: result.answer,
            program: s.text,
            ...(result.error !== undefined ? { error: result.error } : {}),
            mode: o.mode,
            calls,
            requests: s.requests,
            ...(run.tracePath ? { trace: run.tracePath } : {}),
            notes: [...run.toolProblems, ...notes],
          },
          [key, ...keysOf(ctx)],
        );
      }),
  );
}

function registerTest(server: McpServer, ctx: McpContext): void {
  const step = z.object({
    step: z.number(),
    tool: z.string(),
    line: z.number(),
    recorded: z.string(),
    got: z.string().optional(),
    error: z.string().optional(),
    compared: z.boolean(),
    ok: z.boolean(),
  });
  server.registerTool(
    'test',
    {
      title: 'Test task libraries',
      description:
        'Replay every demonstration program of the task libraries, as `art test` does: its tools run again and each compared tool\'s output and the answer are checked against the recording (white space folded). Returns per program pass/fail with the recorded and computed outputs, and "N passed, N failed".' +
        toolsSentence(ctx),
      inputSchema: {
        files: z.array(filePath('A task library (.art)')).min(1),
        tools: z
          .enum(['deterministic', 'all'])
          .optional()
          .describe(
            'Which steps are compared: deterministic (default: code, calculator, lookup, user tools) or all (model-backed and search steps too).',
          ),
        ...runOptionShape(NOT_FOR_TEST),
      },
      outputSchema: {
        programs: z.array(
          z.object({
            file: z.string(),
            line: z.number().describe('1-based line where the program starts'),
            index: z.number(),
            title: z.string(),
            passed: z.boolean(),
            steps: z.array(step),
            answer: z.object({ recorded: z.string().nullable(), got: z.string().nullable(), ok: z.boolean() }),
            error: z.string().optional(),
          }),
        ),
        passed: z.number(),
        failed: z.number(),
        summary: z.string(),
        notes: z.array(z.string()),
      },
    },
    async (args, extra) =>
      guarded('test', ctx, true, async () => {
        const paths: string[] = [];
        for (const f of args.files) paths.push(await pathIn(ctx, f, 'file'));
        // `tools` here says which steps are compared, not a tool file (user tools come from the workspace's).
        const { tools: _compare, ...options } = await confinedRunOptions(ctx, { ...args, tools: undefined });
        const keyNotes: string[] = [];
        const report = await testLibraries(paths, options, {
          compare: args.tools,
          env: ctx.env,
          label: mcpLabel('files'),
          signal: extra.signal,
          apiKey: o => {
            const { key, note } = mcpKey(ctx, o, !!o.baseURL);
            if (note) keyNotes.push(note);
            return key;
          },
          userToolsRefused: userToolsRefusedOf(ctx),
        });
        report.notes.unshift(...keyNotes);
        const summary = `${report.passed} passed, ${report.failed} failed`;
        const lines = [
          ...report.notes.map(n => `note: ${n}`),
          ...report.programs.flatMap(t => [programLine(t), ...(t.passed ? [] : describeFailure(t))]),
          summary,
        ];
        const programs = report.programs.map(t => ({
          file: args.files[paths.indexOf(t.file)] ?? t.file,
          line: t.line + 1,
          index: t.index,
          title: t.title,
          passed: t.passed,
          steps: t.steps.map(s => ({ ...s, line: s.line + 1 })),
          answer: t.answer,
          ...(t.error !== undefined ? { error: t.error } : {}),
        }));
        return toolResult(lines.join('\n'), { programs, passed: report.passed, failed: report.failed, summary, notes: report.notes }, keysOf(ctx));
      }),
  );
}

function registerEvaluate(server: McpServer, ctx: McpContext): void {
  // One evaluation per results file at a time: a call that resumes one being cancelled waits until it has stopped,
  // so no example runs twice and the file gets no line twice.
  const running = new Map<string, Promise<unknown>>();
  server.registerTool(
    'evaluate',
    {
      title: 'Evaluate a task library on a dataset',
      description:
        'Run every example of a dataset (JSONL: one {"input", "target"} a line) as a new task of the library against the model endpoint (baseURL, model), as `art eval` does: sends a progress notification per finished example when the request has a progress token, stops when the request is cancelled, and resumes from the results file when called again (no finished example runs twice). Returns the accuracy and the results file (a new file, or one that begins with a results header).' +
        toolsSentence(ctx),
      inputSchema: {
        library: filePath('The task library (.art) whose demonstrations are used'),
        data: filePath('The dataset (JSONL)'),
        out: z.string().optional().describe('The results file, appended to and resumed from (default: DATA.LIBRARY.results.jsonl beside the data).'),
        runs: z.string().optional().describe(`The run history each example's trace goes into (default ${DEFAULT_RUNS_FOLDER}).`),
        concurrency: z.int().min(1).max(64).optional().describe('Examples run at once, and the bound on requests in flight (default 4).'),
        selectExamples: z.int().min(1).optional().describe('With select "best-cluster": the labelled examples each file is tried on (default 3).'),
        ...runOptionShape(NOT_FOR_EVAL),
      },
      outputSchema: {
        total: z.number(),
        already: z.number().describe('Examples already in the results file when the call started'),
        done: z.number(),
        stopped: z.boolean(),
        resultsPath: z.string(),
        summary: z.object({
          n: z.number(),
          exact: z.number(),
          substring: z.number(),
          exactInterval: z.array(z.number()),
          substringInterval: z.array(z.number()),
          withToolCalls: z.number(),
          toolCalls: z.number(),
          promptTokens: z.number(),
          completionTokens: z.number(),
          failures: z.record(z.string(), z.number()),
        }),
        rateLimited: z.object({ count: z.number(), limit: z.number() }).nullable(),
        notes: z.array(z.string()),
      },
    },
    async (args, extra) =>
      guarded('evaluate', ctx, true, async () => {
        const library = await existingFile(ctx, args.library, '"library"');
        if (!library.toLowerCase().endsWith('.art')) throw new CliError(`${args.library}: give a task library (.art) as "library"`);
        const data = await existingFile(ctx, args.data, '"data"');
        const options = await confinedRunOptions(ctx, args);
        const runsFolder = await pathIn(ctx, args.runs ?? DEFAULT_RUNS_FOLDER, '"runs"');
        const token = extra._meta?.progressToken;
        const notes: string[] = [];
        let total = 0;
        let finished = 0;
        let already = 0;
        const out = await pathIn(ctx, args.out ?? defaultResultsPath(data, library), '"out"');
        const progress = (message: string) => {
          if (token === undefined) return;
          void extra
            .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: finished, total, message } })
            .catch(() => {});
        };
        const earlier = running.get(out);
        if (earlier) await earlier.catch(() => {});
        const evaluation = evaluate({
          library,
          data,
          out,
          options,
          optionLabel: mcpLabel('library'),
          apiKey: o => {
            const { key, note } = mcpKey(ctx, o, mayCallEndpoint(o));
            if (note) notes.push(note);
            return key;
          },
          telemetryEnv: ctx.env,
          trusted: true,
          userToolsRefused: userToolsRefusedOf(ctx),
          concurrency: args.concurrency ?? 4,
          selectExamples: args.selectExamples ?? 3,
          runs: { folder: runsFolder, gitignore: true },
          signal: extra.signal,
          log: line => notes.push(line),
          onStart: s => {
            total = s.todo.length;
            already = s.done.length;
            progress(`${s.total} examples, ${s.done.length} already in ${s.resultsPath}, ${s.todo.length} to run`);
          },
          onResult: (r: EvalResult) => {
            finished++;
            progress(
              `${r.id}: ${r.exact ? 'ok' : r.end !== 'finished' ? r.end : 'wrong'} (answer ${JSON.stringify(r.answer)}, target ${JSON.stringify(r.target)})`,
            );
          },
        });
        running.set(out, evaluation);
        let end;
        try {
          end = await evaluation;
        } finally {
          if (running.get(out) === evaluation) running.delete(out);
        }
        const summary = summarise(end.results);
        const text = `${formatSummary(summary)}\nresults: ${end.resultsPath}${end.stopped ? `\nstopped with ${end.results.length} of ${end.total} examples done: call evaluate again with the same arguments to resume` : ''}`;
        return toolResult(
          text,
          {
            total: end.total,
            already,
            done: end.results.length,
            stopped: end.stopped,
            resultsPath: end.resultsPath,
            summary,
            rateLimited: end.rateLimited,
            notes,
          },
          keysOf(ctx),
        );
      }),
  );
}

function registerShowPrompt(server: McpServer, ctx: McpContext): void {
  server.registerTool(
    'show_prompt',
    {
      title: 'Show the prompt of a run',
      description:
        'The exact prompt a run of the file sends, with the demonstrations in it and why each was chosen, without running it (as `art prompt`); for a trace (.jsonl), the prompt it recorded. Starts nothing: no command tool or MCP server of the tool file.',
      inputSchema: { file: filePath('The .art, .agent or MultiTool-CoT file, or a run trace (.jsonl)'), ...runOptionShape(NOT_FOR_PROMPT) },
      outputSchema: {
        kind: z.string(),
        title: z.string().optional(),
        program: z.string().optional(),
        model: z.string().optional(),
        prompt: z.string(),
        header: z.string(),
        demonstrations: z.array(z.object({ file: z.string().optional(), index: z.number(), title: z.string(), line: z.number(), why: z.string() })),
        generated: z.string().optional(),
      },
    },
    async args =>
      guarded('show_prompt', ctx, true, async () => {
        const raw: Record<string, unknown> = { ...(await confinedRunOptions(ctx, args)), program: await existingFile(ctx, args.file) };
        replayUnlessEndpoint(raw);
        const o = parseRunOptions(raw, mcpLabel('file'));
        const { key, note } = mcpKey(ctx, o, promptAsksModel(o));
        if (note) ctx.log(`[art] ${note}`);
        const report = await promptOfRun({ ...o, apiKey: key, trusted: true, log: line => ctx.log(`[art] ${line}`) });
        const { sample: _sample, demonstrations, ...rest } = report;
        const structured = {
          ...rest,
          demonstrations: (demonstrations ?? []).map(d => ({ ...d, why: describeWhy(d.why) })),
        };
        return toolResult(formatPromptReport(report), JSON.parse(JSON.stringify(structured)) as Record<string, unknown>, [key, ...keysOf(ctx)]);
      }),
  );
}

function registerConstrain(server: McpServer, ctx: McpContext): void {
  server.registerTool(
    'constrain',
    {
      title: "An agent's decoding constraint",
      description:
        'The decoding constraint of an agent spec from a state (default: the start of a run), as a regex and a GBNF grammar, as `art constrain` prints it.',
      inputSchema: {
        spec: filePath('The agent spec (.agent)'),
        agent: z.string().optional().describe("The agent's name (default: the spec's first)."),
        state: z.string().optional().describe('The state just entered (default: the start of a run).'),
      },
      outputSchema: { agent: z.string(), state: z.string().nullable(), regex: z.string(), gbnf: z.string() },
    },
    async args =>
      guarded('constrain', ctx, false, async () => {
        const c = constraintOf(await pathIn(ctx, args.spec, '"spec"'), { agent: args.agent, state: args.state });
        return toolResult(`regex:\n${c.regex}\n\ngbnf:\n${c.gbnf}`, { ...c });
      }),
  );

  server.registerTool(
    'compare',
    {
      title: 'Compare two evaluations',
      description:
        "Two evaluations' results files paired by example id, as `art compare` prints them: each side's accuracy on the examples both have (with its Wilson interval), the difference with its paired interval, the examples fixed (wrong in A, right in B) and broken, McNemar's exact two-sided p-value, the examples only one side has, and what produced each file (a warning when they differ in more than the library).",
      inputSchema: {
        a: filePath('The earlier results file (.results.jsonl), A'),
        b: filePath('The later results file (.results.jsonl), B'),
        metric: z.enum(COMPARE_METRICS).optional().describe('The score compared: exact (default) or substring match.'),
      },
      outputSchema: {
        metric: z.enum(COMPARE_METRICS),
        a: compareSide,
        b: compareSide,
        difference: z.number().describe("B's accuracy minus A's, on the examples both have"),
        differenceInterval: z.tuple([z.number(), z.number()]).describe('Its 95% paired interval'),
        fixed: z.array(z.string()).describe('Ids wrong in A, right in B'),
        broken: z.array(z.string()).describe('Ids right in A, wrong in B'),
        bothRight: z.number(),
        bothWrong: z.number(),
        pValue: z.number().describe("McNemar's exact two-sided p-value on the discordant pairs"),
        onlyA: z.number(),
        onlyB: z.number(),
        onlyAIds: z.array(z.string()),
        onlyBIds: z.array(z.string()),
        examples: z.array(z.looseObject({ id: z.string() })).describe('The fixed and broken examples with their inputs and answers'),
        headerDifferences: z.array(z.string()).describe('How the two evaluations differ in more than the library'),
      },
    },
    async args =>
      guarded('compare', ctx, false, async () => {
        const r = compareFiles(await pathIn(ctx, args.a, '"a"'), await pathIn(ctx, args.b, '"b"'), args.metric ?? 'exact');
        return toolResult(r.warning ? `warning: ${r.warning}\n${r.text}` : r.text, { ...r.json });
      }),
  );
}

export interface McpIo {
  err: (line: string) => void;
  out: (line: string) => void;
  env?: NodeJS.ProcessEnv;
}

/** `art mcp`: serves on stdin/stdout until the client closes the connection; every session is stopped then. */
export async function mcpCommand(argv: string[], io: McpIo): Promise<number> {
  const { help, ...start } = mcpStartFlags(argv, process.cwd());
  if (help) {
    io.out(mcpUsage());
    return 0;
  }
  const ctx: McpContext = { cwd: process.cwd(), env: io.env ?? process.env, log: io.err, start: start satisfies McpStart };
  const { server, close } = createArtMcpServer(ctx);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>(resolve => (transport.onclose = resolve));
  await server.connect(transport);
  // The client going away closes stdin: the transport does not notice that by itself.
  process.stdin.once('end', () => void transport.close());
  io.err(
    `art mcp: serving on stdio (working directory ${ctx.cwd}; the tool file's tools ${start.allowTools ? 'allowed' : 'not started: --allow-tools'}; the key in ${keyVariable(ctx)} goes to ${[start.baseURL, ...(start.keyOrigins ?? [])].filter(Boolean).join(', ') || 'no endpoint: --base-url, --key-origin'})`,
  );
  await closed;
  await close();
  return 0;
}
