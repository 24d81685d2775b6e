// The agent tool improve: `art improve` for agents (core/improve/improve.ts): the library improved by demonstrations
// bootstrapped from the training split, chosen on dev, proven on test (the training data alone: split in three by
// the seed); a progress message per finished example; a cancelled call stops it, and the same call resumes. In the
// editor the proposal then opens in a diff editor, and the person accepts or discards it.
import { join } from 'node:path';
import { z } from 'zod';
import { formatComparison, formatP } from '../evaluation/compare';
import { mayCallEndpoint } from '../launch/apiKey';
import { parseRunOptions } from '../launch/options';
import {
  defaultImprovedPath,
  defaultWorkFolder,
  improve as improveLibrary,
  ImproveError,
  ImproveStopped,
  PlanError,
  type ImproveEnd,
} from '../improve/improve';
import { writeSplits } from '../improve/splits';
import { CliError } from '../common/sourceFiles';
import { concurrencyInput, concurrencyOf } from './evaluate';
import { NOT_FOR_EVAL, runOptionShape } from './runOptions';
import { existingFile, fileOrActive, filePath, givenOrActive } from './shapes';
import { defineTool } from './tool';

/** What `art improve --json` prints, and the structured answer of the tool. */
export function improveJson(end: ImproveEnd) {
  const c = end.comparison;
  return {
    baseline: end.baseline,
    improved: end.improved,
    difference: c.difference,
    differenceInterval: c.differenceInterval,
    pValue: end.pValue,
    significant: end.significant,
    added: end.added.map(a => ({ id: a.id, line: a.line })),
    removed: end.removed,
    fixed: c.fixed.map(e => e.id),
    broken: c.broken.map(e => e.id),
    candidates: end.candidates,
    sets: end.sets,
    dev: end.dev,
    requests: end.requests,
    requestsSent: end.requestsSent,
    budget: end.plan.budget,
    out: end.out,
    results: end.results,
  };
}

/** What `art improve` prints at the end, and the text the tool answers. */
export function formatImprove(end: ImproveEnd): string {
  const c = end.comparison;
  const verdict = end.significant
    ? `a significant gain (McNemar p = ${formatP(end.pValue)})`
    : `no significant gain (McNemar p = ${formatP(end.pValue)})`;
  return [
    `${end.candidates} candidate demonstration(s) from the training runs; ${end.sets} library version(s) scored on dev (the original ${end.dev.baseline}/${end.dev.n}, the chosen ${end.dev.best}/${end.dev.n})`,
    end.added.length ? `added: ${end.added.map(a => `${a.id} (line ${a.line})`).join(', ')}` : 'added: none',
    ...(end.removed.length ? [`left out: ${end.removed.join(', ')}`] : []),
    '',
    formatComparison(c, ['original', 'improved']),
    '',
    `${verdict}`,
    `requests: ${end.requests} of ${end.plan.budget} (${end.requestsSent} sent now, the rest reused)`,
    `proposed: ${end.out}${end.significant ? '' : ' (marked: no significant gain)'}`,
  ].join('\n');
}

const side = z.object({ n: z.number(), correct: z.number(), accuracy: z.number() });

