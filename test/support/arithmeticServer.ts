// The scripted OpenAI-compatible server with the arithmetic model (test/support/arithmeticModel.ts), as a process
// of its own for the end-to-end suite: `node --import tsx test/support/arithmeticServer.ts` prints one line
// `ART_SCRIPTED_SERVER <base URL>` once it listens, and serves until it is killed.
import { arithmeticScripts } from './arithmeticModel';
import { ScriptedServer } from './scriptedServer';

void (async () => {
  const server = await new ScriptedServer({ tokenDelayMs: Number(process.env.ART_TOKEN_DELAY_MS ?? 2) }).start();
  server.setScripts(...arithmeticScripts());
  process.stdout.write(`ART_SCRIPTED_SERVER ${server.baseURL}\n`);
  const stop = () => void ScriptedServer.closeAll().finally(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
})();
