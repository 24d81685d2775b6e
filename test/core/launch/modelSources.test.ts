// The model sources as providers (core/launch/modelSources.ts): what each says it can do, the one rule of a live
// model, and the decisions that ask them (the key, reranking, constraints, the request cache, the CLI's source).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { capabilitiesOf, hasLiveModel } from '../../../core/launch/modelSources';
import { DEFAULT_LOCAL_SEQUENCES } from '../../../core/model/defaultModel';
import { mayCallEndpoint } from '../../../core/launch/apiKey';
import { cliModelSource, replayUnlessEndpoint } from '../../../core/cli/optionFlags';

describe('model sources: capabilities', () => {
  test('the local model honours stops, scores text and takes llama.cpp grammars exactly; it needs no key', () => {
    const c = capabilitiesOf({ modelSource: 'local' });
    assert.deepEqual(
      [c.stopSequences, c.generatedLogprobs, c.promptLogprobs, c.constraints, c.exactGrammar, c.needsKey, c.tokenCounts],
      [true, true, true, 'llama.cpp', true, false, true],
    );
    assert.equal(c.concurrency, DEFAULT_LOCAL_SEQUENCES, 'requests decode at once on the sequences of its one context');
  });
  test("VS Code's models take no stops, log-probabilities or constraints, and no key", () => {
    const c = capabilitiesOf({ modelSource: 'vscode' });
    assert.deepEqual([c.stopSequences, c.generatedLogprobs, c.promptLogprobs, c.constraints, c.needsKey], [false, false, false, null, false]);
  });
  test("the endpoint's depend on its API: prompt log-probabilities on completions, function calling on tools; stops on all", () => {
    assert.equal(capabilitiesOf({ modelSource: 'endpoint', api: 'completions' }).promptLogprobs, true);
    assert.equal(capabilitiesOf({ modelSource: 'endpoint', api: 'chat' }).promptLogprobs, false);
    // The chat completions API takes `stop` as the completions API does, and the client sends it (the contract suite checks).
    for (const api of ['completions', 'chat', 'tools'] as const)
      assert.equal(capabilitiesOf({ modelSource: 'endpoint', api }).stopSequences, true, api);
    assert.equal(capabilitiesOf({ modelSource: 'endpoint', api: 'tools' }).functionCalling, true);
    assert.equal(capabilitiesOf({ modelSource: 'endpoint' }).constraints, 'probe');
    assert.equal(capabilitiesOf({ modelSource: 'endpoint' }).needsKey, true);
  });
});

describe('model sources: one rule of a live model', () => {
  const none = { baseURL: undefined, model: undefined, modelFile: undefined };
  test('an endpoint needs both its base URL and a model name', () => {
    assert.equal(hasLiveModel({ ...none, modelSource: 'endpoint', baseURL: 'http://h/v1' }, undefined), false);
    assert.equal(hasLiveModel({ ...none, modelSource: 'endpoint', baseURL: 'http://h/v1', model: 'm' }, undefined), true);
  });
  test("VS Code's source needs the caller's chat model, the local one a model file", () => {
    assert.equal(hasLiveModel({ ...none, modelSource: 'vscode', baseURL: 'http://h/v1', model: 'm' }, undefined), false);
    assert.equal(hasLiveModel({ ...none, modelSource: 'vscode' }, {}), true);
    assert.equal(hasLiveModel({ ...none, modelSource: 'local', baseURL: 'http://h/v1', model: 'm' }, undefined), false);
    assert.equal(hasLiveModel({ ...none, modelSource: 'local', modelFile: 'm.gguf' }, undefined), true);
  });
  test('no key is read for a source that needs none', () => {
    assert.equal(mayCallEndpoint({ mode: 'generate', baseURL: undefined, model: undefined, modelSource: 'local' }), false);
    assert.equal(mayCallEndpoint({ mode: 'generate', baseURL: undefined, model: undefined, modelSource: 'endpoint' }), true);
  });
});

describe("model sources: the command line's", () => {
  test('a model file chooses the local model and generates; without one, no endpoint means replay', () => {
    const raw: Record<string, unknown> = { modelFile: 'm.gguf' };
    assert.equal(replayUnlessEndpoint(raw), false);
    assert.equal(raw.modelSource, 'local');
    const bare: Record<string, unknown> = {};
    assert.equal(replayUnlessEndpoint(bare), true);
    assert.equal(bare.modelSource, undefined);
  });
  test('an explicit source is kept', () => {
    const raw: Record<string, unknown> = { modelFile: 'm.gguf', modelSource: 'endpoint' };
    cliModelSource(raw);
    assert.equal(raw.modelSource, 'endpoint');
  });
});
