// What the editor's session tools answer (client/lm/stops.ts): a debug session's `art/state` and `art/end` as `art
// mcp`'s stops, and their text (core/agentTools/sessionStop.ts).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { viewOfEnd, viewOfState } from '../../client/lm/stops';
import { describeView } from '../../core/agentTools/sessionStop';
import type { EndEvent, StateRequest } from '../../client/debugAdapter/protocol';

const PAUSED: StateRequest.Response = {
  run: 1,
  state: 'paused',
  kind: 'art',
  program: '/w/ducks.art',
  text: 'Q2: [code execute] Execute\n#2:',
  call: {
    step: 2,
    tool: 'code execute',
    input: 'Execute',
    previousAnswer: 'print(18)',
    output: '18',
    override: '42',
  } as StateRequest.Response['call'],
  phase: 'after',
  pause: { reason: 'after-tool', description: 'Paused after [code execute]', step: 2, label: 'Q2' },
  canStepBack: true,
  textOnResume: 'Q2: [code execute] Execute\n#2: 42\n',
};

describe('language model tools: answers', () => {
  test('a pause reads as art mcp reads it: the tool, its input, output and override, the program as it goes on', () => {
    const v = viewOfState('Debug ducks', PAUSED);
    assert.deepEqual(v, {
      session: 'Debug ducks',
      status: 'paused',
      reason: 'after-tool',
      description: 'Paused after [code execute]',
      program: 'Q2: [code execute] Execute\n#2: 42\n',
      canStepBack: true,
      step: 2,
      label: 'Q2',
      tool: 'code execute',
      input: 'Execute',
      previousAnswer: 'print(18)',
      output: '18',
      override: '42',
    });
    assert.equal(
      describeView(v),
      'session Debug ducks paused: Paused after [code execute] (step 2)\ntool: code execute\ninput: Execute\noutput: 18\noverride: 42\n\nprogram so far:\nQ2: [code execute] Execute\n#2: 42\n',
    );
  });

  test('a running session is not a pause; a pause at a step has no tool', () => {
    const running = viewOfState('s', { ...PAUSED, state: 'running', call: undefined, pause: undefined, textOnResume: undefined });
    assert.deepEqual(running, { session: 's', status: 'running', program: PAUSED.text });
    assert.match(describeView(running), /^debug session s is running \(not paused\)/);
    assert.equal(describeView(viewOfState('s', { run: 0, state: 'idle', text: '' })), 'debug session s has no run yet');
    const step = viewOfState('s', { ...PAUSED, call: undefined, pause: { reason: 'step', description: 'Step', step: 3, label: 'Q3' } });
    assert.equal(step.status === 'paused' && step.tool, undefined);
    assert.match(describeView(step), /^session s paused: Step \(step 3\)\n\nprogram so far:/);
  });

  test("the run's end: how it ended, the answer, why a replay departed", () => {
    const end = {
      reason: 'departed',
      answer: null,
      error: "the run departed from its recording (#2's output was set by hand)",
      text: 'x\n#2: 42\n',
    } as EndEvent.Body;
    const v = viewOfEnd('s', end);
    assert.deepEqual(v, { session: 's', status: 'departed', answer: null, program: 'x\n#2: 42\n', error: end.error });
    assert.equal(describeView(v), `session s ended: departed\nwhy: ${end.error}\n\nprogram so far:\nx\n#2: 42\n`);
    assert.match(
      describeView(viewOfEnd('s', { ...end, reason: 'finished', answer: '18', error: undefined })),
      /^session s ended: finished; answer: 18\n/,
    );
  });
});
