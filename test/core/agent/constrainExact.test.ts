// The exact constraint for llama.cpp (Constraint.exactGbnf, core/common/regular.ts dfaToExactGbnf): where the portable
// forms must give up the texts an unknown non-ASCII character would make ambiguous, the local model's grammar keeps
// them: on a spec whose prompt texts have non-ASCII characters it accepts exactly what the monitor accepts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { agentConstraint } from '../../../core/agent/constrain';
import { Gbnf } from '../../support/gbnf';
import { prng } from '../../support/random';
import { INTL_SPEC, monitorAccepts, nearTexts, pausePoints } from './constrainHelpers';
import { compiled } from './helpers';

const intl = compiled(INTL_SPEC);

const FILLER = [' ', '\n', 'x', 'é', 'ü', '你', '观', '😀', '😁', '\u00a0', '—', '–', ']', '[', '【', '】'];

describe('agent constraints: the exact grammar of the local model', () => {
  test('accepts exactly what the monitor accepts, non-ASCII texts included, from every pause point', () => {
    const random = prng(7);
    let kept = 0;
    for (const { label, at } of pausePoints(intl)) {
      const c = agentConstraint(intl, at) ?? assert.fail(`no constraint from ${label}`);
      const exact = new Gbnf(c.exactGbnf ?? assert.fail(`no exact grammar from ${label}`), { llamaCpp: true });
      const portable = new Gbnf(c.gbnf);
      for (const text of nearTexts(intl, at, random, 40, FILLER)) {
        const want = monitorAccepts(intl, at, text);
        assert.equal(exact.accepts(text), want, `${label}: exact GBNF ${want ? 'rejects' : 'accepts'} ${JSON.stringify(text)}`);
        if (want && !portable.accepts(text)) kept++;
      }
    }
    // The point of it: texts the portable grammar had to refuse are on spec and kept.
    assert.ok(kept > 0, 'some on-spec text the portable grammar refuses');
  });
});
