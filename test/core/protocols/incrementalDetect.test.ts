// Issue 20 item 14: the runner gives a protocol only what each chunk adds (`detect(written, added)`), and the
// protocol reads only that and what it kept. Whatever the chunking (one character, random sizes, a lone `\r` line
// break, a trigger split between chunks), at every chunk an incremental reading gives exactly what a reading of the
// whole text gives (detections, with their calls; ART's continuation check), for ART programs (with and without
// inline triggers), MultiTool-CoT chains and agents, also when the steps and the answer are asked for in between.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { compileAgent } from '../../../core/agent/compile';
import { parseAgentFile } from '../../../core/agent/parse';
import { AgentProtocol } from '../../../core/protocols/agentProtocol';
import { ArtProtocol } from '../../../core/protocols/artProtocol';
import { MultiToolProtocol } from '../../../core/protocols/multitoolProtocol';
import type { Detection, RunProtocol } from '../../../core/protocols/runProtocol';
import type { ToolLookup } from '../../../core/protocols/types';
import { prng } from '../../support/random';
import { fixturePath } from '../../support/runs';

const TOOLS: ToolLookup = {
  get: name => (['code execute', 'calculator', 'search', 'lookup'].includes(name.trim().toLowerCase()) ? ({} as never) : undefined),
};

/** Chunk sizes: one character, then random runs of 1 to 12. */
function chunkings(text: string, rounds: number, seed: number): number[][] {
  const rand = prng(seed);
  const out: number[][] = [Array.from({ length: text.length }, () => 1)];
  for (let r = 0; r < rounds; r++) {
    const sizes: number[] = [];
    for (let at = 0; at < text.length;) {
      const n = 1 + Math.floor(rand() * 12);
      sizes.push(n);
      at += n;
    }
    out.push(sizes);
  }
  return out;
}

/**
 * Streams `text` after `before` (what the requests before wrote) into `make()`'s protocol chunk by chunk, as the
 * runner does, and compares each chunk's reading with a fresh protocol's reading of the whole text.
 */
function lockstep(make: () => RunProtocol, before: string, text: string, rounds = 6, seed = 1): void {
  for (const sizes of chunkings(text, rounds, seed)) {
    const p = make();
    let written = before;
    let at = 0;
    let first = true;
    for (const n of sizes) {
      const added = text.slice(at, at + n);
      at += n;
      // A string grown chunk by chunk, as the runner's is.
      written += added;
      const got: Detection[] = first ? p.detect(written) : p.detect(written, added);
      first = false;
      // What a listener of the run's events asks between chunks, of the same text.
      if (written.length % 3 === 0) p.steps(written);
      if (written.length % 5 === 0) p.answer(written);
      const fresh = make();
      const where = `at ${written.length} of ${JSON.stringify(written.slice(-40))} (chunks of ${sizes.slice(0, 8).join(',')}…)`;
      assert.deepEqual(got, fresh.detect(written), `detect ${where}`);
      if (p.checkContinuation)
        assert.deepEqual(
          p.checkContinuation(written, before.length, false),
          fresh.checkContinuation!(written, before.length, false),
          `check ${where}`,
        );
    }
    if (p.checkContinuation)
      assert.deepEqual(p.checkContinuation(written, before.length, true), make().checkContinuation!(written, before.length, true));
  }
}

const ART_HEADER = 'Description: (Sums) Add numbers.\nInput: 2 + 2\nQ1:';
const art =
  (opts: { inlineTriggers?: boolean; free?: boolean } = {}) =>
  () =>
    new ArtProtocol(`${opts.free ? 'Q1: What is it?\n#1: x\n' : ''}${ART_HEADER}`, ART_HEADER, TOOLS, { inlineTriggers: opts.inlineTriggers });

