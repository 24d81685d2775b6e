// A model zoo endpoint (test/support/modelZoo.ts) as a process of its own for the end-to-end suite:
// `ART_ZOO_HABIT=think node --import tsx test/support/zooServer.ts` prints one line `ART_SCRIPTED_SERVER <base URL>`
// once it listens, and serves the habit's replies until it is killed (ART_TOKEN_DELAY_MS between streamed pieces;
// ART_ZOO_CHAT_ONLY=1: no `/completions`, as a chat-only service).
import { HABITS, ZooServer, type Habit } from './modelZoo';

void (async () => {
  const habit = (process.env.ART_ZOO_HABIT ?? 'think') as Habit;
  if (!HABITS.includes(habit)) throw new Error(`ART_ZOO_HABIT: "${habit}" is not a habit of the zoo (${HABITS.join(', ')})`);
  const server = await new ZooServer(habit, {
    tokenDelayMs: Number(process.env.ART_TOKEN_DELAY_MS ?? 5),
    chatOnly: process.env.ART_ZOO_CHAT_ONLY === '1',
  }).start();
  process.stdout.write(`ART_SCRIPTED_SERVER ${server.baseURL}\n`);
  const stop = () => void server.close().finally(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
})();
