// `art diff TRACE_A TRACE_B`: two runs aligned step by step (core/replay/diff.ts), printed for a terminal. Exit 0
// whether or not they differ; a file that cannot be read or is not a trace is one line naming it and the fix. The
// traces are read through the trace schema (core/trace/schema.ts), as `art run TRACE`, `art run --from` and
// `art prompt` read them: a record one refuses, all refuse, in the same words.
import { readTextFile, TextFileError } from '../common/textFile';
import { diffReport, runView, type RunView } from '../replay/diff';
import { parseTrace, runTraceProblem } from '../trace/trace';
import { CliError } from './files';

function load(path: string): RunView {
  let text: string;
  try {
    text = readTextFile(path);
  } catch (e) {
    const why = e instanceof TextFileError ? (e.code ?? e.message) : ((e as NodeJS.ErrnoException).code ?? (e as Error).message);
    throw new CliError(`art diff: ${path}: cannot read the file (${why}): give a run's .jsonl trace`);
  }
  const parsed = parseTrace(text);
  const problem = runTraceProblem(path, parsed);
  if (problem) throw new CliError(`art diff: ${problem}`);
  try {
    return runView(parsed.records);
  } catch (e) {
    throw new CliError(`art diff: ${path}: ${(e as Error).message}: give a trace written by this version of art`);
  }
}

export function diffCommand(a: string, b: string, io: { out: (s: string) => void }): number {
  const [va, vb] = [load(a), load(b)];
  io.out(diffReport(va, vb, [a, b]));
  return 0;
}
