// `art compare A.results.jsonl B.results.jsonl [--json] [--metric exact|substring]`: two evaluations paired by
// example id (core/evaluation/compare.ts): each side's accuracy on the examples both have, the difference with its
// paired interval, the examples fixed and broken, McNemar's exact p-value, and what produced each file (its header),
// with a warning when the two differ in more than the library. Exit 0; a file that cannot be read is one line.
import { parseArgs } from 'node:util';
import { COMPARE_METRICS, type CompareMetric } from '../evaluation/compare';
import { compareFiles } from '../agentTools/compare';
import { CliError } from './files';
import { terminalJson } from '../common/terminalText';

export const COMPARE_USAGE = 'usage: art compare A.results.jsonl B.results.jsonl [--json] [--metric exact|substring]';

export function compareCommand(argv: string[], io: { out: (s: string) => void; err: (s: string) => void }): number {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { json: { type: 'boolean' }, metric: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
  });
  if (values.help) {
    io.out(
      `${COMPARE_USAGE}\n\nPairs two evaluations' results by example id and reports each side's accuracy, the difference, the examples\nfixed (wrong in A, right in B) and broken (right in A, wrong in B), and McNemar's exact p-value.\n  --metric exact|substring  the score compared (default exact)\n  --json                    one JSON object`,
    );
    return 0;
  }
  if (positionals.length !== 2) throw new CliError(`art compare: give two results files\n${COMPARE_USAGE}`);
  const metric = (values.metric ?? 'exact') as CompareMetric;
  if (!COMPARE_METRICS.includes(metric)) throw new CliError(`art compare: --metric: expected exact or substring, not "${values.metric}"`);
  const [pathA, pathB] = positionals;
  const r = compareFiles(pathA, pathB, metric);
  if (values.json) {
    io.out(terminalJson(r.json, 2));
    return 0;
  }
  if (r.warning) io.err(`art compare: warning: ${r.warning}`);
  io.out(r.text);
  return 0;
}
