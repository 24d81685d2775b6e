// The key host rule (core/launch/apiKey.ts): a workspace (launch.json, its settings) may choose the endpoint of its
// runs, but a key goes to an origin other than the user's own setting only once the user said so. The decision,
// the origin it names, where the base URL was set, the question's words, and the gate that asks once per origin and
// key, remembers approvals in its store and says in the run's first lines what it did.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  KeyHostGate,
  promptAsksModel,
  runKeyOf,
  keyHostDecision,
  keyHostQuestion,
  originOf,
  whereBaseURLSet,
  type KeyApproval,
  type KeyHostAnswer,
  type KeyHostCase,
  type KeyHostQuestion,
  type KeySource,
} from '../../../core/launch/apiKey';

const OPENAI = 'https://api.openai.com/v1';
const EVIL = 'https://evil.example/v1';
const STORED: KeySource = { kind: 'stored' };
const envKey = (name: string, namedByWorkspace = false): KeySource => ({ kind: 'env', name, namedByWorkspace });

const decide = (c: Partial<KeyHostCase>) => keyHostDecision({ userBaseURL: OPENAI, runBaseURL: OPENAI, key: STORED, approved: [], ...c });

describe('originOf: scheme, host and port of an http(s) URL', () => {
  test('the port is always written, the default one of the scheme when the URL has none', () => {
    assert.equal(originOf('https://api.openai.com/v1'), 'https://api.openai.com:443');
    assert.equal(originOf('http://127.0.0.1:8000/v1'), 'http://127.0.0.1:8000');
    assert.equal(originOf('http://localhost/v1'), 'http://localhost:80');
    assert.equal(originOf('https://API.OpenAI.com:443/v1/'), 'https://api.openai.com:443');
    assert.equal(originOf('http://[::1]:8080/v1'), 'http://[::1]:8080');
  });

  test('the host is the one the request goes to, whatever user name the URL carries', () => {
    assert.equal(originOf('https://api.openai.com@evil.example/v1'), 'https://evil.example:443');
    assert.equal(originOf('https://user:pw@api.openai.com/v1'), 'https://api.openai.com:443');
  });

  test('what is not an http(s) URL has no origin', () => {
    assert.equal(originOf(undefined), undefined);
    assert.equal(originOf(''), undefined);
    assert.equal(originOf('file:///etc/passwd'), undefined);
    assert.equal(originOf('http://[bad/v1'), undefined);
  });
});

describe('keyHostDecision: whether to ask before the key goes to the run’s endpoint', () => {
  test('the run’s endpoint is the user’s own setting: no question, whatever the path', () => {
    assert.deepEqual(decide({}), { ask: false, why: 'your setting' });
    assert.deepEqual(decide({ runBaseURL: 'https://API.openai.com:443/v2/' }), { ask: false, why: 'your setting' });
    assert.deepEqual(decide({ userBaseURL: 'http://127.0.0.1:8000/v1', runBaseURL: 'http://127.0.0.1:8000/other' }), {
      ask: false,
      why: 'your setting',
    });
  });

  test('no key to send: no question, wherever the endpoint is', () => {
    assert.deepEqual(decide({ runBaseURL: EVIL, key: undefined }), { ask: false, why: 'no key' });
  });

  test('no endpoint (replay without one): no question', () => {
    assert.deepEqual(decide({ runBaseURL: undefined }), { ask: false, why: 'no endpoint' });
  });

  test('the stored key to another host: ask, naming the origin and the user’s own', () => {
    assert.deepEqual(decide({ runBaseURL: EVIL }), { ask: true, origin: 'https://evil.example:443', userOrigin: 'https://api.openai.com:443' });
  });

  test('the same host on another port or scheme is another origin: ask', () => {
    assert.equal(decide({ runBaseURL: 'https://api.openai.com:8443/v1' }).ask, true);
    assert.equal(decide({ runBaseURL: 'http://api.openai.com/v1' }).ask, true);
  });

  test('a user name in the URL does not make another host the user’s own', () => {
    assert.deepEqual(decide({ runBaseURL: 'https://api.openai.com@evil.example/v1' }), {
      ask: true,
      origin: 'https://evil.example:443',
      userOrigin: 'https://api.openai.com:443',
    });
  });

  test('a local endpoint that is not the user’s own setting is asked about too (a local port may be forwarded anywhere)', () => {
    assert.equal(decide({ runBaseURL: 'http://127.0.0.1:9999/v1' }).ask, true);
    assert.equal(decide({ userBaseURL: 'http://127.0.0.1:8000/v1', runBaseURL: 'http://127.0.0.1:9999/v1' }).ask, true);
    assert.equal(decide({ userBaseURL: 'http://127.0.0.1:8000/v1', runBaseURL: 'http://localhost:8000/v1' }).ask, true);
  });

  test('a key from an environment variable is asked about as the stored key is, whoever named the variable', () => {
    assert.equal(decide({ runBaseURL: EVIL, key: envKey('OPENAI_API_KEY') }).ask, true);
    assert.equal(decide({ runBaseURL: EVIL, key: envKey('GITHUB_TOKEN', true) }).ask, true);
    // To the user's own endpoint: no question, even for a variable the workspace named.
    assert.deepEqual(decide({ key: envKey('GITHUB_TOKEN', true) }), { ask: false, why: 'your setting' });
  });

  test('an approval counts for its origin and its key only', () => {
    const approved: KeyApproval[] = [{ origin: 'https://evil.example:443', key: 'stored' }];
    assert.deepEqual(decide({ runBaseURL: EVIL, approved }), { ask: false, why: 'approved' });
    assert.equal(decide({ runBaseURL: 'https://evil.example:444/v1', approved }).ask, true);
    assert.equal(decide({ runBaseURL: 'http://evil.example/v1', approved }).ask, true);
    assert.equal(decide({ runBaseURL: EVIL, approved, key: envKey('OPENAI_API_KEY') }).ask, true);
    const env: KeyApproval[] = [{ origin: 'https://evil.example:443', key: 'env:OPENAI_API_KEY' }];
    assert.deepEqual(decide({ runBaseURL: EVIL, approved: env, key: envKey('OPENAI_API_KEY') }), { ask: false, why: 'approved' });
    assert.equal(decide({ runBaseURL: EVIL, approved: env, key: envKey('AWS_SECRET_ACCESS_KEY', true) }).ask, true);
    assert.equal(decide({ runBaseURL: EVIL, approved: env }).ask, true);
  });

  test('without a usable setting of the user’s own, every endpoint is asked about', () => {
    assert.deepEqual(decide({ userBaseURL: undefined }), { ask: true, origin: 'https://api.openai.com:443', userOrigin: undefined });
    assert.equal(decide({ userBaseURL: 'not a url' }).ask, true);
  });

  test('an endpoint that is no URL is asked about as written', () => {
    assert.deepEqual(decide({ runBaseURL: 'http://[bad/v1' }), { ask: true, origin: 'http://[bad/v1', userOrigin: 'https://api.openai.com:443' });
  });
});

