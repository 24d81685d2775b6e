// llama-server's chat API with the chat template it gives the default model, and its function calling (the tools
// API), against a program of the project's arithmetic library. The model is the base Gemma 3 270M: its GGUF carries
// no chat template, so llama-server applies its ChatML fallback, and the model, never trained on it, writes turn
// markers as text and answers in its own way. What holds for any model is asserted: the request is what the API says,
// the run ends with an answer or a named reason, no chat text (turn markers, invented turns) enters the program.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { TURN_MARKERS } from '../../core/model/chatReply';
import type { TraceRecord } from '../../core/trace/schema';
import { LLAMA_MODEL, jsonLinesOf, llamaServerForTests } from '../support/llamaServer';
import { runCli } from '../support/cli';

const ROOT = resolve(__dirname, '../..');
const work = mkdtempSync(join(tmpdir(), 'art-llama-chat-'));
const INPUT = 'A hall has 18 rows of 24 chairs. 50 chairs are taken away. How many chairs are left?';
const readTrace = (path: string) => jsonLinesOf<TraceRecord>(path);

describe('llama-server: the chat API and function calling', () => {
  const t = llamaServerForTests({ before, after });

  /** `art run` of the tools library's program on INPUT through `api`; the trace's records and the requests sent. */
  async function run(api: 'chat' | 'tools') {
    const trace = join(work, `${api}.jsonl`);
    const before = t.proxy.completions.length;
    const r = await runCli(
      [
        'run',
        join(ROOT, 'examples/art-vs-cot/tools.art'),
        ...['--task', '0', '--input', INPUT, '--api', api, '--base-url', t.proxy.baseURL, '--model', LLAMA_MODEL],
        ...['--temperature', '0', '--max-tokens', '96', '--trace', trace],
      ],
      { cwd: work },
    );
    const records = readTrace(trace);
    const end = records.find(x => x.t === 'end');
    assert.ok(end && end.t === 'end', r.stderr);
    return { r, records, end, sent: t.proxy.completions.slice(before) };
  }

  /** The run ended with an answer or a reason, and no turn marker or invented turn is in its program. */
  function assertHonest(end: Extract<TraceRecord, { t: 'end' }>) {
    assert.ok(end.reason === 'finished' ? end.answer !== null : !!end.error, `${end.reason} without a reason: ${end.text}`);
    for (const m of TURN_MARKERS) assert.ok(!end.text.includes(m), `${m} in the program:\n${end.text}`);
    assert.doesNotMatch(end.text, /^(user|assistant|model)$/m, 'no invented turn in the program');
  }

  test('chat API: the program so far as the user message under the continuation instruction; an answer or a named reason', async () => {
    const { end, sent, records } = await run('chat');
    assertHonest(end);
    assert.ok(sent.length >= 1);
    for (const q of sent) {
      assert.match(q.path, /\/chat\/completions$/);
      const messages = q.body?.messages as { role: string; content: string }[];
      assert.deepEqual(
        messages.map(m => m.role),
        ['system', 'user'],
      );
      assert.ok(messages[1].content.includes(INPUT));
      assert.equal(q.body?.tools, undefined);
    }
    // Whatever was repaired is said in the trace, with what was kept out of the program.
    for (const x of records) if (x.t === 'repair') assert.ok(x.summary && typeof x.removed === 'string');
  });

  test('tools API: the tools offered as functions on every request; an answer or a named reason', async () => {
    const { end, sent } = await run('tools');
    assertHonest(end);
    assert.ok(sent.length >= 1);
    for (const q of sent) {
      const names = (q.body?.tools as { function: { name: string } }[]).map(t => t.function.name);
      assert.ok(names.includes('calculator') && names.includes('code_execute'), names.join(', '));
      assert.equal(q.body?.tool_choice, 'auto');
    }
  });
});
