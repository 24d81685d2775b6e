// A run of an `.art` task library: the program picked, the demonstrations selected (by the run option `select`), the
// model (the endpoint, or a replay of the program's recorded text that departs from it on the first change).
import { resolve } from 'node:path';
import { normalizeName, openStep, programTitle, recordedSteps, type ArtDocument } from '../art/ast';
import { parseArt } from '../art/parse';
import type { ModelClient } from '../model/types';
import { createArtRunner } from './create';
import { libraryAsRun, taskOf } from '../prompt/prompt';
import { chooseDemonstrations, folderLibraries } from '../evaluation/taskSelection';
import { departOnEdit } from '../replay/departure';
import { ReplayModel } from '../replay/programReplay';
import { LaunchError } from './options';
import { pickProgram } from './pick';
import { withCache } from './requestCache';
import { endpointModel, hasLiveModel, runnerOptions, type Launch, type Made } from './session';

export async function makeArtRun(text: string, path: string, launch: Launch): Promise<Made> {
  // `%%` reads `%` in a library with a `%s` template (prompt.ts): lines and program indices are unchanged.
  const doc = libraryAsRun(parseArt(text));
  const index = pickProgram(doc, launch.options.task);
  const program = doc.programs[index];
  if (!program.input) throw new LaunchError(`program ${index} (${programTitle(program, index)}) has no Input: line to run`);
  const input = launch.options.input?.trim() ? launch.options.input : undefined;
  let replay: ReplayModel | undefined;
  const own = input === undefined || input.trim() === program.input.text.trim();
  const open = openStep(program);
  // A program ending at an open `Qk:` after steps of its own: the run writes those as given (the tools run again),
  // then the model writes from `Qk:`, in replay and live mode alike.
  const fromOpen = !!open && own && recordedSteps(program).length > 0;
  if (launch.options.mode === 'replay' || fromOpen) {
    if (!recordedSteps(program).length)
      throw new LaunchError(
        open
          ? `program ${index} (${programTitle(program, index)}) ends at "Q${open.number}:" for the model to write from, and has no steps to replay: run it live (set a model)`
          : `program ${index} (${programTitle(program, index)}) has no steps to replay`,
      );
    // A configured endpoint is where the run goes on once it departs from the recording.
    const live = hasLiveModel(launch) ? endpointModel(launch) : undefined;
    replay = ReplayModel.fromArtProgram(doc, index, name => launch.tools.get(name) !== undefined, {
      chunkDelayMs: launch.options.replayDelayMs,
      live,
    });
  }
  const model = withCache(launch, () => replay ?? endpointModel(launch));
  const demonstrations = await selectForRun(doc, path, index, input, model, launch);
  const runner = createArtRunner(
    {
      library: doc,
      program: index,
      task: input !== undefined ? { input } : undefined,
      demonstrations,
      inlineTriggers: launch.options.inlineTriggers,
    },
    runnerOptions(launch, model),
  );
  if (replay) {
    // Step k of a replay of the file's own program is its Qk: a tool whose output now differs ends the recording.
    departOnEdit(
      runner,
      replay.departure,
      launch.config.log,
      own ? call => program.steps.find(s => s.number === call.step)?.answer?.text : undefined,
    );
  }
  return {
    runner,
    unit: index,
    title: programTitle(program, index),
    ownProgram: !!replay && own,
    model,
  };
}

/**
 * The demonstrations by the run option `select` (`same-file`: every program of the file but the one run). The folder's
 * other .art files are the candidates of the other strategies; `best-cluster` tries each on the programs of the file
 * with the run program's task name (their inputs and answers), the run program left out.
 */
async function selectForRun(doc: ArtDocument, path: string, index: number, input: string | undefined, model: ModelClient, launch: Launch) {
  const strategy = launch.options.select;
  if (strategy === 'same-file')
    return chooseDemonstrations({ strategy, libraries: [{ path: resolve(path), doc }], task: { input: '' }, exclude: [index] });
  if (launch.options.mode === 'replay' && (strategy === 'llm' || strategy === 'best-cluster'))
    throw new LaunchError(`select "${strategy}" asks the model: run in generate mode (replay mode has no model to ask)`);
  const task = { ...taskOf(doc, index), ...(input !== undefined ? { input } : {}) };
  const program = doc.programs[index];
  const name = normalizeName(program.description?.taskName ?? '');
  const labelled = doc.programs
    .filter((p, i) => i !== index && name && normalizeName(p.description?.taskName ?? '') === name && p.input && p.ans)
    .map(p => ({ input: p.input!.text, target: p.ans!.text }));
  if (strategy === 'best-cluster' && !labelled.length)
    throw new LaunchError(
      `select "best-cluster" needs labelled examples: the file has no other program of the task "${program.description?.taskName ?? programTitle(program, index)}" (art eval --select best-cluster uses the dataset's)`,
    );
  try {
    return await chooseDemonstrations({
      strategy,
      libraries: folderLibraries(path, doc, line => launch.config.log?.(`select ${strategy}: ${line}`)),
      task,
      model,
      labelled,
      runnerOptions: { ...runnerOptions({ ...launch, trace: undefined }, model), log: undefined },
      exclude: [index],
      explain: line => launch.config.log?.(`select ${strategy}: ${line}`),
    });
  } catch (e) {
    throw new LaunchError(`select "${strategy}": ${(e as Error).message}`);
  }
}