export const improve = defineTool({
  name: 'improve',
  title: 'Improve a task library with demonstrations bootstrapped from a dataset',
  description:
    'As `art improve` does: runs the library on the training split at a temperature above 0, keeps the right runs as candidate demonstrations, chooses a set of them on the dev split by a seeded random search within a budget of model requests, and compares the original with the improved library on the test split (McNemar); writes the proposed library as a new file (never over the original). Given the training data alone, splits it in three by the seed. Stops when the request is cancelled; the same call resumes, reusing what ran. In the editor the proposal opens against the library and the person accepts or discards it.',
  runsPrograms: true,
  userTools: true,
  input: {
    library: fileOrActive('The task library (.art) to improve'),
    train: filePath(
      'The training split (JSONL): its right runs become candidate demonstrations; alone (no dev and test), the one dataset, split in three by the seed',
    ),
    dev: filePath('The dev split (JSONL): candidate sets are scored on it').optional(),
    test: filePath('The test split (JSONL): the original and the improved library are compared on it').optional(),
    out: z
      .string()
      .optional()
      .describe('The proposed library (default LIBRARY.improved.art beside the library): a new file or an earlier proposal, never another file.'),
    budget: z.int().min(1).optional().describe('The most model requests everything may send (default 1000).'),
    concurrency: concurrencyInput(),
    ...runOptionShape(NOT_FOR_EVAL),
    seed: z
      .int()
      .min(0)
      .optional()
      .describe(
        "Seeds the split of the training data alone, the choice of candidate sets, and a local model's sampling (each bootstrap round its own) (default 0).",
      ),
  },
  output: {
    baseline: side,
    improved: side,
    pValue: z.number(),
    significant: z.boolean(),
    difference: z.number(),
    differenceInterval: z.array(z.number()),
    added: z.array(z.object({ id: z.string(), line: z.number() })),
    removed: z.array(z.string()),
    fixed: z.array(z.string()),
    broken: z.array(z.string()),
    candidates: z.number(),
    sets: z.number(),
    dev: z.object({ n: z.number(), baseline: z.number(), best: z.number() }),
    requests: z.number(),
    requestsSent: z.number(),
    budget: z.number(),
    out: z.string(),
    results: z.object({ baseline: z.string(), improved: z.string() }),
  },
  editor: {
    displayName: 'ART: Improve Library',
    referenceName: 'artImprove',
    userDescription: 'Proposes demonstrations for a task library, bootstrapped from a dataset, with the gain tested.',
    icon: '$(sparkle)',
    invocation: i => `Improving ${i.library ?? 'the task library'} from ${i.train ?? 'the training data'}`,
    confirm: i => ({
      title: 'ART Studio: improve the library?',
      message: `Runs ${i.library ?? 'the active task library'} on the training, dev and test examples (at most ${i.budget ?? 1000} model requests, tools run) and proposes a new library beside it; you Accept or Discard it.`,
    }),
  },
  run: async (input, host) => {
    const given = givenOrActive(host, input.library, 'library');
    const library = await existingFile(host, given, '"library"');
    if (!library.toLowerCase().endsWith('.art')) throw new CliError(`${given}: give a task library (.art) as "library"`);
    if ((input.dev === undefined) !== (input.test === undefined))
      throw new CliError('improve: give both "dev" and "test", or neither (then "train" is split in three by "seed")');
    const train = await existingFile(host, input.train, '"train"');
    const out = await host.path(input.out ?? defaultImprovedPath(library), '"out"');
    const seed = input.seed ?? 0;
    const { raw, args, notes } = await host.runOptions(input, library);
    const { program: _program, mode: _mode, ...options } = raw;
    let done = 0;
    const say = (message: string) => host.progress(message, done);
    for (const note of notes) say(note);
    let splits: { train: string; dev: string; test: string };
    if (input.dev !== undefined && input.test !== undefined)
      splits = { train, dev: await existingFile(host, input.dev, '"dev"'), test: await existingFile(host, input.test, '"test"') };
    else {
      const folder = join(defaultWorkFolder(out), 'splits');
      const written = writeSplits(train, seed, folder);
      say(`"train" split by seed ${seed}: ${written.sizes[0]} train, ${written.sizes[1]} dev, ${written.sizes[2]} test (in ${folder})`);
      splits = written.paths;
    }
    const o = parseRunOptions({ ...options, program: library }, host.label('library'));
    let end: ImproveEnd;
    try {
      end = await improveLibrary({
        library,
        ...splits,
        out,
        options,
        optionLabel: host.label('library'),
        apiKey: async opts => {
          const { key, note } = await host.key(opts, mayCallEndpoint(opts));
          if (note) say(note);
          return key;
        },
        chatModel: await host.chatModel(o, `ART Studio improves ${given} with this model.`),
        trusted: host.trusted,
        userToolsRefused: host.userToolsRefused,
        concurrency: concurrencyOf(args.concurrency, host),
        budget: input.budget ?? 1000,
        seed,
        signal: host.signal,
        log: say,
        onEvaluation: e => say(`${e.label}: ${e.total} example(s), ${e.done} already run`),
        onResult: (phase, r) => {
          done++;
          say(`${phase} ${r.id}: ${r.exact ? 'ok' : 'wrong'}`);
        },
      });
    } catch (e) {
      if (e instanceof ImproveStopped || e instanceof PlanError || e instanceof ImproveError) throw new CliError(`improve: ${e.message}`);
      throw e;
    }
    const decides = await host.views?.proposeLibrary(library, end);
    return { text: [formatImprove(end), ...(decides ? [decides] : [])].join('\n'), structured: improveJson(end) };
  },
});
