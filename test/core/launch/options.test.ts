// The run options' one declaration (core/launch/options.ts) and what is derived from it: validation with one-line
// errors, the `art run` help, the settings fallback, and the options that used to reach no tool (NLL reranking,
// the Python limits, the lookup word list) set from a launch configuration through prepareRun.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { runUsage } from '../../../core/cli/run';
import { ContinuationScript } from '../../../core/replay/script';
import { prepareRun } from '../../../core/launch/launch';
import { LaunchError } from '../../../core/launch/options';
import type { RunConfig } from '../../../core/launch/session';
import { RUN_OPTIONS, cliOptions, launchLabel, optionsFromSettings, parseRunOptions, type RunOptionName } from '../../../core/launch/options';
import type { RunResult } from '../../../core/engine/types';
import { mayCallEndpoint } from '../../../core/launch/apiKey';
import { ScriptedServer } from '../../support/scriptedServer';

const FIXTURES = join(__dirname, '../../fixtures/run-options');
const PROGRAM = join(FIXTURES, 'options.art');
const LOOKUP = 0;
const SEARCH = 1;
const PYTHON = 2;

const errorOf = (raw: Record<string, unknown>) => {
  try {
    parseRunOptions(raw);
  } catch (e) {
    assert.ok(e instanceof LaunchError, String(e));
    return e.message;
  }
  assert.fail(`accepted ${JSON.stringify(raw)}`);
};

describe('one default for the CLI and VS Code', () => {
  test('every option that changes answers has the default its setting has (two evaluations differ in the library only)', () => {
    // What a results header records as changing answers (core/evaluation/header.ts); VS Code sends the settings'
    // defaults, the CLI and MCP the declaration's: they were temperature 0 and 512 against none.
    const parsed = parseRunOptions({ program: 'x.art' }) as Record<string, unknown>;
    const answerChanging: RunOptionName[] = ['api', 'select', 'samples', 'temperature', 'maxTokens', 'constrain', 'inlineTriggers'];
    for (const name of answerChanging) {
      const setting = (RUN_OPTIONS[name] as { setting?: { default?: unknown } }).setting;
      if (setting && 'default' in setting) assert.deepEqual(parsed[name], setting.default, name);
    }
    assert.deepEqual([parsed.temperature, parsed.maxTokens], [0, 512]);
  });
});

describe('run options: validation', () => {
  test('defaults come from the declaration; empty strings and null count as not given; other keys are ignored', () => {
    const o = parseRunOptions({ program: 'a.art', model: '', task: null, type: 'art', request: 'launch', __sessionId: 'x' });
    assert.equal(o.mode, 'generate');
    assert.equal(o.api, 'completions');
    assert.equal(o.apiKeyEnv, 'OPENAI_API_KEY');
    assert.equal(o.rerank, false);
    assert.equal(o.pythonTimeoutMs, 15000);
    assert.equal(o.model, undefined);
    assert.equal(o.task, undefined);
    assert.ok(!('type' in o));
  });

  test('a bad value gives one line naming the option and what it expects', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ mode: 'fast' }, 'launch attribute "mode": expected "generate" or "replay", not "fast"'],
      [{ temperature: 'hot' }, 'launch attribute "temperature": expected a number from 0 to 2, not "hot"'],
      [{ temperature: 3 }, 'launch attribute "temperature": expected a number from 0 to 2, not 3'],
      [{ maxTokens: 1.5 }, 'launch attribute "maxTokens": expected an integer of at least 1, not 1.5'],
      [{ rerank: 'yes' }, 'launch attribute "rerank": expected true or false, not "yes"'],
      [{ pythonMemoryMb: 1 }, 'launch attribute "pythonMemoryMb": expected an integer of at least 16, not 1'],
      [{ baseURL: 'localhost:8000' }, 'launch attribute "baseURL": expected an http:// or https:// URL, not "localhost:8000"'],
      [{ task: -1 }, 'launch attribute "task": expected a string or an integer of at least 0, not -1'],
      [{ wordList: 42 }, 'launch attribute "wordList": expected a string, not 42'],
    ];
    for (const [raw, message] of cases) {
      const m = errorOf({ program: 'a.art', ...raw });
      assert.equal(m, message);
      assert.doesNotMatch(m, /\n/);
    }
    assert.match(errorOf({}), /^launch attribute "program" is missing: The task library \(\.art\)/);
  });

  test('the label names the option as the shell spells it', () => {
    assert.throws(() => parseRunOptions({ program: 'a', pythonTimeoutMs: 0 }, n => `--${RUN_OPTIONS[n].cli?.flag}`), {
      message: '--python-timeout-ms: expected an integer of at least 1, not 0',
    });
    assert.equal(launchLabel('rerank'), 'launch attribute "rerank"');
  });
});

