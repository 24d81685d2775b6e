// Paths confined to folders: a path with its symbolic links followed, and whether it lies in a folder. One rule for the
// callers that act for an agent that may be prompt-injected (`art mcp`'s tools: core/cli/mcpPaths.ts; the editor's
// language model tools: client/lm/tools.ts), so a link inside an allowed folder cannot lead out of it.
import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** A path as it is once every symbolic link in it is followed; for a path not there yet, its nearest existing folder's. */
export function realPath(path: string): string {
  const missing: string[] = [];
  let at = resolve(path);
  for (;;) {
    try {
      return join(realpathSync.native(at), ...missing.reverse());
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // A dangling link is not followed to where it points: it resolves as the link, and then names a missing file.
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return at;
      const up = dirname(at);
      if (up === at) return resolve(path);
      missing.push(basename(at));
      at = up;
    }
  }
}

/** Whether `path` is `folder` or lies under it (both already real paths). */
export function isInside(folder: string, path: string): boolean {
  const r = relative(folder, path);
  return r === '' || (!r.startsWith(`..${sep}`) && r !== '..' && !isAbsolute(r));
}
