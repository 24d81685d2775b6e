// `art constrain`: the decoding constraint of an agent spec at a pause point, as a regular expression that accepts
// the on-spec text the monitor accepts, or as a GBNF grammar; one-line errors for a bad agent, state or format.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fixturePath } from '../support/fixtures';

const CLI = join(__dirname, '../../dist/cli.js');
const SPEC = fixturePath('agents/react.agent');
const art = (...args: string[]) => {
  const r = spawnSync(process.execPath, [CLI, 'constrain', ...args], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

describe('art constrain', () => {
  test('a regular expression that accepts an on-spec step after Obs and rejects an off-spec one', () => {
    const r = art(SPEC, '--state', 'Obs');
    assert.equal(r.code, 0, r.err);
    const re = new RegExp(`^(?:${r.out.trim()})$`, 's');
    assert.ok(re.test('[Thought] I should look it up.\n[Action] Search\n[Action Input] Milhouse\n[Observation]'), r.out);
    assert.ok(!re.test('[Answer] no thought first'), 'the spec wants a thought after an observation');
  });

  test('a GBNF grammar with a root rule', () => {
    const r = art(SPEC, '--format', 'gbnf');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^root ::= /m);
  });

  test('one-line errors: an unknown state, format or agent', () => {
    for (const [args, message] of [
      [['--state', 'Nope'], /no state "Nope"/],
      [['--format', 'json'], /--format must be regex or gbnf, not "json"/],
      [['--agent', 'nobody'], /nobody/],
    ] as const) {
      const r = art(SPEC, ...args);
      assert.equal(r.code, 2, r.err);
      assert.match(r.err, message);
      assert.equal(r.err.trim().split('\n').length, 1, r.err);
    }
  });
});
