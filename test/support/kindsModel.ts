// A scripted model that learns only from the demonstrations in its prompt, for the tests of `art improve`. The
// problems are of three kinds, "What is A plus B?", "... times ...", "... minus ...": it solves one by a calculator
// step (the calculator runs for real) and answers with the step's output, so it knows no answer itself; what it must
// know is the operation of the kind, and it knows it only when a demonstration in its prompt shows that kind (a
// demonstration whose input has the kind's word and whose calculator step uses its operator). For a kind no
// demonstration shows it writes, at temperature 0, the operator of the first demonstration it sees (wrong for every
// other kind); above 0 it guesses one of the three, a different guess each time it sees the same prompt (in a
// sequence fixed by the prompt, so a test's runs are the same each time). `learns: false` is the control: it ignores
// the demonstrations (temperature 0: always "+"), so no demonstration can help it.
import { createHash } from 'node:crypto';
import { parseArt } from '../../core/art/parse';
import { ContinuationScript } from '../../core/replay/script';
import type { ScriptedServer } from './scriptedServer';

export const KINDS: Record<string, string> = { plus: '+', times: '*', minus: '-' };
const OPS = ['+', '*', '-'];

/** The library: a preamble, one demonstration of the "plus" kind, and the template. */
export const KINDS_LIBRARY = `Solve the arithmetic problem with the calculator.

Description: (Arithmetic) Solve the problem.
Input: What is 20 plus 22?
Q1: [calculator] 20 + 22
#1: 42
Q2: [EOQ]
Ans: 42
----
Description: (Arithmetic) Solve the problem.
Input: %s
Q1:`;

/** `n` problems of each kind, numbers drawn from `start` so the splits do not share one. */
export function kindsData(n: number, start: number): { id: string; input: string; target: string }[] {
  const out: { id: string; input: string; target: string }[] = [];
  for (let i = 0; i < n; i++)
    for (const [word, op] of Object.entries(KINDS)) {
      const a = start + 7 * i + 13;
      const b = 3 + ((start + i) % 7);
      const target = op === '+' ? a + b : op === '*' ? a * b : a - b;
      out.push({ id: `${word}-${start + i}`, input: `What is ${a} ${word} ${b}?`, target: String(target) });
    }
  return out;
}

export const jsonl = (rows: object[]) => rows.map(r => `${JSON.stringify(r)}\n`).join('');

const kindOf = (input: string) => Object.keys(KINDS).find(w => new RegExp(`\\b${w}\\b`).test(input));

/** What the model writes after `prompt`, as scripts (none: a prompt that is not one of its problems). */
export function kindsScripts(prompt: string, temperature: number, learns: boolean, seen: Map<string, number>): ContinuationScript[] {
  const tasks = [...prompt.matchAll(/^Input: (.*)\nQ1:/gm)];
  const task = tasks.at(-1);
  if (!task) return [];
  const input = task[1].trim();
  const anchor = `Input: ${task[1]}\nQ1:`;
  const soFar = prompt.slice(task.index! + task[0].length);
  // After its step's output: the answer is that output.
  const output = /\n#1:[ \t]*(.*)\n?$/.exec(soFar);
  if (output)
    return [
      ContinuationScript.parse(`${soFar}${soFar.endsWith('\n') ? '' : '\n'}Q2: [EOQ]\nAns: ${output[1].trim()}\n----\nDescription: more`, anchor),
    ];
  const m = /^What is (\d+) (\w+) (\d+)\?$/.exec(input);
  if (!m) return [];
  // The operators the demonstrations before the task show, by kind.
  const shown = new Map<string, string>();
  let first: string | undefined;
  for (const p of parseArt(prompt.slice(0, task.index)).programs) {
    const step = p.steps.find(s => s.name?.toLowerCase() === 'calculator');
    const op = step && /[-+*]/.exec(step.instruction)?.[0];
    const kind = p.input && kindOf(p.input.text);
    if (!op || !kind) continue;
    first ??= op;
    shown.set(kind, op);
  }
  let op: string;
  if (learns && shown.has(m[2])) op = shown.get(m[2])!;
  else if (temperature > 0) {
    const k = seen.get(prompt) ?? 0;
    seen.set(prompt, k + 1);
    op = OPS[createHash('sha256').update(`${prompt}\n${k}`).digest()[0] % 3];
  } else op = learns ? (first ?? '+') : '+';
  return [ContinuationScript.parse(` [calculator] ${m[1]} ${op} ${m[3]}\n#⟂1:⟦ ?⟧\nQ2: [EOQ]\nAns: ?`, anchor)];
}

/** Makes `server` this model (`learns: false`: the control, which no demonstration helps). */
export function useKindsModel(server: ScriptedServer, learns = true): ScriptedServer {
  const seen = new Map<string, number>();
  server.setScripts();
  server.scriptsFor = (prompt, body) => kindsScripts(prompt, Number(body.temperature ?? 0), learns, seen);
  return server;
}
