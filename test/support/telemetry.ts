// What the telemetry tests and benchmark share: an environment without the test machine's own OTEL_* variables, a
// port nothing listens on, and the eggs example asked with a key in its input (a user's slip no span may repeat).
import { createServer } from 'node:net';
import { ContinuationScript } from '../../core/replay/script';
import { ARITHMETIC_DATA, ARITHMETIC_LIBRARY, ARITHMETIC_TASK, arithmeticExamples } from './arithmeticModel';

/** Every OTEL_* variable of the test's environment removed (for CliOptions.env), so only what a test gives configures telemetry. */
export const NO_OTEL: NodeJS.ProcessEnv = Object.fromEntries(
  Object.keys(process.env)
    .filter(k => k.startsWith('OTEL_'))
    .map(k => [k, undefined]),
);

/** A port on 127.0.0.1 that was free a moment ago: nothing listens on it (a collector that is down), or a server may take it. */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>(done => s.listen(0, '127.0.0.1', done));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>(done => s.close(() => done()));
  return port;
}

/** `art eval` of the arithmetic dataset against the scripted server at `baseURL` (its model "scripted"), into `out`. */
export const arithmeticEval = (baseURL: string, out: string): string[] => [
  'eval',
  ARITHMETIC_LIBRARY,
  '--data',
  ARITHMETIC_DATA,
  '--task',
  ARITHMETIC_TASK,
  '--base-url',
  baseURL,
  '--model',
  'scripted',
  '--out',
  out,
];

/** The arithmetic model's eggs example with `key` in its input, and the script that answers it as it answers eggs. */
export function eggsWithKey(key: string): { input: string; script: ContinuationScript } {
  const eggs = arithmeticExamples().find(e => e.id === 'eggs')!;
  const input = `${eggs.input} (my key is ${key})`;
  return {
    input,
    script: ContinuationScript.parse(` [calculator] 16 - 3 - 4\n#⟂1:⟦ 9⟧\nQ2: [EOQ]\nAns: 9\n----\nDescription: more`, `Input: ${input}\nQ1:`),
  };
}
