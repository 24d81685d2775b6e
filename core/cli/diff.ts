// `art diff TRACE_A TRACE_B`: two runs aligned step by step (core/replay/diff.ts), printed for a terminal. Exit 0
// whether or not they differ; a file that cannot be read or is not a trace is one line naming it and the fix.
import { readFileSync } from 'node:fs';
import { diffReport, runView, type RunView } from '../replay/diff';
import { readRecords } from '../trace/history';
import { CliError } from './files';

function load(path: string): RunView {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new CliError(
      `art diff: ${path}: cannot read the file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): give a run's .jsonl trace`,
    );
  }
  const { records, errors } = readRecords(text);
  if (errors.length)
    throw new CliError(`art diff: ${path}:${errors[0].line}: ${errors[0].message}: give a run's .jsonl trace (one JSON record a line)`);
  if (!records.some(r => r.t === 'run'))
    throw new CliError(`art diff: ${path}: no "run" record: give a run's .jsonl trace (written with --trace or kept in .art/runs)`);
  try {
    return runView(records);
  } catch (e) {
    throw new CliError(`art diff: ${path}: ${(e as Error).message}: give a trace written by this version of art`);
  }
}

export function diffCommand(a: string, b: string, io: { out: (s: string) => void }): number {
  const [va, vb] = [load(a), load(b)];
  io.out(diffReport(va, vb, [a, b]));
  return 0;
}
