// A run of an `.agent` spec: the agent picked and compiled, its preamble, and the model (the endpoint, or a replay of
// the transcript beside the spec, which answers the question on its first line).
import { basename, isAbsolute, resolve } from 'node:path';
import { checkAgentFile } from '../agent/check';
import { compileAgent, type CompiledAgent } from '../agent/compile';
import { parseAgentFile } from '../agent/parse';
import type { ModelClient } from '../model/types';
import { createAgentRunner } from './create';
import { departOnEdit } from '../replay/departure';
import { ReplayModel } from '../replay/programReplay';
import { existing, preambleBeside, readCompanion, transcriptBeside } from './companions';
import { LaunchError } from './options';
import { pickAgent } from './pick';
import { withCache } from './requestCache';
import { endpointModel, hasLiveModel, runnerOptions, type Launch, type Made } from './session';

export function makeAgentRun(text: string, path: string, launch: Launch): Made {
  const file = parseAgentFile(text);
  const errors = checkAgentFile(file).filter(d => d.severity === 'error');
  if (errors.length)
    throw new LaunchError(
      `the spec has ${errors.length} error(s), the first: ${errors[0].message} (fix them first; see the Problems view or 'art check')`,
    );
  const index = pickAgent(file, launch.options.task);
  const agent = compileAgent(file.agents[index]);
  const title = file.agents[index].name || `agent ${index}`;
  const preamble = agentPreamble(path, launch);
  let question = launch.options.input?.trim();
  let model: ModelClient;
  if (launch.options.mode === 'replay') {
    const recording = existing(transcriptBeside(path));
    if (!recording)
      throw new LaunchError(
        `replay mode replays a recorded run, and ${basename(path)} has none beside it: add ${basename(transcriptBeside(path))} (a transcript, the question on its first line), run in generate mode, or launch the .jsonl trace of an earlier run`,
      );
    const transcript = readCompanion(recording);
    const recorded = recordedQuestion(agent, transcript, recording);
    if (question && question !== recorded)
      throw new LaunchError(
        `${basename(recording)} answers the question "${recorded}": leave the input empty to replay it, or run in generate mode to ask another`,
      );
    question = recorded;
    const live = hasLiveModel(launch) ? endpointModel(launch) : undefined;
    try {
      model = ReplayModel.fromAgentTranscript(agent, transcript, {
        chunkDelayMs: launch.options.replayDelayMs,
        live,
        id: `replay:${basename(recording)}`,
      });
    } catch (e) {
      throw new LaunchError(`${recording}: ${(e as Error).message}`);
    }
  } else {
    if (!question) throw new LaunchError(`an agent run needs an input: the question for ${title}`);
    model = withCache(launch, () => endpointModel(launch));
  }
  const runner = createAgentRunner({ agent, question, preamble }, runnerOptions(launch, model));
  if (model instanceof ReplayModel) departOnEdit(runner, model.departure, launch.config.log);
  return { runner, unit: index, title, ownProgram: false, model };
}

/** The `preamble` option's file, else NAME.preamble.txt beside the spec, else none. */
function agentPreamble(specPath: string, launch: Launch): string | undefined {
  const given = launch.options.preamble;
  const file = given ? (isAbsolute(given) ? given : resolve(launch.root, given)) : existing(preambleBeside(specPath));
  if (!file) return undefined;
  if (given && !existing(file)) throw new LaunchError(`preamble: ${file} does not exist: give the text file of instructions and examples`);
  return readCompanion(file);
}

/** The question a transcript answers: its first line without the first state's prompt text (`[Question]`). */
function recordedQuestion(agent: CompiledAgent, transcript: string, path: string): string {
  const first = agent.initial.length ? agent.states[agent.positions[agent.initial[0]].state] : undefined;
  const line = transcript
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/, 1)[0]
    .trim();
  if (!first?.text || !line.startsWith(first.text))
    throw new LaunchError(`${path}: the first line must be the question, starting with ${JSON.stringify(first?.text ?? '')}`);
  return line.slice(first.text.length).trim();
}
