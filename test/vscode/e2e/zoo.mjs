// The model zoo for the end-to-end scenarios: an endpoint of one habit (test/support/zooServer.ts) as a process of
// its own, and the zoo's library (test/support/modelZoo.ts ZOO_LIBRARY: the model continues the second program).
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = new URL('../../..', import.meta.url).pathname;

export const ZOO_LIBRARY = [
  'Description: (Pens) Count the pens.',
  'Input: Ann has 2 pens and buys 5 more. How many pens does she have?',
  'Q1: [calculator] 2 + 5',
  '#1: 7',
  'Q2: [EOQ]',
  'Ans: 7',
  '----',
  'Description: (Pens) Count the pens.',
  'Input: Tom has 3 pens and buys 7 more. How many pens does he have?',
  'Q1: [calculator] 3 + 7',
  '#1: 10',
  'Q2: [EOQ]',
  'Ans: 10',
  '',
].join('\n');

/** Starts a zoo endpoint of `habit`; resolves with its base URL and the process (kill it when done). */
export function startZoo(habit) {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test/support/zooServer.ts')], {
    cwd: ROOT,
    env: { ...process.env, ART_ZOO_HABIT: habit, ART_TOKEN_DELAY_MS: '20' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`the zoo server did not start:\n${err}`)), 30_000);
    child.stdout.on('data', d => {
      out += d;
      const m = /ART_SCRIPTED_SERVER (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ baseURL: m[1], child });
      }
    });
    child.stderr.on('data', d => (err += d));
    child.on('exit', code => reject(new Error(`the zoo server exited (${code}):\n${err}`)));
  });
}
