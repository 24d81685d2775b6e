// The agent tool compare, and what it and `art compare` answer: two evaluations' results files paired by example id
// (core/evaluation/compare.ts), the text `art compare` prints and the JSON of `art compare --json`.
import { z } from 'zod';
import { COMPARE_METRICS, compareResults, comparisonJson, formatComparison, type CompareMetric } from '../evaluation/compare';
import { EvalDataError } from '../evaluation/eval';
import { formatHeader, headerDifferences, libraryChanged, loadResultsFile } from '../evaluation/header';
import { CliError } from '../common/sourceFiles';
import { filePath } from './shapes';
import { defineTool } from './tool';

export interface FileComparison {
  /** What `--json` prints: the comparison, both headers and their differences. */
  json: ReturnType<typeof comparisonJson> & { headerDifferences: string[] };
  /** What `art compare` prints: both headers, then the comparison. */
  text: string;
  /** Set when the evaluations differ in more than the library (another model, other options). */
  warning?: string;
}

/** Two results files compared (`art compare`, the MCP tool `compare`); a CliError names a file that cannot be read. */
export function compareFiles(pathA: string, pathB: string, metric: CompareMetric = 'exact'): FileComparison {
  let files;
  try {
    files = [loadResultsFile(pathA), loadResultsFile(pathB)];
  } catch (e) {
    if (e instanceof EvalDataError) throw new CliError(`art compare: ${e.message}`);
    throw e;
  }
  const [a, b] = files;
  const c = compareResults(a.results, b.results, metric);
  const differences = headerDifferences(a.header, b.header);
  const lines = [`A ${pathA}\n  ${formatHeader(a.header)}\nB ${pathB}\n  ${formatHeader(b.header)}`];
  if (libraryChanged(a.header, b.header) === false) lines.push('the library is the same in both (same content)');
  lines.push('', formatComparison(c, [pathA, pathB]));
  return {
    json: { ...comparisonJson(c, [pathA, pathB], [a.header, b.header]), headerDifferences: differences },
    text: lines.join('\n'),
    warning: differences.length ? `the evaluations differ in more than the library: ${differences.join('; ')}` : undefined,
  };
}

/** One side of a comparison: its file, the examples both have, how many it got right, and what produced it. */
const compareSide = z.looseObject({ file: z.string(), n: z.number(), correct: z.number(), accuracy: z.number() });

export const compare = defineTool({
  name: 'compare',
  title: 'Compare two evaluations',
  description:
    "Two evaluations' results files paired by example id, as `art compare` prints them: each side's accuracy on the examples both have (with its Wilson interval), the difference with its paired interval, the examples fixed (wrong in A, right in B) and broken, McNemar's exact two-sided p-value, the examples only one side has, and what produced each file (a warning when they differ in more than the library).",
  input: {
    a: filePath('The earlier results file (.results.jsonl), A'),
    b: filePath('The later results file (.results.jsonl), B'),
    metric: z.enum(COMPARE_METRICS).optional().describe('The score compared: exact (default) or substring match.'),
  },
  output: {
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
  editor: {
    displayName: 'ART: Compare Evaluations',
    referenceName: 'artCompare',
    userDescription: 'Two evaluations compared example by example: fixed, broken, and a paired test.',
    icon: '$(diff)',
    invocation: () => 'Comparing two evaluations',
  },
  run: async (input, host) => {
    const r = compareFiles(await host.path(input.a, '"a"'), await host.path(input.b, '"b"'), input.metric ?? 'exact');
    return { text: r.warning ? `warning: ${r.warning}\n${r.text}` : r.text, structured: { ...r.json } };
  },
});
