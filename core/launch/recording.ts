// Whether a run of a program has a recording to replay. Its own file: it parses a task library, which the extension's
// activation bundle does not carry (the client asks through the runner bundle, client/runnerServices.ts).
import { existsSync } from 'node:fs';
import { languageOf } from '../common/language';
import { recordedSteps } from '../art/ast';
import { parseArt } from '../art/parse';
import { libraryAsRun } from '../prompt/prompt';
import { answerBeside, transcriptBeside } from './companions';
import { pickProgram } from './pick';

/**
 * Whether replay mode has something to replay for `task` of `path` (its text `text`): an ART program's own steps, an
 * agent's transcript, a MultiTool-CoT prompt's recorded answer; a trace is a recording. A program's open `Qk:`
 * (openStep) is where the model writes, no recording. VS Code replays such a
 * program until the user chooses live, and generates one with no recording when a model is set.
 */
export function hasRecording(path: string, text: string, task: string | number | undefined): boolean {
  const language = languageOf(path);
  if (language === 'trace') return true;
  if (language === 'agent') return existsSync(transcriptBeside(path));
  if (language === 'multitool') return existsSync(answerBeside(path));
  if (language !== 'art') return false;
  try {
    const doc = libraryAsRun(parseArt(text));
    return recordedSteps(doc.programs[pickProgram(doc, task)]).length > 0;
  } catch {
    return false;
  }
}
