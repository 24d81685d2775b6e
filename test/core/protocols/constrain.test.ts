// Decoding constraints end to end against the scripted server: a constrained ReACT run stays on spec with no
// monitor correction, the same run unconstrained is corrected; `auto` finds the server by its probe route; a 400
// on a constrained request is retried without the constraint and the run says so; ART and MultiTool-CoT syntax.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileAgent, parseAgentFile } from '../../../core/agent';
import { OpenAIModel } from '../../../core/model/openai';
import { ContinuationScript, roughTokens } from '../../../core/replay/script';
import {
  Constrainer,
  MAX_REGEX_LENGTH,
  artStepConstraint,
  probeServer,
  triggerConstraint,
  type ConstrainMode,
} from '../../../core/protocols/constraints';
import type { RunProtocol } from '../../../core/protocols/runProtocol';
import { createAgentRunner } from '../../../core/launch/create';
import { MemoryTrace } from '../../../core/trace/trace';
import { runWithoutPauses, scriptedSuite } from '../../support/runs';
import { Gbnf } from '../../support/gbnf';
import { portableRegExp } from '../../support/portableRegex';

const react = compileAgent(parseAgentFile(readFileSync(join(__dirname, '../../fixtures/agents/react.agent'), 'utf8')).agents[0]);
const QUESTION = 'Milhouse was named after who?';
const HEADER = `[Question] ${QUESTION}\n`;
const THOUGHT = '[Thought] I need to search Milhouse.\n';
const REST =
  '[Observation]⟂⟦ Milhouse is a character.⟧\n' +
  '[Final Thought] Milhouse was named after Richard Nixon.\n' +
  '[Answer] Richard Nixon\n' +
  '[Question] and the model would go on';
/** Skips `[Action]`: off spec. Listed first, so an unconstrained server sends it. */
export const OFF_SPEC = ContinuationScript.parse(THOUGHT + '[Action Input] Milhouse\n' + REST, HEADER);
export const ON_SPEC = ContinuationScript.parse(THOUGHT + '[Action] Search\n[Action Input] Milhouse\n' + REST, HEADER);