describe('run options: derived artifacts', () => {
  test('art run --help lists every option that has a flag, with its description and default, once', () => {
    const help = runUsage();
    const flags = cliOptions();
    assert.ok(flags.length >= 20);
    for (const { cli, spec } of flags) {
      const line = help.split('\n').find(l => l.trimStart().startsWith(`--${cli.flag}${cli.arg ? ` ${cli.arg}` : ''} `));
      assert.ok(line, `--${cli.flag} is not in the help`);
      assert.ok(line.includes(spec.description), `--${cli.flag}: ${line}`);
      assert.equal(help.split(`--${cli.flag} `).length, 2, `--${cli.flag} listed more than once`);
    }
    assert.match(help, /--python-timeout-ms MS +Python sandbox: wall-clock milliseconds.*\(default 15000\)/);
    assert.match(help, /--rerank +Rerank search results/);
    assert.match(help, /--interactive +pause after each tool call/);
    const withoutFlag = (Object.keys(RUN_OPTIONS) as RunOptionName[]).filter(n => !RUN_OPTIONS[n].cli);
    assert.deepEqual(
      withoutFlag,
      ['program', 'modelSource', 'vscodeModel', 'pauseBeforeTool', 'stopOnEntry', 'trusted'],
      "FILE is positional; the rest only mean something in a debugger (or in VS Code: its Language Model API's models)",
    );
  });

  test('settings fill options generically: unset ("") skipped, the default tool file only when changed', () => {
    const settings: Record<string, unknown> = {
      'model.baseURL': 'http://127.0.0.1:8000/v1',
      'model.name': '',
      'model.temperature': 0,
      'tools.file': '.art-tools.json',
      'search.rerank': true,
      'python.timeoutMs': 250,
      'lookup.wordList': '/tmp/words',
      'server.trace': 'verbose',
    };
    assert.deepEqual(
      optionsFromSettings(k => settings[k]),
      {
        baseURL: 'http://127.0.0.1:8000/v1',
        temperature: 0,
        rerank: true,
        pythonTimeoutMs: 250,
        wordList: '/tmp/words',
      },
    );
    settings['tools.file'] = 'tools/mine.json';
    assert.equal(optionsFromSettings(k => settings[k]).tools, 'tools/mine.json');
  });
});

