// Reading the files a shell is given (the `art` command, the agent tools), with one-line errors that name the file
// and the fix: CliError is such an error (its exit code is the command line's).
import { extname } from 'node:path';
import { readTextFile, TextFileError } from './textFile';
import { isSourceLanguage, languageOf as fileLanguage, type SourceLanguage } from './language';

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/**
 * A CliError from any bundle: `art run` is a bundle of its own (dist/cli-run.js) with its own copy of the class,
 * so `instanceof` alone would miss its errors.
 */
export function isCliError(e: unknown): e is CliError {
  return e instanceof CliError || (e instanceof Error && e.name === 'CliError' && typeof (e as CliError).exitCode === 'number');
}

export function languageOf(path: string): SourceLanguage {
  const language = fileLanguage(path);
  if (isSourceLanguage(language)) return language;
  const ext = extname(path).toLowerCase();
  throw new CliError(`${path}: unknown file type '${ext || '(none)'}': give a task library (.art) or an agent spec (.agent)`);
}

export function readSource(path: string): string {
  try {
    return readTextFile(path);
  } catch (e) {
    if (!(e instanceof TextFileError)) throw e;
    throw new CliError(`${path}: ${e.message}: ${e.kind === 'missing' ? `check the path (relative paths start at ${process.cwd()})` : FIX[e.kind]}`);
  }
}

const FIX: Record<Exclude<TextFileError['kind'], 'missing'>, string> = {
  directory: 'give the .art or .agent files in it',
  'not-regular': 'give a regular .art or .agent file',
  'too-large': 'split it into smaller files',
  'not-text': 'give a task library (.art) or an agent spec (.agent) saved as UTF-8 text',
  unreadable: 'check its permissions',
};
