// Files that travel beside a runnable file, found by name: `NAME.agent` has its few-shot instructions in
// `NAME.preamble.txt` and a recorded run in `NAME.transcript.txt`; a MultiTool-CoT prompt `NAME.cot.txt` has its
// recorded answer in `NAME.answer.txt`. Replay mode replays the recording, so a spec or a prompt steps through with
// no endpoint, like a task library's recorded programs. One place decides the names: the launcher, `art run` and
// VS Code (which asks no question when a recording answers it) all read them here.
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { COT_EXTENSION, languageOf } from '../common/language';
import { readTextFile, TextFileError } from '../common/textFile';
import { linkProblem } from '../common/ownedFiles';
import { LaunchError } from './options';

export function isCotPrompt(path: string): boolean {
  return languageOf(path) === 'multitool';
}

/** The file's name without its runnable extension (`.agent`, `.cot.txt`). */
function stem(path: string): string {
  const name = basename(path);
  if (isCotPrompt(name)) return name.slice(0, -COT_EXTENSION.length);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(0, dot) : name;
}

const beside = (path: string, suffix: string) => join(dirname(path), `${stem(path)}${suffix}`);

/** `react.agent` → `react.preamble.txt`: the instructions and few-shot examples sent before the question. */
export const preambleBeside = (specPath: string) => beside(specPath, '.preamble.txt');

/** `react.agent` → `react.transcript.txt`: a recorded run (question on the first line) that replay mode replays. */
export const transcriptBeside = (specPath: string) => beside(specPath, '.transcript.txt');

/** `arithmetic.cot.txt` → `arithmetic.answer.txt`: the model's recorded chain of thought that replay mode replays. */
export const answerBeside = (promptPath: string) => beside(promptPath, '.answer.txt');

/**
 * The companions a runnable file has beside it, found by name (a spec's preamble and transcript, a prompt's answer),
 * those there (a link counts, dangling or not). A shell that confines the paths it is given (`art mcp`, the editor's
 * language model tools) confines these too, with the same rule: a companion linked out of the folders is refused
 * like an explicit path outside them, never read.
 */
export function companionsOf(path: string): string[] {
  const language = languageOf(path);
  const names = language === 'agent' ? [preambleBeside(path), transcriptBeside(path)] : language === 'multitool' ? [answerBeside(path)] : [];
  return names.filter(c => existsSync(c) || linkProblem(c) !== null);
}

/** The path when the file exists, else undefined. */
export function existing(path: string): string | undefined {
  return existsSync(path) ? path : undefined;
}

/** A companion file's text (a LaunchError naming the file when it cannot be read). */
export function readCompanion(path: string): string {
  try {
    return readTextFile(path);
  } catch (e) {
    if (!(e instanceof TextFileError)) throw e;
    throw new LaunchError(`${path}: ${e.message}`);
  }
}
