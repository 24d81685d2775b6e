// Reading the files the CLI is given, with one-line errors that name the file and the fix.
import { readFileSync, statSync } from 'node:fs';
import { extname } from 'node:path';

export type Language = 'art' | 'agent';

export class CliError extends Error {
  constructor(message: string, readonly exitCode = 2) {
    super(message);
  }
}

export function languageOf(path: string): Language {
  const ext = extname(path).toLowerCase();
  if (ext === '.art') return 'art';
  if (ext === '.agent') return 'agent';
  throw new CliError(`${path}: unknown file type '${ext || '(none)'}': give a task library (.art) or an agent spec (.agent)`);
}

export function readSource(path: string): string {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new CliError(`${path}: no such file: check the path (relative paths start at ${process.cwd()})`);
  }
  if (st.isDirectory()) throw new CliError(`${path}: is a directory: give the .art or .agent files in it`);
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new CliError(`${path}: cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}; check its permissions`);
  }
}
