// The scripted model endpoints the scenarios start, each a process of its own that prints `ART_SCRIPTED_SERVER <base
// URL>` once it listens: the arithmetic model (test/support/arithmeticServer.ts) and a model zoo habit
// (test/support/zooServer.ts); and the zoo's library, read from test/support/modelZoo.ts itself.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { tsImport } from 'tsx/esm/api';

const ROOT = new URL('../../..', import.meta.url).pathname;

/** The zoo's library (the model continues its second program), as test/support/modelZoo.ts has it. */
export const { ZOO_LIBRARY } = await tsImport('../../support/modelZoo.ts', import.meta.url);

/** Starts `script` (a path under the repository) with `env`; resolves with its base URL and the process (kill it when done). */
function startServer(script, env = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, script)], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`${script} did not start:\n${err}`)), 30_000);
    child.stdout.on('data', d => {
      out += d;
      const m = /ART_SCRIPTED_SERVER (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ baseURL: m[1], child });
      }
    });
    child.stderr.on('data', d => (err += d));
    child.on('exit', code => reject(new Error(`${script} exited (${code}):\n${err}`)));
  });
}

/**
 * The arithmetic model, or with `model: 'feedback'` the one that follows the demonstrations in its prompt;
 * `tokenDelayMs` between streamed tokens.
 */
export function startArithmeticServer({ tokenDelayMs, model } = {}) {
  return startServer('test/support/arithmeticServer.ts', { ART_TOKEN_DELAY_MS: String(tokenDelayMs ?? 2), ...(model ? { ART_MODEL: model } : {}) });
}

/** A model zoo endpoint of `habit` (test/support/modelZoo.ts); `chatOnly`: it has no `/completions` (404). */
export function startZoo(habit, { chatOnly = false } = {}) {
  return startServer('test/support/zooServer.ts', {
    ART_ZOO_HABIT: habit,
    ART_TOKEN_DELAY_MS: '20',
    ...(chatOnly ? { ART_ZOO_CHAT_ONLY: '1' } : {}),
  });
}
