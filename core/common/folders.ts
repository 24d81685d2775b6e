// Paths confined to folders: a path with its symbolic links followed, and whether it lies in a folder. One rule for the
// callers that act for an agent that may be prompt-injected (`art mcp`'s tools: core/cli/mcpPaths.ts; the editor's
// language model tools: client/lm/tools.ts), so a link inside an allowed folder cannot lead out of it.
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, parse, relative, resolve, sep } from 'node:path';

/** Links followed at most, as the system's own limit (ELOOP): a loop of links resolves no further. */
const MAX_LINKS = 40;

/**
 * A path as it is once every symbolic link in it is followed; for a path not there yet, its nearest existing folder's.
 * A dangling link is followed to where it points (a write through it lands there, and makes that file), so a link to
 * a missing file outside a folder is outside it.
 */
export function realPath(path: string): string {
  return follow(resolve(path), { links: MAX_LINKS });
}

/** `budget.links`: the links still to follow in this whole resolution (one count, however the links nest). */
function follow(path: string, budget: { links: number }): string {
  const missing: string[] = [];
  let at = path;
  for (;;) {
    try {
      return join(realpathSync.native(at), ...missing.reverse());
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return join(at, ...missing.reverse());
      const target = linkTarget(at);
      if (target !== undefined && budget.links-- > 0) return follow(join(pointsTo(at, target, budget), ...missing.reverse()), budget);
      const up = dirname(at);
      if (up === at) return path;
      missing.push(basename(at));
      at = up;
    }
  }
}

/**
 * Where the link at `at`, holding `target`, points as the system finds it: each `..` of the target leaves the real
 * folder reached so far (a linked folder's parent is its target's parent), not the name written before it, so
 * `a/../x` with `a` a link to OUTSIDE/dir is OUTSIDE/x.
 */
function pointsTo(at: string, target: string, budget: { links: number }): string {
  const root = parse(target).root;
  let to = root ? resolve(root) : follow(dirname(at), budget);
  for (const name of target.slice(root.length).split(sep === '\\' ? /[\\/]/ : '/')) {
    if (name === '..') to = dirname(follow(to, budget));
    else if (name && name !== '.') to = join(to, name);
  }
  return to;
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
