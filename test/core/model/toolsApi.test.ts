// The tools API's pieces (core/model/toolsApi.ts) and ART's reading of it (core/protocols/artTools.ts): function names
// valid for the API and back, streamed call deltas put together, the instruction read from tolerant arguments, the
// text so far as a dialogue (a pure function of the text) and a call written as the next tool step.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FunctionNames, ToolCallAccumulator, callId, instructionOf, toolMessages } from '../../../core/model/toolsApi';
import { artModelPartStart, artToolProgram } from '../../../core/protocols/artTools';

const TOOLS = [
  { name: 'calculator', description: 'arithmetic' },
  { name: 'code execute', description: 'runs Python' },
  { name: 'code-execute', description: 'a workspace tool' },
  { name: 'Wörter zählen', description: 'counts words' },
];

const HEADER =
  'Description: (Sum) Add.\nInput: 2 and 5\nQ1: [calculator] 2 + 5\n#1: 7\nQ2: [EOQ]\nAns: 7\n----\nDescription: (Sum) Add.\nInput: 21 and 3\nQ1:';

describe('tools API: function names, deltas, arguments', () => {
  test('names valid for the API, distinct, and mapped back to the tool names', () => {
    const n = new FunctionNames(TOOLS);
    const fns = TOOLS.map(t => n.functionOf(t.name));
    assert.deepEqual(fns, ['calculator', 'code_execute', 'code-execute', 'W_rter_z_hlen']);
    for (const f of fns) assert.match(f, /^[a-zA-Z0-9_-]{1,64}$/);
    assert.deepEqual(
      fns.map(f => n.toolOf(f)),
      TOOLS.map(t => t.name),
    );
    assert.equal(
      new FunctionNames([
        { name: 'a b', description: '' },
        { name: 'a  b!', description: '' },
      ]).functionOf('a  b!'),
      'a_b_2',
    );
    assert.equal(n.toolOf('unknown_fn'), 'unknown_fn');
    assert.equal(new FunctionNames([{ name: 'x'.repeat(100), description: '' }]).functionOf('x'.repeat(100)).length, 60);
  });

  test('streamed deltas: id and name first, the arguments in pieces; complete at the next call or the end', () => {
    const a = new ToolCallAccumulator();
    assert.equal(a.push([{ index: 0, id: 'c1', type: 'function', function: { name: 'calculator', arguments: '' } }]), null);
    assert.equal(a.push([{ index: 0, function: { arguments: '{"instr' } }]), null);
    assert.equal(a.push([{ index: 0, function: { arguments: 'uction": "21 + 3"}' } }]), null);
    assert.deepEqual(a.push([{ index: 1, id: 'c2', function: { name: 'search', arguments: '{}' } }]), {
      id: 'c1',
      name: 'calculator',
      arguments: '{"instruction": "21 + 3"}',
    });
    assert.equal(a.finish(), null, 'the first call is taken once');
    const b = new ToolCallAccumulator();
    assert.equal(b.finish(), null, 'no call');
    b.push([
      { index: 0, function: { name: 'calc' } },
      { index: 0, function: { name: 'ulator', arguments: '"7"' } },
    ]);
    assert.deepEqual(b.finish(), { name: 'calculator', arguments: '"7"' });
    const c = new ToolCallAccumulator();
    assert.throws(() => c.push([{ index: 0, function: { name: 'x', arguments: 'a'.repeat(300 * 1024) } }]), /over 262144 characters/);
  });

  test('the instruction: {"instruction"}, a bare string, JSON or not, one string field of another name', () => {
    assert.equal(instructionOf('{"instruction": "21 + 3"}'), '21 + 3');
    assert.equal(instructionOf('"21 + 3"'), '21 + 3');
    assert.equal(instructionOf(' 21 + 3 '), '21 + 3');
    assert.equal(instructionOf('{"expression": "3 + 7"}'), '3 + 7');
    assert.equal(instructionOf('{"a": "x", "b": "y"}'), '{"a": "x", "b": "y"}');
    assert.equal(instructionOf('42'), '42');
  });
});

describe('tools API over ART programs (artTools.ts)', () => {
  const program = artToolProgram(TOOLS);

  test("the model part starts after the last program's Q1:", () => {
    assert.equal(artModelPartStart(HEADER), HEADER.length);
    assert.equal(artModelPartStart(HEADER + ' [calculator] 21 + 3\n#1: 24\n'), HEADER.length);
    assert.equal(artModelPartStart('Write Python code that prints 1.'), -1);
  });

  test('before any call the whole text is the user message; no program: no dialogue', () => {
    assert.deepEqual(program.dialogue(HEADER), { prompt: HEADER, turns: [], tail: '' });
    assert.equal(program.dialogue('Write Python code that prints 1.'), null);
  });

  test('tool steps become turns (the text before each call, the call, its output), the rest a tail', () => {
    const text = `${HEADER} [calculator] 21 + 3\n#1: 24\nQ2: [subquestion] Is 24 even?\n#2: yes\nQ3: [code execute] print(24 * 2)\n#3:\n48\nQ4: [EOQ]`;
    const d = program.dialogue(text)!;
    assert.equal(d.prompt, HEADER);
    assert.deepEqual(d.turns, [
      { text: '', tool: 'calculator', instruction: '21 + 3', output: '24' },
      { text: 'Q2: [subquestion] Is 24 even?\n#2: yes', tool: 'code execute', instruction: 'print(24 * 2)', output: '48' },
    ]);
    assert.equal(d.tail, 'Q4: [EOQ]');
    const names = new FunctionNames(TOOLS);
    const messages = toolMessages('system', d, names);
    assert.deepEqual(
      messages.map(m => m.role),
      ['system', 'user', 'assistant', 'tool', 'assistant', 'tool', 'assistant'],
    );
    assert.deepEqual(messages[4], {
      role: 'assistant',
      content: 'Q2: [subquestion] Is 24 even?\n#2: yes',
      tool_calls: [{ id: callId(1), type: 'function', function: { name: 'code_execute', arguments: '{"instruction":"print(24 * 2)"}' } }],
    });
    assert.deepEqual(messages[5], { role: 'tool', tool_call_id: 'art000002', content: '48' });
    // A pure function of the text: the same text, the same messages.
    assert.deepEqual(toolMessages('system', program.dialogue(text)!, names), messages);
  });

  test('a tool step without its output yet (the model writes it) stays text', () => {
    const d = program.dialogue(`${HEADER} [calculator] 21 + 3\n#1: 24\nQ2: [calculator] 24 * 2\n#2:`)!;
    assert.equal(d.turns.length, 1);
    assert.equal(d.tail, 'Q2: [calculator] 24 * 2\n#2:');
  });

  test('a call is written as the next step, or completes the open Qk:', () => {
    assert.equal(program.callText(HEADER, 'calculator', '21 + 3'), ' [calculator] 21 + 3\n#');
    assert.equal(program.callText(`${HEADER} [calculator] 21 + 3\n#1: 24\n`, 'code execute', 'print(1)'), 'Q2: [code execute] print(1)\n#');
    assert.equal(program.callText(`${HEADER} [calculator] 21 + 3\n#1: 24\nQ2: `, 'calculator', '24 * 2'), '[calculator] 24 * 2\n#');
    assert.equal(program.callText(`${HEADER} [subquestion] sum?\n#1: it is`, 'calculator', 'a\nb'), '\nQ2: [calculator] a b\n#');
  });
});
