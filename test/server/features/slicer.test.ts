// Long request handlers yield as they go (WorkSlicer): a request answered meanwhile, and the protocol's errors when
// the client cancels or the document changes under the work.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LSPErrorCodes, ResponseError } from 'vscode-languageserver';
import { WorkSlicer } from '../../../server/guard';

const ticks = async (s: WorkSlicer, n: number) => {
  for (let i = 0; i < n; i++) await s.tick();
};

describe('WorkSlicer', () => {
  test('yields to the event loop between slices: a timer set before the work runs during it', async () => {
    let ran = false;
    setImmediate(() => (ran = true));
    const slicer = new WorkSlicer(() => false, undefined, 0);
    await ticks(slicer, 32);
    assert.equal(ran, true);
  });

  test('stops with ContentModified when the document changed, RequestCancelled when the client cancelled', async () => {
    await assert.rejects(
      ticks(new WorkSlicer(() => true, undefined, 0), 64),
      (e: unknown) => e instanceof ResponseError && e.code === LSPErrorCodes.ContentModified,
    );
    const token = { isCancellationRequested: true, onCancellationRequested: () => ({ dispose() {} }) };
    await assert.rejects(
      ticks(new WorkSlicer(() => false, token, 0), 64),
      (e: unknown) => e instanceof ResponseError && e.code === LSPErrorCodes.RequestCancelled,
    );
  });

  test('does not yield inside a slice: short work runs to its end at once', async () => {
    let ran = false;
    setImmediate(() => (ran = true));
    await ticks(new WorkSlicer(() => true, undefined, 60_000), 1000);
    assert.equal(ran, false, 'no yield, and a stale document is not even looked at');
  });
});