describe('decoding constraints against the scripted server', { timeout: 120_000 }, () => {
  const { server, tools } = scriptedSuite({ resetEachTest: true });
  const run = async (mode: ConstrainMode | null) => {
    server.setScripts(OFF_SPEC, ON_SPEC);
    const trace = new MemoryTrace();
    const log: string[] = [];
    const constrainer = mode ? new Constrainer({ mode, baseURL: server.baseURL, log: l => log.push(l) }) : undefined;
    const r = createAgentRunner(
      { agent: react, question: QUESTION },
      {
        model: new OpenAIModel({ baseURL: server.baseURL, model: 'scripted' }),
        tools,
        pauseAfterTool: false,
        trace,
        constrainer,
        log: l => log.push(l),
      },
    );
    const result = await runWithoutPauses(r);
    // Tokens the model wrote that the monitor threw away (the figures of docs/constraints.md).
    const wasted = trace.records.reduce((n, rec) => n + (rec.t === 'correction' ? roughTokens(rec.removed).length : 0), 0);
    const streamed = server.requests.reduce((n, q) => n + q.tokensSent, 0);
    console.log(
      `ReACT ${mode ?? 'unconstrained'}: ${result.snapshot.corrections} correction(s), ${wasted} of ${streamed} streamed tokens wasted on corrected text`,
    );
    return { result, trace: trace.records, log };
  };

  test('constrained (auto, a vLLM server): on spec, no correction, the constraint in each request and the trace', async () => {
    server.identity = 'vllm';
    const { result, trace } = await run('auto');
    assert.equal(result.reason, 'finished', result.error);
    assert.equal(result.answer, 'Richard Nixon');
    assert.equal(result.snapshot.corrections, 0);
    assert.ok(result.snapshot.constrainedRequests >= 2);
    const posts = server.requests.filter(q => q.path.endsWith('/completions'));
    assert.ok(
      posts.every(q => typeof q.body.structured_outputs?.regex === 'string' && q.constraint?.met),
      'every request carries a regex the script meets',
    );
    const requests = trace.filter(r => r.t === 'request');
    assert.ok(requests.every(r => r.t === 'request' && r.constraint?.server === 'vllm' && r.constraint.form === 'regex'));
    assert.equal(trace.filter(r => r.t === 'correction').length, 0);
    assert.equal(result.snapshot.calls[0].constrained, 'vllm regex');
  });

  test('unconstrained: the server sends the off-spec text and the monitor corrects it', async () => {
    server.identity = 'vllm';
    const { result, trace } = await run(null);
    assert.ok(result.snapshot.corrections >= 1);
    assert.equal(result.snapshot.constrainedRequests, 0);
    assert.ok(trace.some(r => r.t === 'correction'));
    assert.ok(server.requests.every(q => q.body.structured_outputs === undefined));
  });

  test('auto sends nothing to a server it does not recognise, and says so once', async () => {
    server.identity = null;
    const { result, log } = await run('auto');
    assert.equal(result.snapshot.constrainedRequests, 0);
    assert.ok(result.snapshot.corrections >= 1);
    const said = log.filter(l => /^constrain auto: /.test(l));
    assert.equal(said.length, 1, log.join('\n'));
    assert.match(said[0], /does not answer as vLLM, SGLang or a llama\.cpp server; the run goes unconstrained/);
  });

  test('auto with a probe that fails: the run goes unconstrained and says so once, with why', async () => {
    server.identity = 'vllm';
    server.probeStatus = 500;
    try {
      const { result, log } = await run('auto');
      assert.equal(result.snapshot.constrainedRequests, 0);
      assert.ok(server.requests.filter(q => q.path.endsWith('/completions')).length >= 2, 'more than one request, one line');
      const said = log.filter(l => /^constrain auto: /.test(l));
      assert.equal(said.length, 1, log.join('\n'));
      assert.match(said[0], /the probe failed \(GET \/get_server_info: HTTP 500;[^\n]*GET \/version: HTTP 500\); the run goes unconstrained/);
    } finally {
      server.probeStatus = undefined;
    }
  });

  test('a 400 on a constrained request: sent again without, said in the log and the trace', async () => {
    server.rejectConstraints = true;
    try {
      const { result, trace, log } = await run('vllm');
      assert.ok(result.snapshot.corrections >= 1, 'unconstrained after the rejection: the monitor corrects');
      assert.ok(trace.some(r => r.t === 'unconstrained' && r.n === 1 && /400/.test(r.reason)));
      assert.ok(log.some(l => /rejected the decoding constraint/.test(l)));
      assert.equal(server.requests[0].status, 400);
      assert.equal(server.requests[1].body.structured_outputs, undefined);
    } finally {
      server.rejectConstraints = false;
    }
  });

  test('the probe tells the servers apart and the body fields follow', async () => {
    for (const id of ['vllm', 'vllm-legacy', 'sglang', 'llama.cpp'] as const) {
      server.identity = id;
      assert.equal(await probeServer(server.baseURL), id);
    }
    server.identity = null;
    assert.equal(await probeServer(server.baseURL), null);
  });
});

