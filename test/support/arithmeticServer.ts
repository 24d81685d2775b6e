// The scripted OpenAI-compatible server with the arithmetic model (test/support/arithmeticModel.ts), or with
// ART_MODEL=feedback the model that follows the demonstrations in its prompt (test/support/feedbackModel.ts), or with
// ART_MODEL=kinds the one that learns a kind of problem only from a demonstration of it (test/support/kindsModel.ts), as a
// process of its own for the end-to-end suite: `node --import tsx test/support/arithmeticServer.ts` prints one line
// `ART_SCRIPTED_SERVER <base URL>` once it listens, and serves until it is killed.
import { arithmeticScripts } from './arithmeticModel';
import { useFeedbackModel } from './feedbackModel';
import { useKindsModel } from './kindsModel';
import { ScriptedServer } from './scriptedServer';

void (async () => {
  const server = await new ScriptedServer({ tokenDelayMs: Number(process.env.ART_TOKEN_DELAY_MS ?? 2) }).start();
  if (process.env.ART_MODEL === 'feedback') useFeedbackModel(server);
  else if (process.env.ART_MODEL === 'kinds') useKindsModel(server);
  else server.setScripts(...arithmeticScripts());
  process.stdout.write(`ART_SCRIPTED_SERVER ${server.baseURL}\n`);
  const stop = () => void ScriptedServer.closeAll().finally(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
})();
