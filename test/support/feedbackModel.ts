// A scripted model that learns from demonstrations, for the tests of ART's human-feedback loop (evaluate, debug a
// failed example, correct it, save it as a demonstration, evaluate again). It answers examples/data/arithmetic.jsonl
// with examples/library.art's "Elementary Math" task by one calculator step whose output it gives as the answer;
// its habit for "pages" is a wrong decomposition (240 * 30, so 7200, not 8). It reads its whole prompt at each
// request (ScriptedServer.scriptsFor): when the prompt holds a demonstration of the very question (the same Input),
// it follows that demonstration, writing its steps (the tools fill in their outputs) and its answer; otherwise it
// follows its habit, answering with the output the prompt shows for its step. So a second evaluation answers
// "pages" right only when the library has gained a demonstration that shows the right steps: nothing here knows the
// right answer.
import { normalizeName } from '../../core/art/ast';
import { BUILTIN_TOOLS } from '../../core/art/knownTools';
import { parseArt } from '../../core/art/parse';
import { artProgramParts } from '../../core/replay/programReplay';
import { ContinuationScript } from '../../core/replay/script';
import { arithmeticExamples } from './arithmeticModel';
import type { ScriptedServer } from './scriptedServer';

/** The model's habit: the calculator expression it writes for each example ("pages" wrong). */
export const FEEDBACK_HABITS: Record<string, string> = {
  eggs: '16 - 3 - 4',
  pens: '3 * 7',
  train: '60 * 2.5',
  apples: '12 - 12 / 3',
  pages: '240 * 30',
  shelves: '5 * 14 + 9',
};

const TOOLS = new Set(BUILTIN_TOOLS.map(t => normalizeName(t.name)));
const isTool = (name: string) => TOOLS.has(normalizeName(name));

/** What the model writes after `prompt`, as the scripts that continue it (none: a prompt it has no answer for). */
export function feedbackScripts(prompt: string): ContinuationScript[] {
  // The task: the last `Input: ...` followed by `Q1:`.
  const tasks = [...prompt.matchAll(/^Input: (.*)\nQ1:/gm)];
  const task = tasks.at(-1);
  if (!task) return [];
  const input = task[1].trim();
  const anchor = `Input: ${task[1]}\nQ1:`;
  // A demonstration of the same question, before the task: followed step by step.
  const doc = parseArt(prompt.slice(0, task.index));
  const demo = doc.programs.find(p => p.input?.text.trim() === input && p.steps.length > 0 && p.ans);
  if (demo) return [new ContinuationScript(anchor, artProgramParts(doc.text, demo, isTool))];
  const example = arithmeticExamples().find(e => e.input.trim() === input);
  if (!example) return [];
  const soFar = prompt.slice(task.index! + task[0].length);
  // After its step's output: the answer is that output, whatever input the step ran on.
  const output = /\n#1:[ \t]*(.*)\n?$/.exec(soFar);
  if (output)
    return [
      ContinuationScript.parse(`${soFar}${soFar.endsWith('\n') ? '' : '\n'}Q2: [EOQ]\nAns: ${output[1].trim()}\n----\nDescription: more`, anchor),
    ];
  // Before it: its habit's step (the runner stops at the call and runs the calculator).
  return [ContinuationScript.parse(` [calculator] ${FEEDBACK_HABITS[example.id]}\n#⟂1:⟦ ?⟧\nQ2: [EOQ]\nAns: ?`, anchor)];
}

/** Makes `server` this model. */
export function useFeedbackModel(server: ScriptedServer): ScriptedServer {
  server.setScripts();
  server.scriptsFor = feedbackScripts;
  return server;
}
