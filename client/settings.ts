// The extension's settings, all under the `art.` prefix (contributes.configuration in package.json), read in one
// place with their defaults. Model settings never hold a key: `apiKeyEnv` names the environment variable that does.
import * as vscode from 'vscode';

export type TraceSetting = 'off' | 'messages' | 'verbose';

export interface ModelSettings {
  baseURL: string;
  name: string;
  /** Name of the environment variable holding the API key (the key itself is never a setting). */
  apiKeyEnv: string;
  temperature: number;
  maxTokens: number;
}

export interface ArtSettings {
  serverTrace: TraceSetting;
  debounceMs: number;
  model: ModelSettings;
  pythonPath: string;
  /** art.python.allowUnisolatedCode: run code even where the sandbox cannot isolate it. */
  allowUnisolatedCode: boolean;
  toolsFile: string;
  /** Undefined: the default (the workspace's corpus/, else examples/corpus/). */
  searchCorpus: string | undefined;
}

export function readSettings(scope?: vscode.ConfigurationScope): ArtSettings {
  const c = vscode.workspace.getConfiguration('art', scope);
  return {
    serverTrace: c.get<TraceSetting>('server.trace', 'off'),
    debounceMs: c.get<number>('diagnostics.debounceMs', 150),
    model: {
      baseURL: c.get<string>('model.baseURL', 'http://127.0.0.1:8000/v1'),
      name: c.get<string>('model.name', ''),
      apiKeyEnv: c.get<string>('model.apiKeyEnv', 'OPENAI_API_KEY'),
      temperature: c.get<number>('model.temperature', 0),
      maxTokens: c.get<number>('model.maxTokens', 512),
    },
    pythonPath: c.get<string>('python.path', '/usr/bin/python3'),
    allowUnisolatedCode: c.get<boolean>('python.allowUnisolatedCode', false),
    toolsFile: c.get<string>('tools.file', '.art-tools.json'),
    searchCorpus: c.get<string>('search.corpus', '') || undefined,
  };
}
