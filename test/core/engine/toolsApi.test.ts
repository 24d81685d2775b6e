// The runner over the tools API (api: 'tools') against the zoo's tool-call endpoint: a streamed function call becomes
// the step `Q1: [calculator] 21 + 3`, pauses like any tool call, runs, writes `#1: 24` and goes back as a `tool`
// message; the run ends at `Ans:`. Stepping back over the call and overriding the input asks the endpoint with
// messages made from the program text again.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseArt } from '../../../core/art/parse';
import { OpenAIModel } from '../../../core/model/openai';
import { createArtRunner } from '../../../core/launch/create';
import type { PauseInfo } from '../../../core/engine/types';
import type { RunnerOptions } from '../../../core/engine/runnerOptions';
import { artToolProgram } from '../../../core/protocols/artTools';
import { createToolRegistry } from '../../../core/tools/registry';
import { CachedModel, cacheEntries } from '../../../core/replay/cachedModel';
import { MemoryTrace } from '../../../core/trace/trace';
import { ZOO_LIBRARY, ZOO_PROGRAM, ZooServer } from '../../support/modelZoo';

const servers: ZooServer[] = [];
after(() => Promise.all(servers.map(s => s.close())));

const INPUT = 'Tom has 21 pens and buys 3 more. How many pens does he have?';

async function setup(opts: { call?: { name: string; arguments: string } } = {}) {
  const server = await new ZooServer('tool-call', opts).start();
  servers.push(server);
  const tools = await createToolRegistry({ workspaceRoot: process.cwd(), trusted: true });
  const model = new OpenAIModel({
    baseURL: server.baseURL,
    model: 'zoo',
    api: 'tools',
    toolProgram: artToolProgram(tools.catalog().all()),
    retry: { maxRetries: 0 },
  });
  const make = (o: Partial<RunnerOptions> = {}) =>
    createArtRunner({ library: parseArt(ZOO_LIBRARY), program: ZOO_PROGRAM, task: { input: INPUT } }, { model, tools, pauseAfterTool: false, ...o });
  return { server, tools, model, make };
}

describe('the runner over the tools API (zoo tool-call endpoint)', () => {
  test('the call becomes Q1: [calculator] 21 + 3 / #1: 24, the output goes back as a tool message, the run ends with the answer', async () => {
    const { server, make } = await setup();
    const trace = new MemoryTrace();
    const r = await make({ trace }).run();
    assert.equal(r.reason, 'finished', r.error);
    assert.equal(r.answer, '24');
    assert.match(r.snapshot.text, /\nInput: Tom has 21 pens.*\nQ1: \[calculator\] 21 \+ 3\n#1: 24\nQ2: \[EOQ\]\nAns: 24$/);
    assert.equal(server.requests.length, 2);
    const [first, second] = server.requests.map(q => q.body);
    // Every tool of the library offered, with one string parameter `instruction`.
    const fns = first.tools.map((t: any) => t.function.name);
    assert.ok(fns.includes('calculator') && fns.includes('code_execute'), fns.join(','));
    for (const t of first.tools) {
      assert.match(t.function.name, /^[a-zA-Z0-9_-]{1,64}$/);
      assert.deepEqual(t.function.parameters.required, ['instruction']);
    }
    assert.deepEqual(
      first.messages.map((m: any) => m.role),
      ['system', 'user'],
    );
    assert.ok(first.messages[1].content.endsWith(`Input: ${INPUT}\nQ1:`));
    assert.ok(first.messages[1].content.includes('Q1: [calculator] 2 + 5\n#1: 7'), 'the demonstrations stay ART text');
    assert.deepEqual(
      second.messages.map((m: any) => m.role),
      ['system', 'user', 'assistant', 'tool'],
    );
    const call = second.messages[2].tool_calls[0];
    assert.deepEqual(call.function, { name: 'calculator', arguments: '{"instruction":"21 + 3"}' });
    assert.deepEqual(second.messages[3], { role: 'tool', tool_call_id: call.id, content: '24' });
    assert.equal(second.messages[1].content, first.messages[1].content);
    // The trace has the call as a tool record and the completions as text.
    const tool = trace.records.find(x => x.t === 'tool');
    assert.ok(tool?.t === 'tool' && tool.call.tool === 'calculator' && tool.call.output === '24');
  });

  test('the call pauses like any tool call: before it (input edited), after it; stepping back over it and editing the input sends the edited call', async () => {
    const { server, make } = await setup();
    const runner = make({ pauseBeforeTool: true, pauseAfterTool: true });
    const pauses: string[] = [];
    let steppedBack = false;
    runner.on('paused', (p: PauseInfo) => {
      pauses.push(`${p.reason}:${p.call?.input ?? ''}:${p.call?.output ?? ''}`);
      if (p.reason === 'after-tool' && !steppedBack) {
        steppedBack = true;
        runner.stepBack(); // back before the call
        return;
      }
      if (p.reason === 'before-tool' && steppedBack && pauses.length === 3) runner.setToolInput('21 + 4');
      runner.continue();
    });
    const r = await runner.run();
    assert.equal(r.reason, 'finished', r.error);
    assert.deepEqual(pauses, ['before-tool:21 + 3:', 'after-tool:21 + 3:24', 'before-tool:21 + 3:', 'after-tool:21 + 4:25']);
    assert.equal(r.answer, '25');
    assert.match(r.snapshot.text, /\nQ1: \[calculator\] 21 \+ 4\n#1: 25\nQ2: \[EOQ\]\nAns: 25$/);
    // Stepping back restored the pause: the call was not asked again; the next request carries the edited call.
    assert.equal(server.requests.length, 2);
    const last = server.requests[1].body.messages;
    assert.equal(last[2].tool_calls[0].function.arguments, '{"instruction":"21 + 4"}');
    assert.equal(last[3].content, '25');
  });

  test('a re-run answered from the trace sends nothing to the endpoint and writes the same program', async () => {
    const { server, model, make } = await setup();
    const trace = new MemoryTrace();
    const first = await make({ trace }).run();
    const sent = server.requests.length;
    const cached = new CachedModel(model, cacheEntries(trace.records));
    const again = await make({ model: cached }).run();
    assert.equal(again.reason, 'finished', again.error);
    assert.equal(again.snapshot.text, first.snapshot.text);
    assert.equal(server.requests.length, sent);
    assert.equal(cached.hits, 2);
  });

  test('arguments as a bare string (not JSON) still give the instruction', async () => {
    const { make } = await setup({ call: { name: 'calculator', arguments: '21 + 3' } });
    const r = await make().run();
    assert.equal(r.reason, 'finished', r.error);
    assert.match(r.snapshot.text, /\nQ1: \[calculator\] 21 \+ 3\n#1: 24\n/);
  });
});
