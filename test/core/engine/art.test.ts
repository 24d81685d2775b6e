// ART programs through the Runner, over real HTTP (scripted server + the real `openai` client) and the real tools:
// `[generate python code]` asks the model in its own prompt, `[code execute]` really runs Python.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { OpenAIModel } from '../../../core/model/openai';
import { ART_STOPS } from '../../../core/protocols/artProtocol';
import { createArtRunner } from '../../../core/launch/create';
import { MemoryTrace } from '../../../core/trace/trace';
import type { RunnerOptions } from '../../../core/engine/runnerOptions';
import {
  CODEGEN_SCRIPT,
  DUCKS,
  DUCKS_SCRIPT,
  arithmeticLibrary,
  hangingTool,
  record,
  runWithoutPauses,
  scriptedSuite,
  withTools,
} from '../../support/runs';

// Bounded: a run that hangs fails the suite (and its `after` still closes the server) instead of the whole unit run.
describe('ART runner against the scripted server', { timeout: 180_000 }, () => {
  const { server, tools } = scriptedSuite({ scripts: [DUCKS_SCRIPT, CODEGEN_SCRIPT], resetEachTest: true });
  const library = arithmeticLibrary();

  const model = (extra: Partial<ConstructorParameters<typeof OpenAIModel>[0]> = {}) =>
    new OpenAIModel({ baseURL: server.baseURL, model: 'scripted', retry: { initialDelayMs: 5, maxDelayMs: 50 }, ...extra });
  const runner = (opts: Partial<RunnerOptions> = {}) =>
    createArtRunner({ library, program: DUCKS }, { model: model(), tools, pauseAfterTool: false, ...opts });
  /** The ducks program run to its end with no pause, traced, its events recorded: it finishes answering 18. */
  const ducksToTheEnd = async (signal: AbortSignal) => {
    const trace = new MemoryTrace();
    const r = runner({ trace });
    const events = record(r);
    const result = await runWithoutPauses(r, signal);
    assert.equal(result.reason, 'finished', result.error);
    assert.equal(result.answer, '18');
    return { trace, events, result };
  };
  /** Requests that continue the program (not the code generator's own prompt). */
  const programRequests = () => server.requests.filter(r => !r.prompt.endsWith('Python code:\n'));

  test('generate python code, then code execute (Python really runs), with stop sequences: no token past a call', async t => {
    const { trace, events, result } = await ducksToTheEnd(t.signal);
    const [gen, exec] = result.snapshot.calls;
    assert.equal(gen.tool, 'generate python code');
    assert.match(gen.output!, /ans = sold_eggs \* dollars_per_egg/);
    assert.equal(exec.tool, 'code execute');
    assert.equal(exec.output, '18', 'the code ran and ans was read');
    assert.ok(exec.durationMs! > 0);
    // The program text: header, steps, the tool outputs written by the runner, the model's Ans.
    assert.match(
      result.snapshot.text,
      /^Description: \(Elementary Math\)[\s\S]*\nQ1: \[generate python code\][^\n]*\n#1:\ntotal_eggs = 16[\s\S]*\nQ2: \[code execute\][^\n]*\n#2: 18\nQ3: \[EOQ\]\nAns: 18$/,
    );
    // Stop sequences were sent and honoured: not one token past a call.
    for (const q of programRequests()) assert.deepEqual(q.stop, ART_STOPS);
    assert.equal(server.tokensAfterCall, 0);
    assert.equal(programRequests().length, 3, 'one request up to each call, one to the end');
    // The code generator got its own prompt, holding only the step.
    const own = server.requests.find(q => q.prompt.endsWith('Python code:\n'))!;
    assert.match(own.prompt, /# Write down the arithmetic or algebra equations/);
    assert.doesNotMatch(own.prompt, /Aqua-rat|Q1:/);
    // Steps and events.
    assert.deepEqual(
      result.snapshot.steps.map(s => [s.label, s.name, s.tool]),
      [
        ['Q1', 'generate python code', true],
        ['Q2', 'code execute', true],
        ['Q3', 'EOQ', false],
      ],
    );
    assert.equal(result.snapshot.steps[1].answer, '18');
    assert.deepEqual(
      events.filter(e => e.name === 'toolStart').map(e => e.payload.call.tool),
      ['generate python code', 'code execute'],
    );
    assert.ok(result.snapshot.usage.completionTokens > 0, 'usage from the endpoint');
    // The trace has every prompt, chunk, call and the end.
    const kinds = new Set(trace.records.map(x => x.t));
    for (const k of ['run', 'request', 'chunk', 'completion', 'tool', 'end']) assert.ok(kinds.has(k as never), k);
    assert.equal(trace.records.filter(x => x.t === 'request').length, 3);
  });

  test('without stop sequences the stream is aborted at the call: at most one chunk past it, and it is dropped', async t => {
    server.honourStop = false;
    server.callPauseMs = 1000;
    const r = createArtRunner({ library, program: DUCKS }, { model: model({ honoursStop: false }), tools, pauseAfterTool: false });
    const events = record(r);
    const result = await runWithoutPauses(r, t.signal);
    await server.settled();
    assert.equal(result.reason, 'finished', result.error);
    assert.equal(result.answer, '18');
    for (const q of programRequests()) {
      assert.equal(q.body.stop, undefined);
      assert.ok(q.tokensAfterCall <= 1, `request streamed ${q.tokensAfterCall} tokens past the call`);
    }
    assert.ok(
      programRequests()
        .slice(0, 2)
        .every(q => q.aborted),
      'the streams were aborted at the calls',
    );
    // What arrived past the call was dropped: the text is the same as with stop sequences.
    assert.match(result.snapshot.text, /\n#2: 18\nQ3: \[EOQ\]\nAns: 18$/);
    assert.ok(events.some(e => e.name === 'cut'));
  });

  test('an overridden output is what the next request contains', async () => {
    const r = runner({ pauseAfterTool: true });
    const reasons: string[] = [];
    r.on('paused', ({ reason, call }) => {
      reasons.push(`${reason}:${call?.tool}`);
      if (call?.tool === 'code execute') r.setToolOutput('42');
      r.continue();
    });
    const result = await r.run();
    assert.equal(result.reason, 'finished', result.error);
    assert.deepEqual(reasons, ['after-tool:generate python code', 'after-tool:code execute']);
    const last = programRequests().at(-1)!;
    assert.ok(last.prompt.endsWith('get the value of "ans"\n#2: 42\n'), last.prompt.slice(-80));
    const exec = result.snapshot.calls[1];
    assert.equal(exec.output, '18');
    assert.equal(exec.override, '42');
    assert.match(result.snapshot.text, /#2: 42\n/);
  });

  test('a tool that times out pauses with the error; on continue the model writes the output (fallback, traced)', async () => {
    const trace = new MemoryTrace();
    const r = createArtRunner(
      { library, program: DUCKS },
      {
        model: model(),
        tools: withTools(tools, { 'code execute': hangingTool('code execute') }),
        toolTimeouts: { 'Code Execute': 50 },
        pauseAfterTool: false,
        trace,
      },
    );
    const paused: { reason: string; error?: string }[] = [];
    r.on('paused', ({ reason, call }) => {
      paused.push({ reason, error: call?.error });
      r.continue();
    });
    const result = await r.run();
    assert.equal(result.reason, 'finished', result.error);
    assert.deepEqual(
      paused.map(p => p.reason),
      ['tool-error'],
    );
    assert.match(paused[0].error!, /code execute timed out after 50 ms/);
    const exec = result.snapshot.calls[1];
    assert.equal(exec.timedOut, true);
    assert.equal(exec.fallback, true);
    // The model wrote `#2:`'s value itself.
    assert.ok(programRequests().at(-1)!.prompt.endsWith('get the value of "ans"\n#2:'));
    assert.match(result.snapshot.text, /\n#2: 18\nQ3: \[EOQ\]/);
    const rec = trace.records.find(x => x.t === 'tool' && x.call.tool === 'code execute');
    assert.ok(rec && rec.t === 'tool' && rec.call.fallback === true && rec.call.timedOut === true);
  });

  test('a 429 then success: the run retries after the Retry-After and reports the retry', async t => {
    server.injectFaults({ status: 429, retryAfterMs: 20 });
    const { trace, events } = await ducksToTheEnd(t.signal);
    assert.equal(server.requests[0].status, 429);
    const retry = events.find(e => e.name === 'retry');
    assert.ok(retry && retry.payload.delayMs === 20 && /429/.test(retry.payload.reason));
    assert.ok(trace.records.some(x => x.t === 'retry'));
  });

  test('a stream dropped mid-way is resumed and the program is the same', async t => {
    server.injectFaults({ dropAfterTokens: 6 });
    const result = await runWithoutPauses(runner(), t.signal);
    assert.equal(result.reason, 'finished', result.error);
    assert.equal(result.answer, '18');
    assert.equal(server.requests[0].finishReason, undefined, 'the first stream broke off');
    assert.match(
      result.snapshot.text,
      /\nQ1: \[generate python code\] Write down the arithmetic or algebra equations as python code, storing the answer as 'ans'\n#1:\n/,
    );
  });

  test('stop() cancels mid-stream: the request is aborted and the run ends as stopped', async t => {
    // The next token would come 5 s later: a run that waited for it is seen whatever the machine's load.
    server.injectFaults({ slowAfterTokens: 3, ms: 5000 });
    const r = runner();
    r.once('text', () => setTimeout(() => r.stop(), 5));
    const t0 = Date.now();
    const result = await runWithoutPauses(r, t.signal);
    assert.equal(result.reason, 'stopped');
    assert.ok(Date.now() - t0 < 4000);
    await server.settled();
    assert.equal(server.requests[0].aborted, true);
    assert.equal(server.requests.length, 1);
  });

  test('pause before the tool: the edited input is what the tool runs and what the model sees', async () => {
    const r = runner({ pauseBeforeTool: true });
    r.on('paused', ({ reason, call }) => {
      if (reason === 'before-tool' && call?.tool === 'code execute') r.setToolInput('Execute the python code in #1 and get the value of "sold_eggs"');
      r.continue();
    });
    const result = await r.run();
    assert.equal(result.reason, 'finished', result.error);
    const exec = result.snapshot.calls[1];
    assert.equal(exec.inputEdited, true);
    assert.equal(exec.output, '9');
    assert.match(result.snapshot.text, /Q2: \[code execute\] Execute the python code in #1 and get the value of "sold_eggs"\n#2: 9\n/);
    assert.ok(programRequests().at(-1)!.prompt.endsWith('"sold_eggs"\n#2: 9\n'));
  });

  test('skipping a tool lets the model write its output', async () => {
    const r = runner({ pauseBeforeTool: true });
    r.on('paused', ({ reason, call }) => {
      if (reason === 'before-tool' && call?.tool === 'code execute') r.skipTool();
      r.continue();
    });
    const result = await r.run();
    assert.equal(result.reason, 'finished');
    const exec = result.snapshot.calls[1];
    assert.equal(exec.skipped, true);
    assert.equal(exec.output, undefined, 'the tool did not run');
    assert.match(result.snapshot.text, /\n#2: 18\n/);
  });

  test('breakpoints on a tool name and on a step number; step goes to the next step', async () => {
    const r = runner({ breakpoints: { tools: ['Code Execute'] }, stopOnEntry: true });
    const seen: string[] = [];
    r.on('paused', ({ reason, call, snapshot }) => {
      seen.push(`${reason}:${call?.tool ?? '-'}:${snapshot.steps.length}`);
      if (reason === 'entry') r.step();
      else r.continue();
    });
    const result = await r.run();
    assert.equal(result.reason, 'finished');
    assert.deepEqual(seen, ['entry:-:0', 'step:generate python code:1', 'breakpoint:code execute:2']);
    const r2 = runner({ breakpoints: { steps: [2] } });
    const seen2: string[] = [];
    r2.on('paused', ({ reason, call, breakpoint, phase }) => {
      seen2.push(`${reason}:${call?.tool}:${breakpoint}:${phase}`);
      r2.continue();
    });
    await r2.run();
    assert.deepEqual(seen2, ['breakpoint:code execute:step:before']);
  });

  test('a pause says its phase, the breakpoint kind and its step; edits show in runner.paused', async () => {
    const r = runner({ breakpoints: { tools: ['code execute'] }, pauseAfterTool: true });
    const seen: string[] = [];
    r.on('paused', p => {
      seen.push(`${p.reason}:${p.call?.tool}:${p.phase}:${p.breakpoint ?? '-'}:${p.step?.label}:${p.step?.number}`);
      assert.deepEqual(r.paused?.call, p.call);
      if (p.phase === 'after' && p.call?.tool === 'code execute') {
        r.setToolOutput('99');
        assert.equal(r.paused?.call?.override, '99', "the override is the runner's, read back through paused");
      }
      r.continue();
    });
    const result = await r.run();
    assert.equal(r.paused, null, 'not paused once the run is over');
    assert.equal(result.reason, 'finished', result.error);
    assert.deepEqual(seen, [
      'after-tool:generate python code:after:-:Q1:1',
      'breakpoint:code execute:before:tool:Q2:2',
      'after-tool:code execute:after:-:Q2:2',
    ]);
    assert.match(result.snapshot.text, /\n#2: 99\n/);
  });

  test('control calls outside a tool pause fail with a clear message', async () => {
    const r = runner({ stopOnEntry: true });
    const done = new Promise<void>(resolve =>
      r.once('paused', () => {
        assert.throws(() => r.setToolOutput('x'), /setToolOutput: the run is not paused at a tool call/);
        r.stop();
        resolve();
      }),
    );
    const result = await r.run();
    await done;
    assert.equal(result.reason, 'stopped');
    assert.equal(server.requests.length, 0);
  });

  test('pause() mid-stream cuts at the text received, and continue() picks up from there', async () => {
    server.injectFaults({ slowAfterTokens: 4, ms: 30 });
    const r = runner();
    r.once('text', () => r.pause());
    const paused: string[] = [];
    r.on('paused', ({ reason, snapshot }) => {
      paused.push(`${reason}:${snapshot.text.length > 0}`);
      r.continue();
    });
    const result = await r.run();
    assert.equal(result.reason, 'finished', result.error);
    assert.deepEqual(paused, ['pause:true']);
    assert.equal(result.answer, '18');
    assert.ok(programRequests().length >= 4, 'a new request after the pause');
    assert.match(
      result.snapshot.text,
      /\nQ1: \[generate python code\] Write down the arithmetic or algebra equations as python code, storing the answer as 'ans'\n#1:\n/,
    );
  });

  test('an endpoint error ends the run with reason error and the message of the endpoint', async t => {
    server.injectFaults({ status: 401, message: 'invalid key' });
    const result = await runWithoutPauses(runner(), t.signal);
    assert.equal(result.reason, 'error');
    assert.match(result.error!, /answered 401 \(check the API key\): invalid key/);
  });

  test('the chat API runs the same program', async t => {
    const r = createArtRunner({ library, program: DUCKS }, { model: model({ api: 'chat' }), tools, pauseAfterTool: false });
    const result = await runWithoutPauses(r, t.signal);
    assert.equal(result.reason, 'finished', result.error);
    assert.equal(result.answer, '18');
    assert.ok(server.requests.every(q => q.path.endsWith('/chat/completions')));
    assert.equal(server.tokensAfterCall, 0);
  });
});