describe('whereBaseURLSet: who chose the run’s endpoint', () => {
  const levels = { user: OPENAI, workspace: 'http://127.0.0.1:7000/v1', folder: 'http://127.0.0.1:7001/v1', folderName: 'proj' };
  test('a settings level when the run’s URL is that level’s value, else the launch configuration', () => {
    assert.equal(whereBaseURLSet('http://127.0.0.1:7001/v1', levels, { name: 'Debug x' }), 'the settings of the folder "proj"');
    assert.equal(whereBaseURLSet('http://127.0.0.1:7000/v1', levels, undefined), 'the workspace settings');
    assert.equal(whereBaseURLSet(OPENAI, levels, undefined), 'your settings');
    assert.equal(whereBaseURLSet(EVIL, levels, { name: 'Debug x', folderName: 'proj' }), 'the launch configuration "Debug x" of proj');
    assert.equal(whereBaseURLSet(EVIL, {}, { name: 'Debug x' }), 'the launch configuration "Debug x"');
    assert.equal(whereBaseURLSet(EVIL, {}, undefined), 'the run’s options');
  });
});

describe('keyHostQuestion: the words of the modal', () => {
  test('names where the URL was set, the key, the origin and the user’s own setting', () => {
    const q = keyHostQuestion(
      { origin: 'https://evil.example:443', userOrigin: 'https://api.openai.com:443' },
      STORED,
      'the launch configuration "Run" of proj',
    );
    assert.equal(q.message, 'The launch configuration "Run" of proj sends your stored API key to https://evil.example:443. Send the key there?');
    assert.match(q.detail, /Your setting "art\.model\.baseURL" is https:\/\/api\.openai\.com:443\./);
    assert.match(q.detail, /Send Key: .*remembered for https:\/\/evil\.example:443/);
    assert.match(q.detail, /Run Without Key: /);
    assert.match(q.detail, /ART: Forget Approved Key Hosts/);
  });

  test('a key from the environment names its variable, and says when the workspace named it', () => {
    const q = keyHostQuestion({ origin: 'https://evil.example:443', userOrigin: undefined }, envKey('GITHUB_TOKEN', true), 'the workspace settings');
    assert.equal(
      q.message,
      'The workspace settings send the API key in your environment variable GITHUB_TOKEN (a name the workspace chose) to https://evil.example:443. Send the key there?',
    );
    assert.match(q.detail, /Your setting "art\.model\.baseURL" is not a URL/);
  });
});

