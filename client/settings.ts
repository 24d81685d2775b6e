// The extension's settings, all under the `art.` prefix (contributes.configuration in package.json), read in one
// place. They are declared with their defaults and bounds in core/settings/settings.ts, and the settings of the run
// options (model, Python, search, lookup, tool file) with the options in core/launch/options.ts; package.json is
// generated from both. Model settings never hold a key: `apiKeyEnv` names the environment variable that does.
import * as vscode from 'vscode';
import { optionsFromSettings, type RunOptionName } from '../core/launch/options';
import { settingDefault, settingValue, type SettingKey, type SettingValue } from '../core/settings/settings';
import { TOOLS_FILE_NAME } from '../core/tools/toolsFile';

export type TraceSetting = SettingValue<'server.trace'>;

export interface ArtSettings {
  serverTrace: TraceSetting;
  debounceMs: number;
  toolsFile: string;
  /** The run history folder (relative paths: to the workspace folder) and whether a .gitignore keeps it out of git. */
  runsFolder: string;
  runsGitignore: boolean;
  /** "ART: Evaluate Task": examples run at once. */
  evaluationConcurrency: number;
  /** The run options that have a setting (core/launch/options.ts), those that are set: launch defaults. */
  runOptions: Partial<Record<RunOptionName, unknown>>;
}

/** `art.<key>` as declared: the default when unset or of the wrong type, a number clamped to its bounds. */
export function readSetting<K extends SettingKey>(key: K, scope?: vscode.ConfigurationScope): SettingValue<K> {
  return settingValue(key, vscode.workspace.getConfiguration('art', scope).get(key)) ?? settingDefault(key);
}

export function readSettings(scope?: vscode.ConfigurationScope): ArtSettings {
  const c = vscode.workspace.getConfiguration('art', scope);
  const read = <K extends SettingKey>(key: K) => settingValue(key, c.get(key)) ?? settingDefault(key);
  return {
    serverTrace: read('server.trace'),
    debounceMs: read('diagnostics.debounceMs'),
    toolsFile: c.get<string>('tools.file', TOOLS_FILE_NAME),
    runsFolder: read('runs.folder'),
    runsGitignore: read('runs.gitignore'),
    evaluationConcurrency: read('evaluation.concurrency'),
    runOptions: optionsFromSettings(key => c.get(key)),
  };
}
