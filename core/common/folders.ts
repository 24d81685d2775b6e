// Paths confined to folders: a path with its symbolic links followed, and whether it lies in a folder. One rule for the
// callers that act for an agent that may be prompt-injected (`art mcp`'s tools: core/cli/mcpPaths.ts; the editor's
// language model tools: client/lm/tools.ts), so a link inside an allowed folder cannot lead out of it.
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** Links followed at most, as the system's own limit (ELOOP): a loop of links resolves no further. */
const MAX_LINKS = 40;

/**
 * A path as it is once every symbolic link in it is followed; for a path not there yet, its nearest existing folder's.
 * A dangling link is followed to where it points (a write through it lands there, and makes that file), so a link to
 * a missing file outside a folder is outside it.
 */
export function realPath(path: string): string {
  return follow(resolve(path), 0);
}

function follow(path: string, links: number): string {
  const missing: string[] = [];
  let at = path;
  for (;;) {
    try {
      return join(realpathSync.native(at), ...missing.reverse());
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return join(at, ...missing.reverse());
      const target = linkTarget(at);
      if (target !== undefined && links < MAX_LINKS) return follow(join(resolve(dirname(at), target), ...missing.reverse()), links + 1);
      const up = dirname(at);
      if (up === at) return path;
      missing.push(basename(at));
      at = up;
    }
  }
}

/** What the link at `path` holds, or undefined when `path` is no link. */
function linkTarget(path: string): string | undefined {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `path` is `folder` or lies under it (both already real paths). */
export function isInside(folder: string, path: string): boolean {
  const r = relative(folder, path);
  return r === '' || (!r.startsWith(`..${sep}`) && r !== '..' && !isAbsolute(r));
}
