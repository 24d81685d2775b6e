// Every test that needs the real local model finds it here: the default model (core/model/defaultModel.ts) in the
// models folder outside the checkout, provisioned by scripts/model.mjs when missing (once per machine: a second run
// fetches nothing). `npm run setup` provisions it too, so the test line never downloads in the middle of a suite.
import { provisionedPath } from './provision';

/** The path of the default local model's GGUF file; throws one line naming the fix when it cannot be provisioned. */
export function localModelPath(): string {
  return provisionedPath('scripts/model.mjs', ['--import', 'tsx'], 'the local model', 'run it to see why');
}
