// The key rule: a run reads the API key only when it may call an endpoint, that is in generate mode, and in replay
// mode with an endpoint to go on live with once the run departs from its recording. The key itself is never a run
// option and never traced: `apiKeyEnv` names the environment variable that holds it (VS Code may keep it in
// SecretStorage instead).
import type { RunOptions } from './options';

/** Whether a run of these options may call the endpoint (and so needs the key). */
export function mayCallEndpoint(o: Pick<RunOptions, 'mode' | 'baseURL' | 'model'> & Partial<Pick<RunOptions, 'modelSource'>>): boolean {
  // A model of VS Code's Language Model API needs no key: none is read.
  if (o.modelSource === 'vscode') return false;
  return o.mode === 'generate' || !!(o.baseURL && o.model);
}

/** The key from the environment variable `apiKeyEnv` names, when the run may call the endpoint; else undefined. */
export function apiKeyFromEnv(
  o: Pick<RunOptions, 'mode' | 'baseURL' | 'model' | 'apiKeyEnv'> & Partial<Pick<RunOptions, 'modelSource'>>,
  env: NodeJS.ProcessEnv,
): string | undefined {
  return mayCallEndpoint(o) ? env[o.apiKeyEnv] || undefined : undefined;
}
