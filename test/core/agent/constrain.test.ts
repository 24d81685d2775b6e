// The compiled constraints against the decoding monitor: on the six paper agents and on random specs, at the start
// and at every state as a pause point, the regex accepts a text exactly when the monitor reads it as an on-spec run
// that ends at the next :env-input state's prompt text or in a final state; the GBNF grammar accepts the same texts.
// Both are checked to be portable (test/support/portableRegex.ts, test/support/gbnf.ts); constrainPortable.test.ts
// has the specs whose prompt texts are not ASCII.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { compileAgent, parseAgentFile } from '../../../core/agent';
import { agentConstraint, pauseAtState } from '../../../core/agent/constrain';
import { prng } from '../../support/random';
import { checkAgent, randomSpec } from './constrainHelpers';
import { fixtureAgentFiles } from './helpers';

/** The six paper agents, from the project's fixtures (one spec a file). */
const paper = fixtureAgentFiles()
  .flatMap(f => parseAgentFile(f.text).agents)
  .map(compileAgent);

describe('agent constraints agree with the monitor', () => {
  for (const [i, agent] of paper.entries()) {
    test(`paper agent ${agent.name}`, () => {
      const { accepted, total, lost } = checkAgent(agent, 1000 + i, 600);
      // The texts are not trivially one-sided: both answers occur often.
      assert.ok(accepted > total / 10 && accepted < total - total / 10, `${accepted} of ${total} accepted`);
      // Prompt texts in ASCII: the portable constraint accepts all the monitor does, non-ASCII filler included.
      assert.equal(lost, 0, `${lost} texts the monitor accepts are refused`);
    });
  }

  test('random specs with overlapping prompt texts', () => {
    const random = prng(424242);
    let total = 0;
    for (let n = 0; n < 30; n++) {
      const r = checkAgent(randomSpec(random, ['A', 'B', 'AB', ':', '[', ']', ' '], `r${n}`), 7000 + n, 150);
      assert.equal(r.lost, 0, `r${n}: ${r.lost} texts the monitor accepts are refused`);
      total += r.total;
    }
    assert.ok(total > 10_000, `${total} texts checked`);
  });

  test('constraints are cached per pause point', () => {
    const react = paper.find(a => a.name === 'react-agent') ?? assert.fail('no react-agent fixture');
    const at = pauseAtState(react, 'Obs');
    assert.equal(agentConstraint(react, at), agentConstraint(react, pauseAtState(react, 'Obs')));
  });

  test('an unknown state is a one-line error naming the states', () => {
    assert.throws(() => pauseAtState(paper[0], 'Nope'), /no state "Nope".*Ques, Tht/);
  });
});
