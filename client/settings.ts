// The extension's settings, all under the `art.` prefix (contributes.configuration in package.json), read in one
// place with their defaults. The settings of the run options (model, Python, search, lookup) are declared with the
// options in core/launch/options.ts. Model settings never hold a key: `apiKeyEnv` names the environment variable that does.
import * as vscode from 'vscode';
import { optionsFromSettings, type RunOptionName } from '../core/launch/options';

export type TraceSetting = 'off' | 'messages' | 'verbose';

export interface ArtSettings {
  serverTrace: TraceSetting;
  debounceMs: number;
  toolsFile: string;
  /** The run history folder (relative paths: to the workspace folder) and whether a .gitignore keeps it out of git. */
  runsFolder: string;
  runsGitignore: boolean;
  /** The run options that have a setting (core/launch/options.ts), those that are set: launch defaults. */
  runOptions: Partial<Record<RunOptionName, unknown>>;
}

export function readSettings(scope?: vscode.ConfigurationScope): ArtSettings {
  const c = vscode.workspace.getConfiguration('art', scope);
  return {
    serverTrace: c.get<TraceSetting>('server.trace', 'off'),
    debounceMs: c.get<number>('diagnostics.debounceMs', 150),
    toolsFile: c.get<string>('tools.file', '.art-tools.json'),
    runsFolder: c.get<string>('runs.folder', '.art/runs'),
    runsGitignore: c.get<boolean>('runs.gitignore', true),
    runOptions: optionsFromSettings(key => c.get(key)),
  };
}
