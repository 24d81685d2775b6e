// A run of a MultiTool-CoT prompt (`NAME.cot.txt`): its `%s` filled with the question; replay mode replays the
// answer recorded beside it.
import { basename } from 'node:path';
import type { ModelClient } from '../model/types';
import { createMultiToolRunner } from './create';
import { fillCotPrompt } from '../prompt/cotPrompt';
import { cotRecording } from '../replay/cotRecording';
import { departOnEdit } from '../replay/departure';
import { ReplayModel } from '../replay/programReplay';
import { answerBeside, existing, readCompanion } from './companions';
import { COT_EXTENSION } from '../common/language';
import { LaunchError } from './options';
import { endpointModel, hasLiveModel, runnerOptions, type Launch, type Made } from './session';

/** A MultiTool-CoT prompt (`NAME.cot.txt`): replay mode replays `NAME.answer.txt` beside it. */
export function makeCotRun(text: string, path: string, launch: Launch): Made {
  const fill = (question: string) => {
    try {
      return fillCotPrompt(text, question);
    } catch (e) {
      throw new LaunchError(`${path}: ${(e as Error).message}`);
    }
  };
  let question = launch.options.input?.trim();
  let model: ModelClient;
  if (launch.options.mode === 'replay') {
    const recording = existing(answerBeside(path));
    if (!recording)
      throw new LaunchError(
        `replay mode replays a recorded answer, and ${basename(path)} has none beside it: add ${basename(answerBeside(path))} (the question on its first line, then the chain of thought), or run in generate mode`,
      );
    let recorded: ReturnType<typeof cotRecording>;
    try {
      recorded = cotRecording(readCompanion(recording), fill);
    } catch (e) {
      if (e instanceof LaunchError) throw e;
      throw new LaunchError(`${recording}: ${(e as Error).message}`);
    }
    if (question && question.replace(/\s+/g, ' ') !== recorded.question)
      throw new LaunchError(
        `${basename(recording)} answers the question "${recorded.question}": leave the input empty to replay it, or run in generate mode to ask another`,
      );
    question = recorded.question;
    const live = hasLiveModel(launch) ? endpointModel(launch) : undefined;
    model = new ReplayModel(recorded.script, { chunkDelayMs: launch.options.replayDelayMs, live, id: `replay:${basename(recording)}` });
  } else {
    if (!question) throw new LaunchError(`a MultiTool-CoT run needs an input: the question that fills the prompt's %s`);
    model = endpointModel(launch);
  }
  const runner = createMultiToolRunner(fill(question).spec, runnerOptions(launch, model));
  if (model instanceof ReplayModel) departOnEdit(runner, model.departure, launch.config.log);
  return { runner, unit: 0, title: basename(path, COT_EXTENSION), ownProgram: false, model };
}
