// `art improve LIBRARY --data TRAIN.jsonl --dev DEV.jsonl --test TEST.jsonl`: the library improved by demonstrations
// bootstrapped from its training runs, chosen on dev, proven on test (core/improve/improve.ts). With --data alone the
// dataset is split in three, seeded. The plan (the most requests --budget allows) is printed before anything runs;
// progress as `art eval` shows it; SIGINT/SIGTERM stop cleanly and the same command resumes, reusing what ran. The
// run options are those `art eval` takes (the one declaration, core/launch/options.ts).
import { join, resolve } from 'node:path';
import { EvalDataError, type EvalResult } from '../evaluation/eval';
import { LaunchError } from '../launch/options';
import { defaultImprovedPath, defaultWorkFolder, improve, ImproveError, ImproveStopped, PlanError } from '../improve/improve';
import { writeSplits } from '../improve/splits';
import { libraryCommandLine, libraryUsage, positiveInt, progressKind, progressReporter, type EvalIo } from './eval';
import { CliError } from './files';
import { stoppable } from './signals';
import { cliLabel } from './optionFlags';
import { formatImprove, improveJson } from '../agentTools/improve';

const SHELL_FLAGS = [
  {
    flag: 'data',
    arg: 'TRAIN.jsonl',
    help: 'the training split: its right runs become candidate demonstrations (alone: the one dataset, split in three by --seed)',
  },
  { flag: 'dev', arg: 'DEV.jsonl', help: 'the dev split: candidate sets are scored on it (never a demonstration)' },
  { flag: 'test', arg: 'TEST.jsonl', help: 'the test split: the original and the improved library are compared on it (McNemar)' },
  {
    flag: 'out',
    arg: 'NEW.art',
    help: 'the proposed library (default LIBRARY.improved.art; a new file or an earlier proposal, never the library nor any other file)',
  },
  { flag: 'budget', arg: 'N', help: 'the most model requests everything may send (default 1000)' },
  { flag: 'bootstrap-temperature', arg: 'T', help: 'the temperature of the training runs (default --temperature when above 0, else 0.7)' },
  { flag: 'concurrency', arg: 'C', help: 'examples run at once, and the bound on requests in flight (default 4)' },
  { flag: 'progress', arg: 'bar|lines|none', help: 'a progress bar (default on a terminal) or one line per example (default in a pipe)' },
  { flag: 'json', arg: '', type: 'boolean', help: 'print one JSON object' },
] as const;

export function improveUsage(): string {
  return libraryUsage(
    'usage: art improve LIBRARY --data TRAIN.jsonl --dev DEV.jsonl --test TEST.jsonl [options]',
    'the task library (.art) to improve',
    SHELL_FLAGS,
  );
}

export async function improveCommand(argv: string[], io: EvalIo): Promise<number> {
  const line = libraryCommandLine('improve', argv, SHELL_FLAGS, improveUsage, io);
  if (!line) return 0;
  const { values, given, library, here } = line;
  if (typeof values.data !== 'string')
    throw new CliError('art improve: give the training split: --data TRAIN.jsonl (with --dev and --test, or alone to split it)');
  if ((typeof values.dev === 'string') !== (typeof values.test === 'string'))
    throw new CliError('art improve: give both --dev and --test, or neither (then --data is split in three)');
  const out = resolve(here, typeof values.out === 'string' ? values.out : defaultImprovedPath(library));
  const budget = positiveInt(values.budget, 1000, '--budget', 'improve');
  // The run option --seed (a local model's sampling) also seeds the choice of candidate sets and the split of --data.
  const seed = positiveInt(given.seed, 0, '--seed', 'improve', 0);
  const concurrency = positiveInt(values.concurrency, 4, '--concurrency', 'improve');
  const t = values['bootstrap-temperature'];
  const temperature = t === undefined ? undefined : Number(t);
  if (temperature !== undefined && !(temperature > 0 && temperature <= 2))
    throw new CliError(`art improve: --bootstrap-temperature: expected a number above 0 and at most 2, not "${String(t)}"`);
  const progress = progressKind(values.progress, io, 'improve', !!values.json);
  const env = io.env ?? process.env;
  const say = (line: string) => io.err(`[art] ${line}`);

  const controller = new AbortController();
  let show: ReturnType<typeof progressReporter> | undefined;
  return stoppable(
    signal => controller.abort(new Error(`stopped by ${signal}`)),
    async () => {
      try {
        const splits = splitsOf(resolve(here, values.data as string), values, here, seed, defaultWorkFolder(out), say);
        const end = await improve({
          library,
          ...splits,
          out,
          options: { ...given, cwd: resolve(here, String(given.cwd ?? '.')) },
          optionLabel: cliLabel('LIBRARY'),
          apiKey: o => env[o.apiKeyEnv] || undefined,
          trusted: true,
          concurrency,
          budget,
          seed,
          temperature,
          signal: controller.signal,
          log: say,
          onPlan: (_, text) => say(text),
          onEvaluation: e => {
            show?.stop();
            say(`${e.label}: ${e.total} example(s), ${e.done} already run`);
            // With --json, standard output carries the one object: progress lines go to standard error.
            show = progressReporter(progress, e.total - e.done, [], values.json ? { ...io, write: s => io.err(s.replace(/\n$/, '')) } : io);
          },
          onResult: (_, r: EvalResult) => show?.add(r),
        });
        show?.stop();
        io.write(values.json ? `${JSON.stringify(improveJson(end), null, 2)}\n` : `${formatImprove(end)}\n`);
        return 0;
      } catch (e) {
        show?.stop();
        if (e instanceof ImproveStopped) {
          io.err(`art improve: ${e.message}`);
          return 130;
        }
        if (e instanceof LaunchError || e instanceof EvalDataError || e instanceof PlanError || e instanceof ImproveError)
          throw new CliError(`art improve: ${e.message}`);
        throw e;
      }
    },
  );
}

/** The three splits: as given, or --data split in three by the seed (written into the work folder). */
function splitsOf(
  data: string,
  values: Record<string, unknown>,
  here: string,
  seed: number,
  work: string,
  say: (line: string) => void,
): { train: string; dev: string; test: string } {
  if (typeof values.dev === 'string') return { train: data, dev: resolve(here, values.dev), test: resolve(here, values.test as string) };
  const folder = join(work, 'splits');
  const { paths, sizes } = writeSplits(data, seed, folder);
  say(`--data split by seed ${seed}: ${sizes[0]} train, ${sizes[1]} dev, ${sizes[2]} test (in ${folder})`);
  return paths;
}