describe('run options reach the tools (launch configuration through prepareRun)', () => {
  const logs: string[] = [];
  const launch = async (config: Partial<RunConfig>): Promise<RunResult> => {
    const run = await prepareRun({
      program: PROGRAM,
      cwd: FIXTURES,
      trusted: true,
      pauseAfterTool: false,
      pauseOnToolError: false,
      log: l => logs.push(l),
      ...config,
    });
    try {
      return await run.runner.run();
    } finally {
      await run.dispose();
    }
  };
  const call = (r: RunResult, tool: string) => {
    const c = r.snapshot.calls.find(x => x.tool === tool);
    assert.ok(c, `no ${tool} call in ${r.snapshot.calls.map(x => x.tool).join(', ')}`);
    return c;
  };

  test("wordList: a custom word list changes lookup's answer (relative to cwd)", async () => {
    const own = await launch({ task: LOOKUP, mode: 'replay', wordList: 'words.txt' });
    assert.equal(call(own, 'lookup').output, 'nwist');
    assert.equal(call(own, 'lookup').details?.wordList, join(FIXTURES, 'words.txt'));
    const missing = await launch({ task: LOOKUP, mode: 'replay', wordList: 'no-such-words.txt' });
    assert.match(call(missing, 'lookup').error ?? '', /the word list .*no-such-words\.txt is missing/);
  });

  test('pythonTimeoutMs: a tiny limit makes code execute time out', async () => {
    const r = await launch({ task: PYTHON, mode: 'replay', pythonTimeoutMs: 5 });
    const c = call(r, 'code execute');
    assert.equal(c.error, '[code execute] stopped after the time limit of 0.005 s');
    const ok = await launch({ task: PYTHON, mode: 'replay' });
    assert.equal(call(ok, 'code execute').output, '42');
  });

  test('a bad value is a LaunchError naming the option', async () => {
    await assert.rejects(launch({ task: PYTHON, mode: 'replay', pythonMemoryMb: 'lots' as unknown as number }), {
      name: 'Error',
      message: 'launch attribute "pythonMemoryMb": expected an integer of at least 16, not "lots"',
    });
  });

  test('rerank in replay mode: said to be unavailable, search keeps the BM25 order', async () => {
    logs.length = 0;
    const r = await launch({ task: SEARCH, mode: 'replay', corpus: 'corpus', rerank: true });
    assert.ok(
      logs.some(l => /search reranking is unavailable in replay mode/.test(l)),
      logs.join('\n'),
    );
    assert.deepEqual(call(r, 'search').details?.rerank, { used: false });
  });

  describe('rerank in generate mode', () => {
    const server = new ScriptedServer();
    before(async () => {
      await server.start();
      server.setScripts(
        ContinuationScript.parse(
          ' [search] Who is Milhouse named after?\n#⟂1:⟦ Richard Nixon⟧\nQ2: [EOQ]\nAns: Richard Nixon\n----\nDescription: (More)',
          'Q1:',
        ),
      );
    });
    after(() => ScriptedServer.closeAll());

    test('search scores its passages with logprobs requests to the endpoint; without rerank it sends none', async () => {
      const model = { baseURL: server.baseURL, model: 'scripted', task: SEARCH, corpus: 'corpus' };
      server.reset();
      const plain = await launch(model);
      assert.equal(plain.reason, 'finished', plain.error);
      const scores = () => server.requests.filter(q => q.body.logprobs);
      assert.equal(scores().length, 0);
      assert.deepEqual(call(plain, 'search').details?.rerank, { used: false });

      server.reset();
      const r = await launch({ ...model, rerank: true });
      assert.equal(r.reason, 'finished', r.error);
      const scoring = scores();
      assert.ok(scoring.length >= 2, `${scoring.length} scoring requests`);
      assert.ok(
        scoring.some(q => q.prompt.includes('Milhouse was named after Richard Nixon') && q.prompt.endsWith('Question: Who is Milhouse named after?')),
        scoring.map(q => q.prompt.slice(-60)).join('\n'),
      );
      // The scripted server scores only what it generates, not the prompt: the reranker says so and keeps BM25's order.
      assert.match(String((call(r, 'search').details?.rerank as { reason?: string }).reason), /returned no log-probabilities/);
    });
  });
});

test('the API key is read when the endpoint may be called: generating, or replaying with a base URL and a model', () => {
  const at = (raw: object) => mayCallEndpoint(parseRunOptions({ program: 'x.art', ...raw }));
  assert.equal(at({ mode: 'generate' }), true);
  assert.equal(at({ mode: 'replay' }), false);
  assert.equal(at({ mode: 'replay', baseURL: 'http://127.0.0.1:8000/v1' }), false);
  assert.equal(at({ mode: 'replay', baseURL: 'http://127.0.0.1:8000/v1', model: 'm' }), true);
});
