// `art constrain`: the decoding constraint of an agent spec at a pause point, as a regular expression that accepts
// the on-spec text the monitor accepts, or as a GBNF grammar; one-line errors for a bad agent, state or format.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fixturePath } from '../support/fixtures';
import { runCli } from '../support/cli';

const SPEC = fixturePath('agents/react.agent');
const art = (...args: string[]) => runCli(['constrain', ...args]);

describe('art constrain', () => {
  test('a regular expression that accepts an on-spec step after Obs and rejects an off-spec one', async () => {
    const r = await art(SPEC, '--state', 'Obs');
    assert.equal(r.code, 0, r.stderr);
    const re = new RegExp(`^(?:${r.stdout.trim()})$`, 's');
    assert.ok(re.test('[Thought] I should look it up.\n[Action] Search\n[Action Input] Milhouse\n[Observation]'), r.stdout);
    assert.ok(!re.test('[Answer] no thought first'), 'the spec wants a thought after an observation');
  });

  test('a GBNF grammar with a root rule', async () => {
    const r = await art(SPEC, '--format', 'gbnf');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^root ::= /m);
  });

  test('one-line errors: an unknown state, format or agent', async () => {
    for (const [args, message] of [
      [['--state', 'Nope'], /no state "Nope"/],
      [['--format', 'json'], /--format must be regex or gbnf, not "json"/],
      [['--agent', 'nobody'], /nobody/],
    ] as const) {
      const r = await art(SPEC, ...args);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, message);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    }
  });
});
