// Input and output shapes several tools share, and the defaults of their file arguments.
import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import { z } from 'zod';
import { CliError } from '../common/sourceFiles';
import { companionsOf } from '../launch/companions';
import type { ToolHost } from './tool';

/** A path argument's schema: where relative paths start, and that it must lie in the folders the shell allows. */
export const filePath = (what: string) =>
  z
    .string()
    .min(1)
    .describe(
      `${what}; relative paths start at the server's working directory (the editor: the first workspace folder), and every path must lie in the client's roots (the editor: its workspace folders).`,
    );

/** An optional file argument whose default is the file the person has open in the editor. */
export const fileOrActive = (what: string) => filePath(`${what} (default: the file in the active editor; art mcp has none: give it)`).optional();

/** The shape of a range, 0-based as in LSP. */
export const rangeShape = z.object({
  start: z.object({ line: z.number(), character: z.number() }),
  end: z.object({ line: z.number(), character: z.number() }),
});

/** The file a tool acts on: the one given, else the active editor's (a one-line error naming `field` when neither). */
export function givenOrActive(host: ToolHost, given: string | undefined, field: string): string {
  if (given !== undefined) return given;
  const active = host.activeFile();
  if (active === undefined) throw new CliError(`give "${field}" (no file is open in an editor here)`);
  return active;
}

/** An answer's text with the call's notes before it (a value lowered to its cap, a key not sent, the sandbox's level). */
export function withNotes(notes: readonly string[], text: string): string {
  return [...notes.map(n => `note: ${n}`), text].join('\n');
}

/** A path as the answer shows it: relative to where relative paths start when it lies there, else as it is. */
export function shownPath(host: ToolHost, path: string): string {
  const r = relative(host.cwd, path);
  return r && !r.startsWith('..') && !r.startsWith('/') ? r : path;
}

/** The confined path of a file that must exist (else one line naming it and where relative paths start). */
export async function existingFile(host: ToolHost, given: string, what: string): Promise<string> {
  const path = await host.path(given, what);
  if (!existsSync(path)) throw new CliError(`${given}: no such file: check the path (relative paths start at ${host.cwdShown})`);
  // The files read beside it by name (a spec's NAME.preamble.txt) are confined as the file is.
  for (const c of companionsOf(path)) await host.path(c, 'companion file');
  return path;
}
