// A line that names the tool shows its error once: `[string permutation] failed: the generated code ...`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withoutToolPrefix } from '../../../core/tools/common';

test("withoutToolPrefix drops the tool's own [name] prefix, and nothing else", () => {
  assert.equal(withoutToolPrefix('string permutation', '[string permutation] the generated code set no "ans"'), 'the generated code set no "ans"');
  assert.equal(withoutToolPrefix('Calculator', '[calculator] no expression found'), 'no expression found');
  assert.equal(withoutToolPrefix('search', '[lookup] other tool'), '[lookup] other tool');
  assert.equal(withoutToolPrefix('search', 'timed out'), 'timed out');
});
