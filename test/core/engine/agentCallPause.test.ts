// Where an agent run stops at a tool call, whatever the chunking: the pause's call names the `:env-input` state
// (the debug adapter shows that state's line in the spec) while the program so far ends with the tool-input state
// (the env-input state's text is the tool's output, written only after the pause). Every split of the first
// response is fed through a fake model (chunkedModel), on both ways a stream stops at a call (a stop sequence the
// model honours, or the runner aborting the stream of a model that honours none), then the same through the scripted
// server and the real client with several chunk sizes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { compileAgent } from '../../../core/agent/compile';
import { parseAgentFile } from '../../../core/agent/parse';
import { OpenAIModel } from '../../../core/model/openai';
import { ContinuationScript } from '../../../core/replay/script';
import type { ModelClient } from '../../../core/model/types';
import { createAgentRunner } from '../../../core/launch/create';
import type { RunnerEvents } from '../../../core/engine/types';
import type { ToolLookup } from '../../../core/protocols/types';
import { chunkedModel } from '../../support/fakeModels';
import { ScriptedServer } from '../../support/scriptedServer';
import { fixturePath, fakeTool } from '../../support/runs';

const react = compileAgent(parseAgentFile(readFileSync(fixturePath('agents/react.agent'), 'utf8')).agents[0]);
const QUESTION = 'Who was Milhouse named after?';
const HEADER = `[Question] ${QUESTION}\n`;
/** What the model writes up to the call, and what it would write past it if nothing stopped it. */
const TO_CALL = '[Thought] I need to search Milhouse.\n[Action] Search\n[Action Input] Milhouse\n';
const PAST_CALL = '[Observation] Milhouse is a character.\n[Thought] I can look up "named after".\n';
const SCRIPT = ContinuationScript.parse(`${TO_CALL}[Observation]⟂⟦ Milhouse is a character.⟧\n[Final Thought] Done.\n[Answer] Nixon\n`, HEADER);

const tools: ToolLookup = { get: name => fakeTool(name, input => ({ ok: true, output: `${name} found ${input}` })) };

type Pause = RunnerEvents['paused'][0];

/** The first pause of an agent run with the debugger's defaults (pause after each tool); the run is then stopped. */
async function firstPause(model: ModelClient): Promise<Pause> {
  const r = createAgentRunner({ agent: react, question: QUESTION }, { model, tools, pauseAfterTool: true, maxRequests: 2 });
  let pause: Pause | undefined;
  r.on('paused', p => {
    pause ??= p;
    r.stop();
  });
  const result = await r.run();
  assert.ok(pause, `the run ended (${result.reason}${result.error ? `: ${result.error}` : ''}) without stopping at the call`);
  return pause;
}

function assertAtObservation(p: Pause, how: string): void {
  assert.equal(p.reason, 'after-tool', how);
  assert.equal(p.call?.tool, 'Search', how);
  assert.equal(p.call?.input, 'Milhouse', how);
  assert.equal(p.call?.output, 'Search found Milhouse', how);
  // The call is the env-input state, the step after the last one written.
  assert.equal(p.call?.state, 'Obs', how);
  const steps = p.snapshot.steps;
  assert.equal(p.call?.step, steps.length + 1, how);
  assert.deepEqual(
    steps.map(s => s.label),
    ['Ques', 'Tht', 'Act', 'Act-Inp'],
    how,
  );
  assert.deepEqual(p.snapshot.agentState, { current: 'Act-Inp', expected: ['Obs'] }, how);
  assert.ok(p.snapshot.text.endsWith('[Action Input] Milhouse\n'), `${how}: nothing past the call: ${JSON.stringify(p.snapshot.text.slice(-40))}`);
}

describe('an agent run stops at its env-input state whatever the chunking', { timeout: 120_000 }, () => {
  test('every split in two or three of the response, with a stop sequence and by abort', async () => {
    const cases: [string[], boolean][] = [];
    // Stopped by a stop sequence: the response ends at the call. By abort: it goes on past the call.
    for (const [text, honoursStop] of [
      [TO_CALL + PAST_CALL, true],
      [TO_CALL + PAST_CALL, false],
    ] as const) {
      for (let i = 1; i < text.length; i++) cases.push([[text.slice(0, i), text.slice(i)], honoursStop]);
      // Three pieces around the call point: `[Observation]` split anywhere, as chunks arrive under load.
      const at = TO_CALL.length;
      for (let i = at - 3; i <= at + 14; i++)
        for (let j = i + 1; j <= at + 16; j++) cases.push([[text.slice(0, i), text.slice(i, j), text.slice(j)], honoursStop]);
    }
    cases.push(
      [[TO_CALL + PAST_CALL], true],
      [[TO_CALL + PAST_CALL], false],
      [[...(TO_CALL + PAST_CALL)], true],
      [[...(TO_CALL + PAST_CALL)], false],
    );
    for (const [chunks, honoursStop] of cases) {
      assertAtObservation(await firstPause(chunkedModel(chunks, { honoursStop })), `${honoursStop ? 'stop' : 'abort'} ${JSON.stringify(chunks)}`);
    }
  });

  describe('through the scripted server and the real client', () => {
    const server = new ScriptedServer();
    before(async () => {
      await server.start();
      server.setScripts(SCRIPT);
    });
    after(() => ScriptedServer.closeAll());

    for (const honourStop of [true, false]) {
      test(`chunks of 1 to 13 tokens, ${honourStop ? 'stop sequences honoured' : 'stream aborted at the call'}`, async () => {
        server.honourStop = honourStop;
        for (const tokensPerChunk of [1, 2, 3, 5, 8, 13]) {
          server.tokensPerChunk = tokensPerChunk;
          server.tokenDelayMs = tokensPerChunk % 2;
          const model = new OpenAIModel({ baseURL: server.baseURL, model: 'scripted', honoursStop: honourStop });
          assertAtObservation(await firstPause(model), `${tokensPerChunk} tokens per chunk`);
        }
      });
    }
  });
});
