// Counts in words (core/common/counts.ts), the one formatter of `N things` and of a run's token usage.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { plural, tokenUsage } from '../../../core/common/counts';

test('a count takes an s unless it is one, or the plural given', () => {
  assert.equal(plural(1, 'request'), '1 request');
  assert.equal(plural(0, 'request'), '0 requests');
  assert.equal(plural(2, 'monitor correction'), '2 monitor corrections');
  assert.equal(plural(3, 'query', 'queries'), '3 queries');
  assert.equal(plural(1, 'query', 'queries'), '1 query');
});

test('token usage reads as prompt + completion tokens', () => {
  assert.equal(tokenUsage({ promptTokens: 120, completionTokens: 1 }), '120 prompt + 1 completion tokens');
});
