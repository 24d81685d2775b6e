// Task selection strategies that need more than the text: `llm` asks the model, for each task of the candidate
// libraries, whether it is similar to the new task (a similarity prompt in the shape of the ART reference's
// task-similarity-prompt.txt, in our own words), scored by the log-probability of "Yes" where the endpoint returns
// logprobs and by the Yes/No answer otherwise, and keeps the programs of the most similar tasks; `best-cluster`
// runs each library file on a few labelled examples and keeps the file that answers most of them. `same-file` and
// `similar` are selection.ts's. The candidate libraries are the .art files of the library's folder.
import { readdirSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { ArtDocument, Program } from '../art/ast';
import { parseArt } from '../art/parse';
import { readTextFile } from '../common/textFile';
import type { ModelClient } from '../model/types';
import { createArtRunner } from '../launch/create';
import { normaliseAnswer } from './eval';
import { descriptionText } from '../prompt/prompt';
import { describeWhy } from '../prompt/promptReport';
import {
  isDemonstration,
  selectDemonstrations,
  type Demonstration,
  type SelectionWhy,
  type SelectStrategy,
  type TaskSpec,
} from '../prompt/selection';
import type { RunnerOptions } from '../engine/runnerOptions';

export interface LibraryFile {
  path: string;
  doc: ArtDocument;
}

/**
 * The library first, then the other .art files of its folder in name order. A file that cannot be read is left out,
 * and `skipped` is told so in one line each (the candidates, and so the prompts and results, differ without it).
 */
export function folderLibraries(path: string, doc: ArtDocument, skipped?: (line: string) => void): LibraryFile[] {
  const dir = dirname(resolve(path));
  const others = readdirSync(dir)
    .filter(f => f.endsWith('.art') && f !== basename(path))
    .sort()
    .flatMap(f => {
      try {
        return [{ path: join(dir, f), doc: parseArt(readTextFile(join(dir, f))) }];
      } catch (e) {
        skipped?.(`${join(dir, f)}: ${(e as Error).message}; left out of task selection (fix the file or move it out of the folder)`);
        return [];
      }
    });
  return [{ path: resolve(path), doc }, ...others];
}

/** A labelled example of the new task: an input and the answer expected. */
export interface LabelledExample {
  input: string;
  target: string;
}

export interface ChooseOptions {
  strategy: SelectStrategy;
  /** The run's library first (`same-file` uses it alone), then the other candidates. */
  libraries: LibraryFile[];
  task: TaskSpec;
  /** `llm`: the judge; `best-cluster`: the model of the trial runs. */
  model?: ModelClient;
  /** `best-cluster`: the examples each file is tried on. */
  labelled?: LabelledExample[];
  /** `best-cluster`: the options of the trial runs. */
  runnerOptions?: RunnerOptions;
  /** Program indices of the first library to leave out (the program being run). */
  exclude?: number[];
  /** Demonstrations to keep (`similar`, `llm`). Default 5. */
  k?: number;
  signal?: AbortSignal;
  /** Why each demonstration was chosen, as it is decided. */
  explain?: (line: string) => void;
}

/** The demonstrations for the task, by the strategy, each with its file and why it was chosen. */
export async function chooseDemonstrations(o: ChooseOptions): Promise<Demonstration[]> {
  const docs = o.libraries.map(l => l.doc);
  const withFiles = (chosen: Demonstration[]) => chosen.map(d => ({ ...d, file: d.file ?? o.libraries.find(l => l.doc === d.doc)?.path }));
  switch (o.strategy) {
    case 'same-file':
    case 'similar':
      return withFiles(selectDemonstrations(docs, o.task, { strategy: o.strategy, k: o.k, exclude: o.exclude }));
    case 'llm':
      return withFiles((await llmSelect(o)).chosen);
    case 'best-cluster': {
      const best = await bestCluster(o);
      const why: SelectionWhy = { strategy: 'best-cluster', file: best.path, correct: best.correct, tried: best.tried };
      return withFiles(selectDemonstrations([best.doc], o.task, { exclude: best.doc === docs[0] ? o.exclude : [] }).map(d => ({ ...d, why })));
    }
  }
}

/** The similarity prompt's instruction and worked examples (ours; the shape of the ART reference's). */
export const SIMILARITY_PREAMBLE = `Below are pairs of tasks, each with a description and an example input and answer. Decide whether the two tasks are similar: two tasks are similar when solving them takes the same kind of steps, such as arithmetic, running code, searching for facts, editing or reordering strings, or translating.
----
Task1: [Unit conversion] Convert a quantity from one unit to another. Input: How many centimetres are in 3.5 feet? The final answer is 106.68.
Task2: [Shopping totals] Work out what a list of purchases costs. Input: Three pens at $1.20 and a notebook at $4.50. The final answer is 8.10.
Are these similar? Yes. Both come down to writing out arithmetic and computing it.
----
Task1: [Reverse words] Write the words of a sentence in reverse order. Input: "the cat sat down" The final answer is "down sat cat the".
Task2: [Capital cities] Name the capital of a country. Input: What is the capital of Kenya? The final answer is Nairobi.
Are these similar? No. The first rearranges a string; the second looks up a fact.
----
Task1: [Acronyms] Form the acronym of a phrase from its first letters. Input: "portable network graphics" The final answer is "PNG".
Task2: [Last letters] Join the last letter of each word. Input: "Elon Musk" The final answer is "nk".
Are these similar? Yes. Both pick characters out of words and join them.
----
`;

/** One task's line in the similarity prompt: `[name] description Input: ... The final answer is ...`. */
function taskLine(label: string, spec: TaskSpec, answer?: string): string {
  const d = descriptionText({ ...spec, taskName: undefined });
  const name = spec.taskName ?? (d.split(/[.:]/)[0] || 'Task');
  const fin = answer !== undefined ? ` The final answer is ${answer.trim()}.` : '';
  return `${label}: [${name.trim()}] ${d} Input: ${spec.input.trim().replace(/\s+/g, ' ')}${fin}`;
}

export function similarityPrompt(candidate: Program, task: TaskSpec): string {
  const spec: TaskSpec = {
    taskName: candidate.description?.taskName ?? undefined,
    description: candidate.description?.text,
    input: candidate.input?.text ?? '',
  };
  return `${SIMILARITY_PREAMBLE}${taskLine('Task1', spec, candidate.ans?.text)}\n${taskLine('Task2', task)}\nAre these similar?`;
}

export interface ScoredTask {
  /** The candidates of one task (same file, same task name or description). */
  demonstrations: Demonstration[];
  /** P(Yes): exp(logprob) of the answer when it is Yes, 1 - that when No; 1 or 0 from the answer alone without logprobs. */
  score: number;
  answer: string;
  usedLogprobs: boolean;
  /** The log-probability of the answer's first token, where the endpoint returned it. */
  logprob: number | null;
}

/** `llm`: asks the model about each candidate task once (its first program stands for it); keeps the best k programs. */
export async function llmSelect(o: ChooseOptions): Promise<{ chosen: Demonstration[]; scored: ScoredTask[] }> {
  if (!o.model) throw new Error('task selection "llm" needs a model endpoint (baseURL and model)');
  const candidates = selectDemonstrations(
    o.libraries.map(l => l.doc),
    o.task,
    { strategy: 'similar', k: Number.MAX_SAFE_INTEGER, exclude: o.exclude },
  );
  const groups = new Map<string, Demonstration[]>();
  for (const c of candidates) {
    const key = `${o.libraries.findIndex(l => l.doc === c.doc)}\u0000${c.program.description?.taskName ?? c.program.description?.text ?? c.index}`;
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  const scored: ScoredTask[] = [];
  for (const demonstrations of groups.values()) {
    const r = await o.model.complete({
      prompt: similarityPrompt(demonstrations[0].program, o.task),
      maxTokens: 2,
      temperature: 0,
      logprobs: true,
      signal: o.signal,
    });
    const answer = r.text.trim();
    const yes = /^yes\b/i.test(answer);
    const no = /^no\b/i.test(answer);
    const lp = r.tokenLogprobs?.[0];
    const usedLogprobs = lp !== undefined && (yes || no);
    const p = usedLogprobs ? Math.exp(lp) : undefined;
    const score = yes ? (p ?? 1) : no ? (p !== undefined ? 1 - p : 0) : 0;
    scored.push({ demonstrations, score, answer, usedLogprobs, logprob: usedLogprobs ? lp : null });
  }
  const k = Math.max(1, o.k ?? 5);
  const order = [...scored].sort((a, b) => b.score - a.score);
  const chosen = new Map<Demonstration, SelectionWhy>();
  for (const s of order) {
    for (const d of s.demonstrations) {
      if (chosen.size >= k) break;
      const why: SelectionWhy = { strategy: 'llm', pYes: s.score, answer: s.answer, logprob: s.logprob };
      chosen.set(d, why);
      o.explain?.(`${d.program.description?.taskName ?? `program ${d.index}`}: ${describeWhy(why)}`);
    }
  }
  // In the candidates' order, as the prompt lists them.
  return { chosen: candidates.filter(c => chosen.has(c)).map(c => ({ ...c, why: chosen.get(c) })), scored };
}

/** `best-cluster`: runs each file (its programs as the demonstrations) on the labelled examples; the most exact wins. */
export async function bestCluster(o: ChooseOptions): Promise<LibraryFile & { correct: number; tried: number }> {
  const labelled = o.labelled ?? [];
  if (!labelled.length) throw new Error('task selection "best-cluster" needs labelled examples of the task to try each file on');
  if (!o.runnerOptions) throw new Error('task selection "best-cluster" needs a model endpoint to run the examples');
  let best: (LibraryFile & { correct: number; tried: number }) | undefined;
  for (const [li, lib] of o.libraries.entries()) {
    if (!lib.doc.programs.some(isDemonstration)) continue;
    let correct = 0;
    for (const ex of labelled) {
      if (o.signal?.aborted) throw o.signal.reason ?? new Error('aborted');
      const demonstrations = selectDemonstrations([lib.doc], o.task, { exclude: li === 0 ? o.exclude : [] });
      const runner = createArtRunner({ library: lib.doc, task: { ...o.task, input: ex.input }, demonstrations }, o.runnerOptions);
      const r = await runner.run();
      if (r.reason === 'finished' && r.answer !== null && normaliseAnswer(r.answer) === normaliseAnswer(ex.target)) correct++;
    }
    o.explain?.(`${basename(lib.path)}: ${correct}/${labelled.length} labelled examples right`);
    if (!best || correct > best.correct) best = { ...lib, correct, tried: labelled.length };
  }
  if (!best) throw new Error('task selection "best-cluster": no library file has a demonstration');
  return best;
}
