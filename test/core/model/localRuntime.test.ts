// The local runtime's registry (core/model/localRuntime.ts): one runtime, so one copy of the model in memory, per file
// and settings; nothing is loaded by asking for it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_LOCAL_SEQUENCES } from '../../../core/model/defaultModel';
import { disposeLocalRuntimes, localRuntime } from '../../../core/model/localRuntime';

test('the default number of sequences and the same number given are one runtime; another number is another', async () => {
  const file = '/models/none.gguf';
  try {
    assert.equal(localRuntime({ file }), localRuntime({ file, sequences: DEFAULT_LOCAL_SEQUENCES }));
    assert.notEqual(localRuntime({ file }), localRuntime({ file, sequences: 1 }));
  } finally {
    await disposeLocalRuntimes();
  }
});
