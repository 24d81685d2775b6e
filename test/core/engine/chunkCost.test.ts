// Issue 20 item 14: a run's cost per chunk is the chunk's, not the text's. A replay of 500,000 one-character chunks
// took over 280 s: after every chunk the protocol read the whole text written so far. Counted here, not timed (the
// bench times it: `npm run bench -- replay`): over a run of n one-character chunks, the characters the protocol is
// given to read stay within a small multiple of n (they were n²/2), and so do the characters each protocol reads
// (the ART scanner reads the unfinished line and the chunk, not the text so far); the text events say they only
// grew, so a terminal prints the delta without reading the text (core/common/streamedText.ts).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { compileAgent } from '../../../core/agent/compile';
import { parseAgentFile } from '../../../core/agent/parse';
import { Runner } from '../../../core/engine/runner';
import { AgentProtocol } from '../../../core/protocols/agentProtocol';
import { ArtProtocol } from '../../../core/protocols/artProtocol';
import type { ArtScanner } from '../../../core/protocols/artScan';
import { MultiToolProtocol } from '../../../core/protocols/multitoolProtocol';
import type { RunProtocol } from '../../../core/protocols/runProtocol';
import { characterModel } from '../../support/fakeModels';
import { fixturePath } from '../../support/runs';

const NO_TOOLS = { get: () => undefined };

/** Runs `protocol` on `target` streamed one character a chunk; what detect() was given, and the text events. */
async function run(protocol: RunProtocol, target: string) {
  let given = 0;
  let calls = 0;
  const detect = protocol.detect.bind(protocol);
  protocol.detect = (written: string, added?: string) => {
    calls++;
    given += (added ?? written).length;
    return detect(written, added);
  };
  const runner = new Runner(protocol, { model: characterModel(protocol.prompt, target), tools: NO_TOOLS, maxTokens: 10 ** 6 });
  let events = 0;
  let notGrown = 0;
  runner.on('text', e => {
    events++;
    if (!e.grown) notGrown++;
  });
  const result = await runner.run();
  return { result, given, calls, events, notGrown, written: runner.text.length - protocol.header.length };
}

/** `lines` lines of `width` characters, none of which starts a step or a state. */
const prose = (lines: number, width: number) =>
  Array.from({ length: lines }, (_, i) => `line ${i} `.padEnd(width, 'abcdefghij klmnopq rstuvw xyz ')).join('\n');

describe('the cost of a chunk is the chunk (counted over a run of one-character chunks)', () => {
  test('ART: detect() is given each character once; the scanner reads a line per character of it, not the text', async () => {
    const header = 'Description: (Essay) Write a long text.\nInput: fox\nQ1:';
    const protocol = new ArtProtocol(header, header, NO_TOOLS);
    const target = ` [write] Write the essay.\n#1:\n${prose(500, 60)}\nQ2: [EOQ]\nAns: done\n`;
    const r = await run(protocol, target);
    assert.equal(r.result.reason, 'finished', r.result.error);
    assert.equal(r.result.answer, 'done');
    const n = target.length;
    assert.equal(r.calls, n, 'detect() after every chunk');
    assert.ok(r.given <= 2 * n, `detect() was given ${r.given} characters for ${n} one-character chunks (n²/2 = ${(n * n) / 2})`);
    const scanner = (protocol as unknown as { scanner: ArtScanner }).scanner;
    // Each chunk: the unfinished line so far (at most 61 characters here) and the chunk.
    assert.ok(scanner.charsRead <= 62 * n, `the scanner read ${scanner.charsRead} characters for ${n} (the square: ${(n * n) / 2})`);
    // The first text event of the run is the only one a terminal has to read whole.
    assert.equal(r.notGrown, 1, `${r.notGrown} of ${r.events} text events did not only grow`);
  });

  test('MultiTool-CoT: detect() is given each character once', async () => {
    const protocol = new MultiToolProtocol({ prompt: 'Q: How many?\nA:', endMarkers: ['\nQ:'] }, NO_TOOLS);
    const target = ` ${prose(400, 60)} 2 + 2 <<Nothing>> is 4. So the answer is 4.\nQ: another`;
    const r = await run(protocol, target);
    assert.equal(r.result.reason, 'finished', r.result.error);
    assert.equal(r.result.answer, '4');
    const n = r.written;
    assert.ok(r.given <= 2 * n, `detect() was given ${r.given} characters for ${n} one-character chunks`);
    // Each chunk: the end of the text a trigger or the end marker may have started in (67 characters), and the chunk.
    assert.ok(protocol.charsRead <= 70 * n, `detect() read ${protocol.charsRead} characters for ${n}`);
    assert.equal(r.notGrown, 1);
  });

  test('agents: detect() is given each character once', async () => {
    const react = compileAgent(parseAgentFile(readFileSync(fixturePath('agents/react.agent'), 'utf8')).agents[0]);
    const protocol = new AgentProtocol({ agent: react, question: 'Who is Milhouse named after?' }, NO_TOOLS);
    const target = `[Final Thought] ${prose(400, 60)}\n[Answer] Richard Nixon\n[Question] another`;
    const r = await run(protocol, target);
    assert.equal(r.result.reason, 'finished', r.result.error);
    assert.equal(r.result.answer, 'Richard Nixon');
    const n = r.written;
    assert.ok(r.given <= 2 * n, `detect() was given ${r.given} characters for ${n} one-character chunks`);
    // Each chunk: what may still be the start of a state's prompt text (none here), and the chunk.
    assert.ok(protocol.charsRead <= 3 * n, `the monitor read ${protocol.charsRead} characters for ${n}`);
    assert.equal(r.notGrown, 1);
  });
});
