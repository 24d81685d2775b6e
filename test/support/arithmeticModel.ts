// A scripted model that answers examples/data/arithmetic.jsonl with examples/library.art's "Elementary Math" task:
// each example's program calls the calculator (re-executed for real) and answers; "pages" is answered wrong (6, not
// 8), so 5 of the 6 examples are right. Shared by the `art eval` tests, the VS Code integration test and the
// end-to-end scenario's server (test/support/arithmeticServer.ts).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ContinuationScript } from '../../core/replay/script';
import type { ScriptedServer } from './scriptedServer';

/** The checkout's root, found upwards from here (test/support under tsx, dist/test/vscode in the bundled suite). */
const ROOT = (() => {
  for (let d = __dirname; ; d = dirname(d)) {
    if (existsSync(join(d, 'examples/data/arithmetic.jsonl'))) return d;
    if (dirname(d) === d) throw new Error(`examples/data/arithmetic.jsonl not found above ${__dirname}`);
  }
})();
export const ARITHMETIC_LIBRARY = join(ROOT, 'examples/library.art');
export const ARITHMETIC_DATA = join(ROOT, 'examples/data/arithmetic.jsonl');
export const ARITHMETIC_TASK = 'Elementary Math';

export const arithmeticExamples = (): { id: string; input: string; target: string }[] =>
  readFileSync(ARITHMETIC_DATA, 'utf8')
    .trim()
    .split('\n')
    .map(l => JSON.parse(l) as { id: string; input: string; target: string });

/** The scripted model's program per example: a calculator step, then the answer (wrong for "pages"). */
const SOLUTIONS: Record<string, [string, string]> = {
  eggs: ['16 - 3 - 4', '9'],
  pens: ['3 * 7', '21'],
  train: ['60 * 2.5', '150'],
  apples: ['12 - 12 / 3', '8'],
  pages: ['240 / 30', '6'],
  shelves: ['5 * 14 + 9', '79'],
};

export function arithmeticScripts(): ContinuationScript[] {
  return arithmeticExamples().map(e => {
    const [expr, answer] = SOLUTIONS[e.id];
    return ContinuationScript.parse(
      ` [calculator] ${expr}\n#⟂1:⟦ ${answer}⟧\nQ2: [EOQ]\nAns: ${answer}\n----\nDescription: more`,
      `Input: ${e.input}\nQ1:`,
    );
  });
}

/** Runs of each example at the server: requests whose prompt ends with the example's new task (a run's first request). */
export const runsAtServer = (server: ScriptedServer): Record<string, number> =>
  Object.fromEntries(arithmeticExamples().map(e => [e.id, server.requests.filter(r => r.prompt.endsWith(`Input: ${e.input}\nQ1:`)).length]));
