// The chat reply normaliser (core/model/chatReply.ts): what a chat model sends when asked to continue a document,
// turned into the continuation alone, whatever the chunking. Every case is run whole, character by character and
// in random cuts: the result must not depend on where the chunks end.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ChatReplyNormalizer, type ReplyRepair } from '../../../core/model/chatReply';

const TEXT = 'Description: (Elementary Math) Solve.\nInput: Tom has 3 pens and buys 7 more.\nQ1:';
const AFTER_TOOL = `${TEXT} [calculator] 3 + 7\n#1: 10\n`;

function normalise(text: string, chunks: string[]): { text: string; reasoning: string; repairs: ReplyRepair[] } {
  const n = new ChatReplyNormalizer(text);
  const out = { text: '', reasoning: '', repairs: [] as ReplyRepair[] };
  for (const c of [...chunks.map(c => n.push(c)), n.end()]) {
    out.text += c.text;
    out.reasoning += c.reasoning;
    out.repairs.push(...c.repairs);
  }
  return out;
}

/** A small seeded generator, so a failing cut can be reproduced. */
function cuts(s: string, seed: number): string[] {
  let x = seed;
  const out: string[] = [];
  for (let i = 0; i < s.length;) {
    x = (x * 1103515245 + 12345) % 2147483648;
    const k = 1 + (x % 7);
    out.push(s.slice(i, i + k));
    i += k;
  }
  return out;
}

/** The normalised reply, checked to be the same however the reply is cut into chunks. */
function same(text: string, reply: string): { text: string; reasoning: string; repairs: ReplyRepair[] } {
  const whole = normalise(text, [reply]);
  const byChar = normalise(text, [...reply]);
  assert.equal(byChar.text, whole.text, 'character by character');
  assert.equal(byChar.reasoning, whole.reasoning, 'reasoning, character by character');
  assert.deepEqual(byChar.repairs.map(r => r.kind).sort(), whole.repairs.map(r => r.kind).sort());
  for (let seed = 1; seed <= 20; seed++) {
    const r = normalise(text, cuts(reply, seed));
    assert.equal(r.text, whole.text, `cut with seed ${seed}`);
    assert.equal(r.reasoning, whole.reasoning, `reasoning, cut with seed ${seed}`);
  }
  return whole;
}