describe('ART and MultiTool-CoT syntax constraints', () => {
  test('an ART step up to its call, k fixed, names optionally restricted; GBNF agrees', () => {
    const free = artStepConstraint(3, false);
    const named = artStepConstraint(1, true, ['search', 'code execute']);
    const cases: [typeof free, string, boolean][] = [
      [free, 'Q3: [search] the capital of France\n#', true],
      [free, 'Q3: [EOQ]\nAns: Paris\n', true],
      [free, 'Q4: [search] x\n#', false],
      [free, 'Q3: search x\n#', false],
      [free, 'Q3: [search] x\nmore', false],
      [named, ' [code execute] run #1\n#', true],
      [named, ' [string edit] x\n#', false],
      [named, ' [EOQ]\nAns: 3', true],
    ];
    for (const [c, text, want] of cases) {
      assert.equal(portableRegExp(c.regex).test(text), want, `regex on ${JSON.stringify(text)}`);
      assert.equal(new Gbnf(c.gbnf).accepts(text), want, `GBNF on ${JSON.stringify(text)}`);
    }
  });

  test('MultiTool-CoT: text without << then at most one trigger', () => {
    const c = triggerConstraint(['Calculator']);
    const cases: [string, boolean][] = [
      ['So 3 * 4 = <<Calculator>>', true],
      ['The answer is 12.', true],
      ['a < b so <<Calculator>>', true],
      ['<<Search>>', false],
      ['<<Calculator>> and more', false],
    ];
    for (const [text, want] of cases) {
      assert.equal(portableRegExp(c.regex).test(text), want, `regex on ${JSON.stringify(text)}`);
      assert.equal(new Gbnf(c.gbnf).accepts(text), want, `GBNF on ${JSON.stringify(text)}`);
    }
  });

  test('non-ASCII names and text, names that need escapes: portable regex and grammar, the same answers', () => {
    const named = artStepConstraint(2, false, ['recherche', 'résumé é', '计算', 'emoji 😀', 'form\ffeed', 'x\u001fbad']);
    const free = artStepConstraint(2, false);
    const cases: [typeof free, string, boolean][] = [
      [named, 'Q2: [résumé é] le texte — vite\n#', true],
      [named, 'Q2: [计算] 1+1 你好\n#', true],
      [named, 'Q2: [emoji 😀] x 😁\n#', true],
      [named, 'Q2: [form\ffeed] x\n#', true],
      [named, 'Q2: [x\u001fbad] x\n#', true],
      // What xgrammar read the grammar's earlier "x\x1fbad" as.
      [named, 'Q2: [x\u{1fbad}] x\n#', false],
      [named, 'Q2: [resume] x\n#', false],
      [named, 'Q2: [计] x\n#', false],
      [named, 'Q2: [emoji 😁] x\n#', false],
      [named, 'Q2: [EOQ]\nAns: 巴黎 — Paris\n', true],
      [free, 'Q2: [ünïcödé 工具] é 😀\n#', true],
      [free, 'Q2: [a\nb] x\n#', false],
      [free, 'Q2: [工具] x\n#\n', false],
    ];
    for (const [c, text, want] of cases) {
      assert.equal(portableRegExp(c.regex).test(text), want, `regex on ${JSON.stringify(text)}`);
      assert.equal(new Gbnf(c.gbnf).accepts(text), want, `GBNF on ${JSON.stringify(text)}`);
    }
    const escapes: string[] = named.gbnf.match(/\\./gsu) ?? [];
    assert.ok(!escapes.includes('\\f') && !escapes.includes('\\x'), escapes.join(' '));

    const trigger = triggerConstraint(['計算機', 'Calc😀']);
    for (const [text, want] of [
      ['Donc 3 × 4 = <<計算機>>', true],
      ['« a < b » — <<Calc😀>>', true],
      ['<<Calc😁>>', false],
      ['é<<', false],
      ['<<計算機>> 以后', false],
    ] as const) {
      assert.equal(portableRegExp(trigger.regex).test(text), want, `regex on ${JSON.stringify(text)}`);
      assert.equal(new Gbnf(trigger.gbnf).accepts(text), want, `GBNF on ${JSON.stringify(text)}`);
    }
  });

  test('a regex over MAX_REGEX_LENGTH goes as the grammar, to a server that takes both', async () => {
    const protocolWith = (regex: string) => ({ constraint: () => ({ regex, gbnf: 'root ::= "a"\n' }) }) as unknown as RunProtocol;
    const constrainer = new Constrainer({ mode: 'vllm' });
    assert.deepEqual(await constrainer.forRequest(protocolWith('a'), ''), { server: 'vllm', form: 'regex', text: 'a' });
    assert.deepEqual(await constrainer.forRequest(protocolWith('a'.repeat(MAX_REGEX_LENGTH + 1)), ''), {
      server: 'vllm',
      form: 'grammar',
      text: 'root ::= "a"\n',
    });
  });
});
