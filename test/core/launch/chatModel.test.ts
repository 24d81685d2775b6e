// Runs on the caller's chat model (modelSource "vscode": VS Code's Language Model API, which has no stop sequences,
// log-probabilities or prefill) through prepareRun, the model served by the zoo's habits (test/support/chatProxy.ts):
// the runner's guards hold as on an endpoint, a model that calls functions runs ART programs over function calling,
// no key is read, and a run without the model says what to do.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareRun } from '../../../core/launch/launch';
import { callerChatModel, chatModelNotes } from '../../../core/launch/session';
import { LaunchError } from '../../../core/launch/options';
import { mayCallEndpoint } from '../../../core/launch/apiKey';
import { NO_LOGPROBS_NOTE } from '../../../core/model/chatContinuation';
import { ZOO_ANSWER, ZOO_LIBRARY, ZOO_PROGRAM, ZooServer, type Habit } from '../../support/modelZoo';
import { proxiedChatModel } from '../../support/chatProxy';

const servers: ZooServer[] = [];
after(() => Promise.all(servers.map(s => s.close())));

const dir = mkdtempSync(join(tmpdir(), 'art-chat-model-'));
const LIBRARY = join(dir, 'zoo.art');
writeFileSync(LIBRARY, ZOO_LIBRARY);

async function runOn(habit: Habit, opts: { callsFunctions?: boolean; input?: string } = {}) {
  const server = await new ZooServer(habit).start();
  servers.push(server);
  const log: string[] = [];
  const run = await prepareRun({
    program: LIBRARY,
    task: ZOO_PROGRAM,
    mode: 'generate',
    modelSource: 'vscode',
    chatModel: proxiedChatModel(server.baseURL, { callsFunctions: opts.callsFunctions }),
    input: opts.input,
    trusted: true,
    pauseAfterTool: false,
    log: line => log.push(line),
  });
  try {
    const result = await run.runner.run();
    return { result, server, log, model: run.model };
  } finally {
    await run.dispose();
  }
}

describe('a run on the caller\'s chat model (modelSource "vscode")', () => {
  test("the zoo's honest model: no stop sequence is sent, the model's own guess of the tool output is cut, the calculator's answer used", async () => {
    const { result, server, model } = await runOn('plain');
    assert.equal(result.reason, 'finished', result.error);
    assert.equal(result.answer, ZOO_ANSWER);
    assert.match(result.snapshot.text, /Q1: \[calculator\] 3 \+ 7\n#1: 10\nQ2: \[EOQ\]\nAns: 10$/);
    assert.equal(model.honoursStop, false);
    assert.ok(server.requests.every(r => r.stop.length === 0 && r.body.logprobs === undefined));
  });

  for (const habit of ['wrapper', 'echo-line', 'think', 'split-bytes'] as const) {
    test(`${habit}: the reply is made a bare continuation and the run finishes`, async () => {
      const { result } = await runOn(habit);
      assert.equal(result.reason, 'finished', result.error);
      assert.match(result.answer ?? '', /^10/);
      assert.doesNotMatch(result.snapshot.text, /Sure!|```|<think>/);
    });
  }

  test('refusal: the run ends at once, quoting it, nothing of it in the program', async () => {
    const { result } = await runOn('refusal');
    assert.notEqual(result.reason, 'finished');
    assert.doesNotMatch(result.snapshot.text, /I'm sorry/);
  });

  test('same-again: the runner stops a model that repeats itself instead of looping', async () => {
    const { result, server } = await runOn('same-again');
    assert.notEqual(result.reason, 'finished');
    assert.ok(server.requests.length <= 8, `${server.requests.length} requests`);
  });

  test('a model that calls functions: the call becomes the tool step, its output goes back as the result, the run finishes', async () => {
    const { result, server } = await runOn('tool-call', {
      callsFunctions: true,
      input: 'Tom has 21 pens and buys 3 more. How many pens does he have?',
    });
    assert.equal(result.reason, 'finished', result.error);
    assert.equal(result.answer, '24');
    assert.match(result.snapshot.text, /Q1: \[calculator\] 21 \+ 3\n#1: 24\nQ2: \[EOQ\]\nAns: 24$/);
    const [first, second] = server.requests.map(r => r.body);
    assert.ok(first.tools.some((t: { function: { name: string } }) => t.function.name === 'calculator'));
    assert.deepEqual(second.messages.at(-1), { role: 'tool', tool_call_id: 'art000001', content: '24' });
  });

  test('no model given: one line that says where to choose one; no key is read', async () => {
    await assert.rejects(
      prepareRun({ program: LIBRARY, task: ZOO_PROGRAM, mode: 'generate', modelSource: 'vscode', trusted: true }),
      (e: Error) => e instanceof LaunchError && /model source is "vscode".*status bar/.test(e.message) && !e.message.includes('\n'),
    );
    assert.equal(mayCallEndpoint({ mode: 'generate', baseURL: 'https://api.example/v1', model: 'm', modelSource: 'vscode' }), false);
  });

  test('the notes: the model, function calling or not, why log-probability features are off, a constraint not applied', () => {
    const chat = proxiedChatModel('http://127.0.0.1:1/v1', { id: 'vscode-lm:test/zoo', callsFunctions: true });
    const notes = chatModelNotes({ modelSource: 'vscode', constrain: 'auto' }, chat);
    assert.match(notes[0], /vscode-lm:test\/zoo .*function calling/);
    assert.equal(notes[1], `model: ${NO_LOGPROBS_NOTE}`);
    assert.match(notes[2], /constrain "auto" is not applied/);
    assert.deepEqual(chatModelNotes({ modelSource: 'endpoint', constrain: 'off' }, chat), []);
  });

  test("the caller's model: a run that generates cannot start without it (its reason, one line); a replay goes on without", async () => {
    const none = async () => {
      throw new Error('no language model of VS Code is "x"');
    };
    const o = { modelSource: 'vscode' as const, vscodeModel: 'x' };
    await assert.rejects(callerChatModel({ ...o, mode: 'generate' }, none, 'j'), (e: Error) => e instanceof LaunchError && /"x"/.test(e.message));
    assert.equal(await callerChatModel({ ...o, mode: 'replay' }, none, 'j'), undefined);
    const chat = proxiedChatModel('http://127.0.0.1:1/v1');
    const asked: string[] = [];
    const provide = async (wanted: string, why: string) => (asked.push(`${wanted}: ${why}`), chat);
    assert.equal(await callerChatModel({ ...o, mode: 'generate' }, provide, 'ART Studio runs Pens'), chat);
    assert.deepEqual(asked, ['x: ART Studio runs Pens']);
    assert.equal(await callerChatModel({ modelSource: 'endpoint', vscodeModel: 'x', mode: 'generate' }, provide, 'j'), undefined);
  });
});