describe('KeyHostGate: asks once per origin and key, and says what it did', () => {
  function gate(answers: KeyHostAnswer[]) {
    const approved: KeyApproval[] = [];
    const asked: KeyHostQuestion[] = [];
    let release: () => void = () => undefined;
    let hold: Promise<void> | undefined;
    const g = new KeyHostGate({
      store: { approved: () => approved, approve: a => void approved.push(a) },
      ask: async q => {
        asked.push(q);
        if (hold) await hold;
        const a = answers.shift();
        assert.ok(a, `asked once more than expected: ${q.message}`);
        return a;
      },
    });
    return {
      g,
      approved,
      asked,
      holdAnswers: () => (hold = new Promise<void>(r => (release = r))),
      release: () => release(),
    };
  }
  const run = (over: Partial<Parameters<KeyHostGate['keyFor']>[0]> = {}) => ({
    userBaseURL: OPENAI,
    runBaseURL: EVIL,
    key: { value: 'sk-secret', source: STORED },
    where: 'the launch configuration "Run"',
    ...over,
  });

  test('the user’s own endpoint: the key, no question, no note', async () => {
    const t = gate([]);
    assert.deepEqual(await t.g.keyFor(run({ runBaseURL: OPENAI })), { key: 'sk-secret', notes: [] });
    assert.equal(t.asked.length, 0);
  });

  test('no key: nothing asked, nothing said', async () => {
    const t = gate([]);
    assert.deepEqual(await t.g.keyFor(run({ key: undefined })), { key: undefined, notes: [] });
  });

  test('Send Key: the key goes, the approval is stored and the next run is not asked', async () => {
    const t = gate(['send']);
    const first = await t.g.keyFor(run());
    assert.equal(first.key, 'sk-secret');
    assert.deepEqual(first.notes, [
      'key: your stored API key goes to https://evil.example:443 (set by the launch configuration "Run"; your setting is https://api.openai.com:443): you approved that host.',
    ]);
    assert.deepEqual(t.approved, [{ origin: 'https://evil.example:443', key: 'stored' }]);
    const second = await t.g.keyFor(run());
    assert.equal(second.key, 'sk-secret');
    assert.equal(second.notes.length, 1);
    assert.equal(t.asked.length, 1, 'asked once');
  });

  test('Run Without Key: the run gets no key, its first line says so, and the window does not ask again', async () => {
    const t = gate(['withhold']);
    const first = await t.g.keyFor(run());
    assert.equal(first.key, undefined);
    assert.deepEqual(first.notes, [
      'key: not sent: the endpoint https://evil.example:443 (set by the launch configuration "Run") is not your setting https://api.openai.com:443, and you chose Run Without Key; the run goes on without a key.',
    ]);
    assert.deepEqual(t.approved, []);
    const second = await t.g.keyFor(run());
    assert.equal(second.key, undefined);
    assert.match(second.notes[0], /you chose Run Without Key for it in this window/);
    assert.equal(t.asked.length, 1);
    t.g.forgetWithheld();
    await assert.rejects(t.g.keyFor(run()), /asked once more than expected/);
  });

  test('Cancel: the run does not start, and says why', async () => {
    const t = gate(['cancel', 'send']);
    const r = await t.g.keyFor(run());
    assert.equal(r.key, undefined);
    assert.equal(r.cancelled, 'you cancelled sending your stored API key to https://evil.example:443 (set by the launch configuration "Run")');
    assert.deepEqual(t.approved, []);
    // Cancel is not remembered: the next run asks again.
    assert.equal((await t.g.keyFor(run())).key, 'sk-secret');
    assert.equal(t.asked.length, 2);
  });

  test('runs that start together share one question', async () => {
    const t = gate(['send']);
    t.holdAnswers();
    const both = Promise.all([t.g.keyFor(run()), t.g.keyFor(run())]);
    await new Promise(r => setImmediate(r));
    t.release();
    const [a, b] = await both;
    assert.equal(a.key, 'sk-secret');
    assert.equal(b.key, 'sk-secret');
    assert.equal(t.asked.length, 1);
    assert.equal(t.approved.length, 1);
  });

  test('an approval of the stored key does not send an environment variable to the same host', async () => {
    const t = gate(['send', 'withhold']);
    await t.g.keyFor(run());
    const r = await t.g.keyFor(run({ key: { value: 'ghp_x', source: envKey('GITHUB_TOKEN', true) } }));
    assert.equal(r.key, undefined);
    assert.equal(t.asked.length, 2);
    assert.match(t.asked[1].message, /GITHUB_TOKEN/);
  });
});

describe('which runs read a key', () => {
  const o = { mode: 'generate' as const, baseURL: EVIL, model: 'm', apiKeyEnv: 'MY_KEY' };
  test('runKeyOf: none without an endpoint to call; the client’s when it reads keys; else the environment’s', async () => {
    const env = { MY_KEY: 'from-env' };
    assert.deepEqual(await runKeyOf({ ...o, mode: 'replay', baseURL: undefined }, async () => assert.fail('asked'), env), {
      key: undefined,
      notes: [],
    });
    assert.deepEqual(await runKeyOf(o, async () => ({ key: 'client', notes: ['n'] }), env), { key: 'client', notes: ['n'] });
    assert.deepEqual(await runKeyOf(o, undefined, env), { key: 'from-env', notes: [] });
  });

  test('promptAsksModel: Show Prompt needs the key only when the model chooses the demonstrations', () => {
    assert.equal(promptAsksModel({ ...o, select: 'same-file' }), false);
    assert.equal(promptAsksModel({ ...o, select: 'similar' }), false);
    assert.equal(promptAsksModel({ ...o, select: 'llm' }), true);
    assert.equal(promptAsksModel({ ...o, select: 'best-cluster' }), true);
    assert.equal(promptAsksModel({ ...o, mode: 'replay', baseURL: undefined, select: 'llm' }), false);
  });
});