describe('chat reply normaliser', () => {
  test('a plain continuation passes unchanged, leading space included', () => {
    for (const [text, reply] of [
      [TEXT, ' [calculator] 3 + 7'],
      [AFTER_TOOL, 'Q2: [EOQ]\nAns: 10'],
      [`${TEXT} [generate python code] code\n#1:`, '\nx = 1\nprint(x)\n'],
      [TEXT, ''],
    ]) {
      const r = same(text, reply);
      assert.equal(r.text, reply);
      assert.deepEqual(r.repairs, []);
    }
  });

  test('a restatement of the unfinished last line is dropped (Q1: [EOQ] after Q1:)', () => {
    const r = same(TEXT, 'Q1: [EOQ]\nAns: 10');
    assert.equal(r.text, ' [EOQ]\nAns: 10');
    assert.deepEqual(
      r.repairs.map(x => [x.kind, x.removed]),
      [['echo', 'Q1:']],
    );
    assert.match(r.repairs[0].summary, /last line \("Q1:"\)/);
  });

  test('a restatement of the last complete line, or of the whole text, is dropped', () => {
    assert.equal(same(AFTER_TOOL, '#1: 10\nQ2: [EOQ]').text, 'Q2: [EOQ]');
    const whole = same(AFTER_TOOL, `${AFTER_TOOL}Q2: [EOQ]\nAns: 10`);
    assert.equal(whole.text, 'Q2: [EOQ]\nAns: 10');
    assert.match(whole.repairs[0].summary, /whole text so far/);
    // Nothing but the restatement (the server stopped it, or the model had nothing to add): nothing is left.
    assert.equal(same(AFTER_TOOL, '#1: 10').text, '');
    // A restatement of the whole text cut short by a stop sequence: nothing of it is a continuation.
    const short = same(AFTER_TOOL, AFTER_TOOL.slice(0, AFTER_TOOL.indexOf('\nQ1:')));
    assert.equal(short.text, '');
    assert.match(short.repairs[0].summary, /cut short/);
    assert.equal(same(AFTER_TOOL, AFTER_TOOL.slice(0, 30)).text, AFTER_TOOL.slice(0, 30), 'less than a line of the text stays');
  });

  test('text that only begins like an earlier line is not a restatement', () => {
    const text = `Q1: [calculator] 1 + 1\n#1: 2\nQ2: [EOQ]\nAns: 2\n----\n${TEXT} [calculator] 3 + 7\n#1: 10\n`;
    assert.equal(same(text, 'Q2: [EOQ]\nAns: 10').text, 'Q2: [EOQ]\nAns: 10');
    assert.equal(same(text, 'Q2: [EOQ]\nAns: 2').text, 'Q2: [EOQ]\nAns: 2', 'the same as a line of a demonstration, not to the end of the text');
  });

  test('a chat wrapper (one-line preamble and a fenced block) is unwrapped; what follows the fence is dropped', () => {
    const r = same(TEXT, 'Sure! Here is the continuation:\n\n```\nQ1: [calculator] 3 + 7\n#1: 10\n```\nLet me know if you need anything else.');
    assert.equal(r.text, ' [calculator] 3 + 7\n#1: 10');
    assert.deepEqual(
      r.repairs.map(x => x.kind),
      ['wrapper', 'echo', 'trailer'],
    );
    assert.match(r.repairs[0].summary, /"Sure! Here is the continuation:"/);
    // A fence alone, with a language; a block cut by a stop sequence before its closing fence.
    assert.equal(same(AFTER_TOOL, '```text\nQ2: [EOQ]\nAns: 10\n```').text, 'Q2: [EOQ]\nAns: 10');
    assert.equal(same(TEXT, 'Here you go:\n```\n [calculator] 3 + 7').text, ' [calculator] 3 + 7');
    // The fence line took the space after `Q2:`: the step's name gets it back (not `Q2:[EOQ]`).
    assert.equal(same(`${AFTER_TOOL}Q2:`, '```\n[EOQ]\nAns: 10\n```').text, ' [EOQ]\nAns: 10');
    assert.equal(same(TEXT, '[calculator] 3 + 7\n#1: 10').text, '[calculator] 3 + 7\n#1: 10', 'a reply not unwrapped is left as it is');
  });

  test('a fence inside the block (a code answer) stays; the outer closing fence ends it', () => {
    const code = `${TEXT} [generate python code] code\n#1:`;
    const r = same(code, 'Sure:\n````\n```python\nx = 1\n```\nQ2: [code execute]\n````\nDone.');
    assert.equal(r.text, '```python\nx = 1\n```\nQ2: [code execute]');
    const same3 = same(code, 'Sure:\n```\n```python\nx = 1\n```\nQ2: [code execute]\n```\n');
    assert.equal(same3.text, '```python\nx = 1\n```\nQ2: [code execute]');
  });

  test('a first line followed by more text and no fence is no wrapper (a refusal stays, for the check to see)', () => {
    const refusal = "I'm sorry, but I can't help with that request.";
    assert.equal(same(TEXT, refusal).text, refusal);
    assert.equal(same(TEXT, ' [calculator] 3 + 7:\n#1:').text, ' [calculator] 3 + 7:\n#1:');
  });

  test('a turn marker written as text ends the reply there (llama-server: a base model behind ChatML)', () => {
    // What llama-server's fallback ChatML template got from Gemma 3 270M (base): the step, then the end of its turn
    // and a user turn of its own invention, all as text.
    const r = same(TEXT, ' [calculator] 3 + 7\n#1:<|im_end|>\n<|im_start|>user\nQ3: [calculator] 3 + 4');
    assert.equal(r.text, ' [calculator] 3 + 7\n#1:');
    assert.deepEqual(
      r.repairs.map(x => x.kind),
      ['turn'],
    );
    assert.equal(r.repairs[0].removed, '<|im_end|>\n<|im_start|>user\nQ3: [calculator] 3 + 4');
    // Gemma's and Llama 3's markers too; a `<` that starts no marker is text.
    assert.equal(same(AFTER_TOOL, 'Q2: [EOQ]\nAns: 10<end_of_turn>\n<start_of_turn>user').text, 'Q2: [EOQ]\nAns: 10');
    assert.equal(same(AFTER_TOOL, 'Q2: [EOQ]\nAns: 3 < 10<|eot_id|>').text, 'Q2: [EOQ]\nAns: 3 < 10');
    assert.equal(same(AFTER_TOOL, 'Q2: [EOQ]\nAns: 3 <|im').text, 'Q2: [EOQ]\nAns: 3 <|im', 'an unfinished marker at the end is text');
  });

  test('<think> blocks are kept out of the text and given as reasoning, tags split anywhere', () => {
    const r = same(TEXT, '<think>The user wants 3 + 7.\nUse the calculator.</think>\n\n [calculator] 3 + 7');
    assert.equal(r.text, ' [calculator] 3 + 7');
    assert.equal(r.reasoning, 'The user wants 3 + 7.\nUse the calculator.');
    assert.deepEqual(
      r.repairs.map(x => x.kind),
      ['think'],
    );
    // Inside a wrapper, twice, and one never closed (a length limit cut it).
    const w = same(AFTER_TOOL, '<think>a</think>Sure:\n```\nQ2: [EOQ]<think>b</think>\nAns: 10\n```');
    assert.equal(w.text, 'Q2: [EOQ]\nAns: 10');
    assert.equal(w.reasoning, 'ab');
    const open = same(TEXT, '<think>still thinking');
    assert.equal(open.text, '');
    assert.equal(open.reasoning, 'still thinking');
    assert.match(open.repairs[0].summary, /never closed/);
    // Text that only looks like the start of a tag stays.
    assert.equal(same(TEXT, ' [calculator] 3 < 7 <thin').text, ' [calculator] 3 < 7 <thin');
  });

  test('multi-byte characters pass whole, however the chunks cut them (surrogate pairs included)', () => {
    const reply = ' [lookup] café 🦆 — naïve\n#1:';
    const r = same(TEXT, reply);
    assert.equal(r.text, reply);
    assert.equal(normalise(TEXT, ['Q1: [lookup] caf', 'é \ud83e', '\udd86 — naïve']).text, ' [lookup] café 🦆 — naïve');
  });
});
