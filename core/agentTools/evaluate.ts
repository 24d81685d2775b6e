// The agent tool evaluate: every example of a dataset run as a new task of the library (core/evaluation/evaluate.ts),
// as `art eval` runs it, with a progress message per finished example; a cancelled call stops, and the same call
// resumes from the results file. In the editor the results then open in the evaluation view.
import { z } from 'zod';
import { defaultResultsPath, evaluate as evaluateDataset } from '../evaluation/evaluate';
import { formatSummary, summarise, type EvalResult } from '../evaluation/eval';
import { mayCallEndpoint } from '../launch/apiKey';
import { parseRunOptions } from '../launch/options';
import { CliError } from '../common/sourceFiles';
import { DEFAULT_RUNS_FOLDER } from '../settings/settings';
import { NOT_FOR_EVAL, capSentence, runOptionShape } from './runOptions';
import { existingFile, fileOrActive, filePath, givenOrActive, withNotes } from './shapes';
import { defineTool, type ToolHost } from './tool';

/** Examples run at once when neither the caller nor the user gives a number (and art mcp's --max-concurrency is not lower). */
export const DEFAULT_CONCURRENCY = 4;

/**
 * One evaluation per results file at a time, in the process: a call that resumes one being cancelled waits until it
 * has stopped, so no example runs twice and the file gets no line twice.
 */
const running = new Map<string, Promise<unknown>>();

/** The input of the examples run at once (evaluate, improve), capped. */
export const concurrencyInput = () =>
  z
    .int()
    .min(1)
    .optional()
    .describe(
      `Examples run at once, and the bound on requests in flight (default ${DEFAULT_CONCURRENCY}; the editor: art.evaluation.concurrency). ${capSentence('concurrency')}`,
    );

/** The examples a call runs at once: the caller's (already capped), else the shell's default. */
export const concurrencyOf = (given: unknown, host: ToolHost): number => (typeof given === 'number' ? given : host.concurrency);

export const evaluate = defineTool({
  name: 'evaluate',
  title: 'Evaluate a task library on a dataset',
  description:
    'Run every example of a dataset (JSONL: one {"input", "target"} a line) as a new task of the library against the model (an endpoint: baseURL and model; in the editor, its model settings), as `art eval` does: sends a progress notification per finished example, stops when the request is cancelled, and resumes from the results file when called again (no finished example runs twice). Returns the accuracy and the results file (a new file, or one that begins with a results header); the editor also shows them in its evaluation view.',
  runsPrograms: true,
  userTools: true,
  input: {
    library: fileOrActive('The task library (.art) whose demonstrations are used'),
    data: filePath('The dataset (JSONL)'),
    out: z.string().optional().describe('The results file, appended to and resumed from (default: DATA.LIBRARY.results.jsonl beside the data).'),
    runs: z
      .string()
      .optional()
      .describe(`The run history each example's trace goes into (default ${DEFAULT_RUNS_FOLDER}; the editor: art.runs.folder).`),
    concurrency: concurrencyInput(),
    selectExamples: z.int().min(1).optional().describe('With select "best-cluster": the labelled examples each file is tried on (default 3).'),
    ...runOptionShape(NOT_FOR_EVAL),
  },
  output: {
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
  editor: {
    displayName: 'ART: Evaluate Task',
    referenceName: 'artEvaluate',
    userDescription: 'Runs a task library on a dataset and shows the accuracy in the evaluation view.',
    icon: '$(graph)',
    invocation: i => `Evaluating on ${i.data ?? 'the dataset'}`,
    confirm: i => ({
      title: 'ART Studio: evaluate the task?',
      message: `Runs ${i.library ?? 'the active task library'} on every example of ${i.data ?? 'the dataset'}: each run calls the model and runs tools.`,
    }),
  },
  run: async (input, host) => {
    const given = givenOrActive(host, input.library, 'library');
    const library = await existingFile(host, given, '"library"');
    if (!library.toLowerCase().endsWith('.art')) throw new CliError(`${given}: give a task library (.art) as "library"`);
    const data = await existingFile(host, input.data, '"data"');
    const { raw, args, notes } = await host.runOptions(input, library);
    const { program: _program, mode: _mode, ...options } = raw;
    const runsFolder = await host.path(input.runs ?? host.runs.folder, '"runs"');
    const out = await host.path(input.out ?? defaultResultsPath(data, library), '"out"');
    let total = 0;
    let finished = 0;
    let already = 0;
    const earlier = running.get(out);
    if (earlier) await earlier.catch(() => {});
    const o = parseRunOptions({ ...options, program: library }, host.label('library'));
    const evaluation = evaluateDataset({
      library,
      data,
      out,
      options,
      optionLabel: host.label('library'),
      apiKey: async opts => {
        const { key, note } = await host.key(opts, mayCallEndpoint(opts));
        if (note) notes.push(note);
        return key;
      },
      chatModel: await host.chatModel(o, `ART Studio evaluates ${given} on ${input.data} with this model.`),
      telemetryEnv: host.telemetryEnv,
      trusted: host.trusted,
      userToolsRefused: host.userToolsRefused,
      concurrency: concurrencyOf(args.concurrency, host),
      selectExamples: input.selectExamples ?? 3,
      runs: { folder: runsFolder, gitignore: host.runs.gitignore },
      signal: host.signal,
      log: line => notes.push(line),
      onStart: s => {
        total = s.todo.length;
        already = s.done.length;
        host.progress(`${s.total} examples, ${s.done.length} already in ${s.resultsPath}, ${s.todo.length} to run`, finished, total);
      },
      onResult: (r: EvalResult) => {
        finished++;
        host.progress(
          `${r.id}: ${r.exact ? 'ok' : r.end !== 'finished' ? r.end : 'wrong'} (answer ${JSON.stringify(r.answer)}, target ${JSON.stringify(r.target)})`,
          finished,
          total,
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
    await host.views?.showEvaluation(end.resultsPath);
    const text = `${withNotes(notes, formatSummary(summary))}\nresults: ${end.resultsPath}${end.stopped ? `\nstopped with ${end.results.length} of ${end.total} examples done: call evaluate again with the same arguments to resume` : ''}`;
    return {
      text,
      structured: {
        total: end.total,
        already,
        done: end.results.length,
        stopped: end.stopped,
        resultsPath: end.resultsPath,
        summary,
        rateLimited: end.rateLimited,
        notes,
      },
    };
  },
});
