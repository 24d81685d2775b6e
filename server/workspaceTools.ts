// The tool catalog the checks, completion, hover and semantic tokens use: the built-in tools plus the workspace's
// tool file (`art.tools.file`, `.art-tools.json` by default), reloaded when the file changes.
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILTIN_TOOLS, ToolCatalog, type ToolInfo } from '../core/art';
import type { ToolFileProblem } from '../core/tools/toolsFile';
import { describeError, type Logger } from './guard';
import { plural } from '../core/common/counts';

/**
 * Reads a tool file: the user tools it declares and its problems (an absent file is no tools, no problems), with
 * their places in its text when it was read.
 */
export type ToolFileLoader = (path: string) => Promise<{ tools: ToolInfo[]; problems: string[]; placed?: ToolFileProblem[]; text?: string }>;

/** Publishes the tool file's problems as diagnostics on it (an empty list clears them). */
export type ToolFilePublisher = (path: string, text: string, problems: readonly ToolFileProblem[]) => void;

export function uriToPath(uri: string): string | null {
  try {
    return uri.startsWith('file:') ? fileURLToPath(uri) : null;
  } catch {
    return null;
  }
}

export class WorkspaceTools {
  private current = new ToolCatalog(BUILTIN_TOOLS);
  private path: string | null = null;
  private watcher: FSWatcher | null = null;
  private loading: Promise<void> = Promise.resolve();
  private configured = false;

  constructor(
    private readonly loader: ToolFileLoader,
    private readonly log: Logger,
    /** Called after the catalog changed (re-check documents, refresh tokens). */
    private readonly changed: () => void,
    private readonly publish: ToolFilePublisher = () => undefined,
  ) {}

  get catalog(): ToolCatalog {
    return this.current;
  }

  get file(): string | null {
    return this.path;
  }

  /** Resolves the tool file against the workspace root; loads it when that is a different file than before. */
  configure(root: string | null, fileSetting: string, watchItself: boolean): Promise<void> {
    const path = isAbsolute(fileSetting) ? fileSetting : root ? resolve(root, fileSetting) : null;
    const changed = path !== this.path || !this.configured;
    if (changed || watchItself !== (this.watcher !== null)) {
      this.watcher?.close();
      this.watcher = null;
      this.path = path;
      if (path && watchItself) this.watchDirectory(path);
    }
    this.configured = true;
    return changed ? this.reload() : this.loading;
  }

  /** True when a changed file (a file: URI) is the tool file. */
  isToolFile(uri: string): boolean {
    const p = uriToPath(uri);
    return p !== null && this.path !== null && resolve(p) === this.path;
  }

  reload(): Promise<void> {
    this.loading = this.loading.then(() => this.load());
    return this.loading;
  }

  dispose(): void {
    this.watcher?.close();
    this.watcher = null;
  }

  private async load(): Promise<void> {
    const before = signature(this.current);
    let tools: ToolInfo[] = [];
    if (this.path) {
      try {
        const r = await this.loader(this.path);
        tools = r.tools;
        for (const p of r.problems) this.log.error(`tool file ${this.path}: ${p}`);
        this.publish(this.path, r.text ?? '', r.placed ?? []);
        if (tools.length) this.log.info(`tool file ${this.path}: ${plural(tools.length, 'workspace tool')}`);
      } catch (e) {
        this.log.error(`tool file ${this.path}: ${describeError(e)}`);
      }
    }
    const next = new ToolCatalog(BUILTIN_TOOLS);
    for (const t of tools) next.add({ ...t, origin: 'user' });
    this.current = next;
    if (signature(next) !== before) this.changed();
  }

  /** For clients that do not watch files for the server: watch the directory (the file may not exist yet). */
  private watchDirectory(path: string): void {
    try {
      let timer: NodeJS.Timeout | undefined;
      this.watcher = watch(dirname(path), { persistent: false }, (_event, name) => {
        if (name && name.toString() !== basename(path)) return;
        clearTimeout(timer);
        timer = setTimeout(() => void this.reload(), 100);
      });
      this.watcher.on('error', e => this.log.error(`watching ${path}: ${describeError(e)}`));
    } catch (e) {
      this.log.error(`cannot watch ${path}: ${describeError(e)}`);
    }
  }
}

function signature(c: ToolCatalog): string {
  return JSON.stringify(c.all().map(t => [t.name, t.origin, t.description, t.input]));
}
