// The adapter's side of the key host rule, in process (as VS Code runs it inline, client/runner/activate.ts): a run
// that may call its endpoint asks the client for its key (`runKey`, given the parsed options and the launch
// arguments), sends that key and nothing else, says the client's notes right after the mode line, and a key the user
// would not send (Cancel) ends the session before anything runs, with a console line and no error to show. The rule
// itself (when to ask, approvals) is core's: test/core/launch/keyHost.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { ArtDebugSession } from '../../client/debugAdapter/debugSession';
import type { KeyOptions, RunKey } from '../../core/launch/apiKey';
import type { ArtLaunchArguments } from '../../client/debugAdapter/protocol';
import { ScriptedServer } from '../support/scriptedServer';
import { CODEGEN_SCRIPT, DUCKS, DUCKS_SCRIPT, fixturePath } from '../support/runs';

const PROGRAM = fixturePath('programs/arithmetic.art');

/** An adapter driven in process through the DebugAdapter interface VS Code uses for an inline implementation. */
class InProcess {
  readonly messages: DebugProtocol.ProtocolMessage[] = [];
  private readonly events = new EventEmitter();
  private seq = 1;
  constructor(readonly session: ArtDebugSession) {
    session.onDidSendMessage(m => {
      this.messages.push(m as DebugProtocol.ProtocolMessage);
      this.events.emit('message', m);
    });
  }
  request(command: string, args?: unknown): Promise<DebugProtocol.Response> {
    const seq = this.seq++;
    const answered = this.next(m => m.type === 'response' && (m as DebugProtocol.Response).request_seq === seq) as Promise<DebugProtocol.Response>;
    this.session.handleMessage({ seq, type: 'request', command, arguments: args } as DebugProtocol.Request);
    return answered;
  }
  /** The first message (already sent or to come) that `accept` holds for. */
  next(accept: (m: DebugProtocol.ProtocolMessage) => boolean): Promise<DebugProtocol.ProtocolMessage> {
    const had = this.messages.find(accept);
    if (had) return Promise.resolve(had);
    return new Promise(resolve => {
      const on = (m: DebugProtocol.ProtocolMessage) => {
        if (!accept(m)) return;
        this.events.off('message', on);
        resolve(m);
      };
      this.events.on('message', on);
    });
  }
  event(name: string): Promise<DebugProtocol.Event> {
    return this.next(m => m.type === 'event' && (m as DebugProtocol.Event).event === name) as Promise<DebugProtocol.Event>;
  }
  console(): string[] {
    return this.messages
      .filter((m): m is DebugProtocol.OutputEvent => m.type === 'event' && (m as DebugProtocol.Event).event === 'output')
      .map(m => m.body.output);
  }
  async launch(args: Record<string, unknown>): Promise<DebugProtocol.Response> {
    await this.request('initialize', { adapterID: 'art', clientID: 'test', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
    const launched = this.request('launch', args);
    await this.request('configurationDone');
    return launched;
  }
}

describe('debug adapter in process: the client reads the key (runKey)', () => {
  const server = new ScriptedServer();
  const sessions: InProcess[] = [];
  before(async () => {
    await server.start();
    server.setScripts(DUCKS_SCRIPT, CODEGEN_SCRIPT);
  });
  after(async () => {
    for (const s of sessions) {
      await s.request('disconnect', { terminateDebuggee: true });
      s.session.dispose();
    }
    await server.close();
  });

  const start = (runKey: (o: KeyOptions, a: ArtLaunchArguments) => Promise<RunKey>) => {
    const s = new InProcess(new ArtDebugSession({ runKey, isTrusted: () => true, env: { OPENAI_API_KEY: 'sk-from-env' } }));
    sessions.push(s);
    return s;
  };
  const args = () => ({ name: 'Debug ducks', program: PROGRAM, task: DUCKS, mode: 'generate', baseURL: server.baseURL, model: 'scripted' });

  test('the key the client gives is the one sent, and its notes follow the mode line', async () => {
    server.reset();
    const asked: { o: KeyOptions; a: ArtLaunchArguments }[] = [];
    const s = start(async (o, a) => {
      asked.push({ o, a });
      return { key: 'sk-approved', notes: ['key: your stored API key goes to a host you approved.'] };
    });
    const stopped = s.event('stopped');
    const launched = await s.launch(args());
    assert.equal(launched.success, true, launched.message);
    await stopped;
    assert.equal(asked.length, 1);
    assert.equal(asked[0].o.baseURL, server.baseURL);
    assert.equal(asked[0].o.apiKeyEnv, 'OPENAI_API_KEY');
    assert.equal(asked[0].a.name, 'Debug ducks');
    assert.ok(server.requests.length > 0, 'the model was asked');
    for (const r of server.requests) assert.equal(r.authorization, 'Bearer sk-approved', 'the client’s key, not the environment’s');
    const lines = s.console().join('').split('\n');
    assert.match(lines[0], /^Live: scripted at /, `the mode line first: ${lines[0]}`);
    assert.equal(lines[1], 'key: your stored API key goes to a host you approved.');
  });

  test('no key from the client: the endpoint gets none (not the environment’s)', async () => {
    server.reset();
    const s = start(async () => ({ key: undefined, notes: ['key: not sent.'] }));
    const stopped = s.event('stopped');
    assert.equal((await s.launch(args())).success, true);
    await stopped;
    assert.ok(server.requests.length > 0);
    for (const r of server.requests) assert.doesNotMatch(r.authorization ?? '', /sk-from-env/);
    assert.match(s.console().join(''), /\nkey: not sent\.\n/);
  });

  test('cancelled: nothing runs, the console says why, the session ends without an error', async () => {
    server.reset();
    const s = start(async () => ({ key: undefined, notes: [], cancelled: 'you cancelled sending your stored API key to https://evil.example:443' }));
    const terminated = s.event('terminated');
    const launched = await s.launch(args());
    assert.equal(launched.success, true, 'not an error to show: the user chose it');
    await terminated;
    assert.equal(server.requests.length, 0, 'no request');
    assert.deepEqual(s.console(), ['The run did not start: you cancelled sending your stored API key to https://evil.example:443.\n']);
  });

  test('a replay with no endpoint to go on with does not ask for a key', async () => {
    server.reset();
    let asked = 0;
    const s = start(async () => {
      asked++;
      return { key: 'k', notes: [] };
    });
    const terminated = s.event('terminated');
    const launched = await s.launch({ name: 'replay', program: PROGRAM, task: 0, mode: 'replay', noDebug: true });
    assert.equal(launched.success, true, launched.message);
    await terminated;
    assert.equal(asked, 0);
  });
});
