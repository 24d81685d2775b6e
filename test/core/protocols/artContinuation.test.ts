// The continuation check (core/protocols/artContinuation.ts) refuses what is plainly not an ART program and accepts
// what ART itself writes: step numbers out of order or repeated (the real ART library has both), and queries without
// `[name]` where the prompt's demonstrations have such queries. A recording replayed is not judged at all.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ArtProtocol } from '../../../core/protocols/artProtocol';
import { createArtRunner } from '../../../core/launch/create';
import { parseArt } from '../../../core/art/parse';
import { ReplayModel } from '../../../core/replay/programReplay';
import type { ToolLookup } from '../../../core/protocols/types';

const TOOLS: ToolLookup = {
  get: name => (name === 'calculator' ? { info: { name, description: '' }, run: async () => ({ ok: true, output: '10' }) } : undefined),
} as ToolLookup;
const header = 'Input: Tom has 3 pens and buys 7 more.\nQ1:';
const named = `Input: Ann has 2 pens and buys 5.\nQ1: [calculator] 2 + 5\n#1: 7\nQ2: [EOQ]\nAns: 7\n----\n${header}`;
const free = `Input: Is 7 prime?\nQ1: [generate answer] Think it over\n#1: yes\nQ2: Which answer is most likely?\n#2: yes\nQ3: [EOQ]\nAns: yes\n----\n${header}`;
const check = (prompt: string, written: string) => new ArtProtocol(prompt, header, TOOLS).checkContinuation(written, 0, true);

describe('the continuation check', () => {
  test('a refusal after Q1: is refused where every demonstrated query names a tool or sub-step', () => {
    const bad = check(named, "I'm sorry, but I can't help with that request.");
    assert.match(bad?.message ?? '', /does not continue the program: "I'm sorry.*where `Q1: \[tool or sub-step\] instruction` was expected/);
  });

  test('a query without [name] is a step where the demonstrations have such queries', () => {
    assert.equal(check(free, ' [calculator] 3 + 7\n#1: 10\nQ2: Which answer is most likely?\n#2: 10\nQ3: [EOQ]\nAns: 10'), null);
    assert.notEqual(check(named, ' [calculator] 3 + 7\n#1: 10\nQ2: Which answer is most likely?\n#2: 10\nQ3: [EOQ]\nAns: 10'), null);
  });

  test('steps out of order or repeated are accepted, as ART accepts them (art check reports them)', () => {
    assert.equal(check(named, ' [calculator] 3 + 7\n#1: 10\nQ3: [calculator] 10 + 0\n#3: 10\nQ3: [EOQ]\nAns: 10'), null);
  });

  test('Ans: before [EOQ] and prose after a tool output stay refused', () => {
    assert.match(check(named, ' [calculator] 3 + 7\n#1: 10\nAns: 10')?.message ?? '', /before `Q2: \[EOQ\]`/);
  });

  test("a replayed program is not judged: a library's own free query replays though no demonstration has one", async () => {
    const text = `${named.slice(0, named.indexOf('----'))}----\nInput: Tom has 3 pens and buys 7 more.\nQ1: [calculator] 3 + 7\n#1: 10\nQ2: Which answer is most likely?\n#2: 10\nQ3: [EOQ]\nAns: 10\n`;
    const library = parseArt(text);
    const model = ReplayModel.fromArtProgram(library, 1, name => !!TOOLS.get(name));
    const runner = createArtRunner({ library, program: 1 }, { model, tools: TOOLS, pauseAfterTool: false });
    const result = await runner.run();
    assert.equal(result.reason, 'finished', result.error);
    assert.equal(result.answer, '10');
  });
});