describe('an incremental reading reads what the whole text reads, at every chunk', () => {
  test('ART: steps, tool calls, multi-line answers, the end of the program', () => {
    const texts = [
      ' [generate python code] write\nmore words\n#1:\n# a comment\nx = 1\r\nQ2: [code execute] #1\n#2: 1\nQ3: [EOQ]\nAns: 1\n----\nInput: y',
      ' [search] who\n#1: a long answer\nover lines\n\n   \nQ2: [EOQ]\nAns: done\nDescription: next',
      ' [think] a\n#1: b\nQ2: [code execute] print(1)\n#2:\n1\nQ3: [EOQ]\nAns: 1\n',
      // A lone \r ends a line for the classifier; a `#`, `Q` or `-` line still being written.
      ' [think] a\r#1: b\rQ2: [EOQ]\rAns: 3\r\n',
      ' [think] a\n#1: b\n---\nQ2',
      ` [think] ${'long '.repeat(60)}\n#1: ${'answer '.repeat(50)}\nQ2: [EOQ]\nAns: x`,
    ];
    texts.forEach((t, i) => lockstep(art(), '', t, 6, i + 1));
  });

  test('ART: the continuation check of a later request (after a tool, a refusal, Ans: too early, a query without [name])', () => {
    const before = ' [code execute] print(2 + 2)\n#1: 4\n';
    for (const t of [
      'Q2: [EOQ]\nAns: 4\n',
      '\n\nQ2: [think] fine\n#2: yes\nQ3: [EOQ]\nAns: 4',
      'I cannot help with that request, but here is some prose instead of a step.\nQ2: [EOQ]',
      '\n  \nAns: 4 without EOQ',
      'Q2: no name in this query\n#2: x',
      `Q2: ${'[x] '.repeat(50)}\n#2: long query line`,
      'Q2:',
      '---\nQ1: [EOQ]',
    ])
      lockstep(art(), before, t, 4, t.length);
    lockstep(art({ free: true }), before, 'Q2: no name but the demonstrations have such queries\n#2: x\nQ3: [EOQ]\nAns: x', 4);
  });

  test('ART with inline triggers: triggers on complete lines and on the unfinished one, split between chunks', () => {
    const texts = [
      ' [think step-by-step] Work out the cost.\n#1: The pens cost 2 * 5 <<Calculator>> 10 dollars. The change is 20 - 10 <<Calculator>> 10 dollars.\nQ2: [EOQ]\nAns: 10',
      ' [think] a\n#1:\n3 * 4 <<Calculator>> 12\nand 1 + 1 <<Calculator>>\n<<Nothing>> x <<Calculator>> <<Calculator>>\nQ2: [code execute] x\n#2: 1\nQ3: [EOQ]\nAns: x',
      ' [think] a\n#1: 1 + 2 <<Calcu\rlator>> and 2 * 2 <<Calculator>>\r3 <<Calculator>>\nQ2: [EOQ]',
    ];
    texts.forEach((t, i) => lockstep(art({ inlineTriggers: true }), '', t, 6, i + 10));
  });

  test('MultiTool-CoT: triggers (a long line, several on one line), end markers split between chunks', () => {
    const make = () => new MultiToolProtocol({ prompt: 'Q: x\nA:', endMarkers: ['\nQ:', '\n\nQuestion'] }, TOOLS);
    const texts = [
      ' The library buys 6 * 45 <<Calculator>> 270 books. After giving 38 away, it keeps 270 - 38 <<Calculator>> 232. So the answer is 232.\nQ: next',
      ` ${'word '.repeat(40)}3 + 4 <<Calculator>> 7 <<Nothing>> then 2 * 2 <<Calculator>>\nmore 1 + 1 <<Calculator>> 2\n\nQuestion: another`,
      ' <<Calculator>> at the start; <<<Calculator>> doubled; <<Calculator>>>> closed twice.\rx <<Calculator>>\n',
    ];
    texts.forEach((t, i) => lockstep(make, '', t, 6, i + 20));
  });

  test('agents: states, env-input calls, a correction, a final state ending at its line break', () => {
    const react = compileAgent(parseAgentFile(readFileSync(fixturePath('agents/react.agent'), 'utf8')).agents[0]);
    const make = () => new AgentProtocol({ agent: react, question: 'Who is Milhouse named after?' }, TOOLS);
    const texts = [
      '[Thought] I need to search Milhouse.\n[Action] Search\n[Action Input] Milhouse\n[Observation] a character.\n[Thought] Found it.\n[Action] Finish\n[Action Input] Nixon\n',
      '[Thought] Short.\n[Final Thought] done\n[Answer] Richard Nixon\n[Question] another',
      '[Thought] skip the action\n[Action Input] Milhouse\n',
      'prose before any state\n[Thought] x',
    ];
    texts.forEach((t, i) => lockstep(make, '', t, 6, i + 30));
  });
});
