// The folders `art mcp` may touch: every path a tool takes (an argument or a run option) is resolved with symbolic
// links followed and must lie in one of them. They are the roots the MCP client declares (MCP's `roots`), else the
// folder the server started in, plus each `art mcp --allow-path DIR`. A client is a coding agent that may be
// prompt-injected: without this, `show_prompt {preamble: "~/.ssh/id_ed25519"}` returned the key file.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isInside, realPath } from '../common/folders';
import { CliError } from './files';

/** Where the folders come from: the start folder, the flags, and the client's roots (undefined: it declares none). */
export interface PathPolicy {
  /** The folder `art mcp` started in: relative paths start here, and it is the one folder when the client has no roots. */
  cwd: string;
  /** `art mcp --allow-path DIR`, each allowed besides the roots. */
  allowPaths: readonly string[];
  /** The client's roots as `file://` URIs, or undefined when it does not declare roots. */
  clientRoots?: () => Promise<readonly string[] | undefined>;
}

/** The folders the server's tools may read and write, with symbolic links followed. */
export async function allowedFolders(p: PathPolicy): Promise<string[]> {
  const roots = (await p.clientRoots?.())
    ?.flatMap(uri => {
      try {
        return uri.startsWith('file:') ? [fileURLToPath(uri)] : [];
      } catch {
        return [];
      }
    })
    .filter(Boolean);
  const base = roots && roots.length ? roots : [p.cwd];
  return [...new Set([...base, ...p.allowPaths].map(f => realPath(resolve(p.cwd, f))))];
}

/**
 * The real path of `given` (relative to `from`, default the start folder), refused in one line naming it and the flag
 * when it lies outside every allowed folder. `what` names the argument (`"file"`, `"preamble"`).
 */
export function confinedPath(given: string, folders: readonly string[], what: string, from: string): string {
  const real = realPath(resolve(from, given));
  if (folders.some(f => isInside(f, real))) return real;
  const shown = real === resolve(from, given) ? given : `${given} (${real})`;
  throw new CliError(
    `${what} ${shown}: outside the folders art mcp may use (${folders.join(', ')}): give a path inside them, or start art mcp with --allow-path DIR`,
  );
}
