// Each agent spec of the corpus (../shared/corpus/agents, or the project's examples/agents without the corpus) under
// the decoding monitor on the real default model, with the decoding constraint (`constrain auto`: the local model
// takes the exact llama.cpp grammar) and without: with it every request is constrained and the monitor corrects
// nothing; without it the corrections are counted (docs/constraints.md has the figures). A run ends with an answer
// or a named reason either way.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { prepareRun } from '../../core/launch/launch';
import type { RunConfig } from '../../core/launch/session';
import { disposeLocalRuntimes } from '../../core/model/localRuntime';
import type { PauseInfo } from '../../core/engine/types';
import { END_REASONS } from '../../core/trace/vocabulary';
import { CORPUS } from '../support/corpus';
import { localModelPath } from '../support/localModel';

const file = localModelPath();
const root = resolve(__dirname, '../..');
const folder = existsSync(join(CORPUS, 'agents')) ? join(CORPUS, 'agents') : join(root, 'examples/agents');
const agents = readdirSync(folder).filter(f => f.endsWith('.agent'));
after(() => disposeLocalRuntimes());

async function runAgent(agent: string, constrain: 'auto' | 'off') {
  const run = await prepareRun({
    program: join(folder, agent),
    input: 'What is the capital of the country where the Eiffel Tower stands?',
    mode: 'generate',
    modelSource: 'local',
    modelFile: file,
    constrain,
    temperature: 0,
    maxTokens: 48,
    maxRequests: 3,
    trusted: true,
    cwd: root,
  } as RunConfig);
  run.runner.on('paused', (_p: PauseInfo) => run.runner.continue());
  try {
    return await run.runner.run();
  } finally {
    await run.dispose();
  }
}

describe(`real model: the agents of ${folder} under the monitor`, () => {
  for (const agent of agents)
    test(`${agent}: constrained, the monitor corrects nothing; unconstrained, the corrections are counted`, async () => {
      const on = await runAgent(agent, 'auto');
      assert.ok((END_REASONS as readonly string[]).includes(on.reason), on.reason);
      assert.ok(on.snapshot.requests >= 1);
      assert.equal(on.snapshot.constrainedRequests, on.snapshot.requests, 'every request constrained');
      assert.equal(on.snapshot.corrections, 0, 'the grammar held the model on the spec');
      const off = await runAgent(agent, 'off');
      assert.ok((END_REASONS as readonly string[]).includes(off.reason), off.reason);
      assert.equal(off.snapshot.constrainedRequests, 0);
      console.log(
        `[figures] ${agent}: auto ${on.snapshot.requests} requests, ${on.snapshot.corrections} corrections; off ${off.snapshot.requests} requests, ${off.snapshot.corrections} corrections`,
      );
    });
});
