// Every ModelClient the runs use keeps the one contract of test/support/modelContract.ts: the endpoint client in
// each API against the scripted server, the chat continuation over a scripted backend, the request cache, the
// redacting and limiting wrappers, the local model on the real default model file (a few short requests), and the
// fake models of the tests' kit (test/support/fakeModels.ts).
import { after } from 'node:test';
import { capabilitiesOf } from '../../../core/launch/modelSources';
import { redactedModel } from '../../../core/launch/redactedModel';
import { ChatContinuationModel } from '../../../core/model/chatContinuation';
import { RequestLimiter } from '../../../core/model/limiter';
import { LocalModel } from '../../../core/model/localModel';
import { OpenAIModel, type OpenAIModelOptions } from '../../../core/model/openai';
import type { ModelClient } from '../../../core/model/types';
import { CachedModel } from '../../../core/replay/cachedModel';
import { ContinuationScript } from '../../../core/replay/script';
import { artToolProgram } from '../../../core/protocols/artTools';
import { answeringModel, characterModel, chunkedModel, FAKE_CAPABILITIES, recordingModel, scriptedChatBackend } from '../../support/fakeModels';
import { localModelPath } from '../../support/localModel';
import { modelContract } from '../../support/modelContract';
import { ScriptedServer } from '../../support/scriptedServer';

const PROMPT = 'Input: what is 6 times 7?\nQ1:';
const REPLY = ' [calculator] 6 * 7\n#1: 42\nQ2: [EOQ]\nAns: 42\n';
const fastRetry = { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 5 };

after(() => ScriptedServer.closeAll());

/** The endpoint client of `api` against a scripted server that writes REPLY after PROMPT; the stops each request sent. */
async function endpoint(api: 'completions' | 'chat' | 'tools', honourStop = true) {
  const server = await new ScriptedServer({ tokenDelayMs: 0, honourStop }).setScripts(ContinuationScript.parse(REPLY, PROMPT)).start();
  const opts: OpenAIModelOptions = { baseURL: server.baseURL, model: 'm', api, retry: fastRetry };
  if (api === 'tools') opts.toolProgram = artToolProgram([{ name: 'calculator', description: 'arithmetic' }]);
  return {
    server,
    model: new OpenAIModel(opts),
    capabilities: capabilitiesOf({ modelSource: 'endpoint', api }),
    sentStops: () => server.requests.at(-1)?.stop ?? [],
  };
}

// Each API against a server that honours stops, and (completions, chat) one that ignores them as some chat servers
// do: then the client itself ends the text.
for (const [api, honourStop] of [
  ['completions', true],
  ['chat', true],
  ['tools', true],
  ['completions', false],
  ['chat', false],
] as const)
  modelContract(`the endpoint client, ${api} API${honourStop ? '' : ', against a server that ignores stops'}`, async () => {
    const { server, model, capabilities, sentStops } = await endpoint(api, honourStop);
    return {
      model,
      capabilities,
      sentStops,
      prompt: PROMPT,
      failNextRequest: () => server.injectFaults({ status: 503 }),
      close: () => server.close(),
    };
  });

modelContract('the chat continuation over a scripted backend (VS Code language models)', async () => ({
  model: new ChatContinuationModel(scriptedChatBackend([REPLY.match(/\s*\S+/g)!]).backend),
  capabilities: capabilitiesOf({ modelSource: 'vscode' }),
  prompt: PROMPT,
}));

// The wrappers the runs put over the endpoint client keep its contract.
const WRAPPERS: [string, (m: OpenAIModel) => ModelClient][] = [
  ['the request cache over the endpoint (requests it has not recorded)', m => new CachedModel(m, [])],
  ['the redacting wrapper over the endpoint', m => redactedModel(m, ['sk-contract-secret-1234'])],
  ['the limiting wrapper over the endpoint', m => new RequestLimiter(2).wrap(m)],
];
for (const [name, wrap] of WRAPPERS)
  modelContract(name, async () => {
    const { server, model, capabilities } = await endpoint('completions');
    return {
      model: wrap(model),
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

// The kit of fake models the tests run on (test/support/fakeModels.ts) keeps the same contract.
modelContract('the fake that answers each request', async () => ({
  model: answeringModel(() => REPLY),
  capabilities: FAKE_CAPABILITIES(true),
  prompt: PROMPT,
}));

for (const honoursStop of [true, false])
  modelContract(`the fake that sends fixed chunks (${honoursStop ? 'honours stops' : 'honours none'})`, async () => ({
    model: chunkedModel([REPLY.slice(0, 5), REPLY.slice(5, 17), REPLY.slice(17)], { honoursStop }),
    capabilities: FAKE_CAPABILITIES(honoursStop),
    prompt: PROMPT,
  }));

modelContract('the fake that writes one character a chunk', async () => ({
  model: characterModel(PROMPT, REPLY),
  capabilities: FAKE_CAPABILITIES(false),
  prompt: PROMPT,
}));

modelContract('the recording wrapper over the fake that answers', async () => ({
  model: recordingModel(answeringModel(() => REPLY)),
  capabilities: FAKE_CAPABILITIES(true),
  prompt: PROMPT,
}));
