// Every ModelClient the runs use keeps the one contract of test/support/modelContract.ts: the endpoint client in
// each API against the scripted server, the chat continuation over a scripted backend, the request cache, the
// redacting and limiting wrappers, and the local model on the real default model file (a few short requests).
import { after } from 'node:test';
import { capabilitiesOf } from '../../../core/launch/modelSources';
import { redactedModel } from '../../../core/launch/redactedModel';
import { ChatContinuationModel, type ChatBackend } from '../../../core/model/chatContinuation';
import { RequestLimiter } from '../../../core/model/limiter';
import { LocalModel } from '../../../core/model/localModel';
import { OpenAIModel, type OpenAIModelOptions } from '../../../core/model/openai';
import { CachedModel } from '../../../core/replay/cachedModel';
import { ContinuationScript } from '../../../core/replay/script';
import { artToolProgram } from '../../../core/protocols/artTools';
import { localModelPath } from '../../support/localModel';
import { modelContract } from '../../support/modelContract';
import { ScriptedServer } from '../../support/scriptedServer';

const PROMPT = 'Input: what is 6 times 7?\nQ1:';
const REPLY = ' [calculator] 6 * 7\n#1: 42\nQ2: [EOQ]\nAns: 42\n';
const fastRetry = { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 5 };

after(() => ScriptedServer.closeAll());

/** The endpoint client of `api` against a scripted server that writes REPLY after PROMPT (and ignores `stop` where told). */
async function endpoint(api: 'completions' | 'chat' | 'tools', honourStop = true) {
  const server = await new ScriptedServer({ honourStop, tokenDelayMs: 0 }).setScripts(ContinuationScript.parse(REPLY, PROMPT)).start();
  const opts: OpenAIModelOptions = { baseURL: server.baseURL, model: 'm', api, retry: fastRetry };
  if (api === 'tools') opts.toolProgram = artToolProgram([{ name: 'calculator', description: 'arithmetic' }]);
  return { server, model: new OpenAIModel(opts), capabilities: capabilitiesOf({ modelSource: 'endpoint', api }) };
}

for (const api of ['completions', 'chat', 'tools'] as const)
  modelContract(`the endpoint client, ${api} API`, async () => {
    // Chat endpoints may ignore `stop` (the source says it does not honour them): the server here does.
    const { server, model, capabilities } = await endpoint(api, api === 'completions');
    return {
      model,
      capabilities,
      prompt: PROMPT,
      failNextRequest: () => server.injectFaults({ status: 503 }),
      close: () => server.close(),
    };
  });

modelContract('the chat continuation over a scripted backend (VS Code language models)', async () => {
  const backend: ChatBackend = {
    id: 'test:scripted-chat',
    async *send(_messages, opts) {
      for (const word of REPLY.match(/\s*\S+/g)!) {
        if (opts.signal.aborted) return;
        await new Promise(setImmediate);
        yield word;
      }
    },
  };
  return { model: new ChatContinuationModel(backend), capabilities: capabilitiesOf({ modelSource: 'vscode' }), prompt: PROMPT };
});

modelContract('the request cache over the endpoint (requests it has not recorded)', async () => {
  const { server, model, capabilities } = await endpoint('completions');
  return {
    model: new CachedModel(model, []),
    capabilities,
    prompt: PROMPT,
    failNextRequest: () => server.injectFaults({ status: 503 }),
    close: () => server.close(),
  };
});

modelContract('the redacting wrapper over the endpoint', async () => {
  const { server, model, capabilities } = await endpoint('completions');
  return {
    model: redactedModel(model, ['sk-contract-secret-1234']),
    capabilities,
    prompt: PROMPT,
    failNextRequest: () => server.injectFaults({ status: 503 }),
    close: () => server.close(),
  };
});

modelContract('the limiting wrapper over the endpoint', async () => {
  const { server, model, capabilities } = await endpoint('completions');
  return {
    model: new RequestLimiter(2).wrap(model),
    capabilities,
    prompt: PROMPT,
    failNextRequest: () => server.injectFaults({ status: 503 }),
    close: () => server.close(),
  };
});

modelContract('the local model (Gemma 3 270M, a few short requests)', async () => ({
  model: new LocalModel({ file: localModelPath(), contextSize: 256 }),
  capabilities: capabilitiesOf({ modelSource: 'local' }),
  prompt: 'The capital of France is Paris. The capital of Italy is',
  maxTokens: 8,
}));
