// Memory of a very large first analysis. Receiving a large document leaves several times its size of garbage (the
// message's bytes, their decoded string, the reader's chunks) that V8 frees only at its next full collection, which
// may come only after the syntax tree has been built beside it, raising the server's peak (figures:
// docs/performance.md, figures behind the code). Collecting
// once, when the text has arrived and before its analysis starts, is cheap (the live heap is then the text itself,
// one object to mark) and keeps the peak near what the analysis keeps.
//
// `global.gc` exists only under --expose-gc, which an editor does not pass; the flag can be set at run time and the
// function read from a new context (as jest-leak-detector does). Where that fails, V8 collects when it decides.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | null | undefined;

/** A full garbage collection now, when the runtime allows it; false when it does not. */
export function collectGarbage(): boolean {
  if (gc === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      gc = runInNewContext('gc') as () => void;
    } catch {
      gc = null;
    }
  }
  if (!gc) return false;
  gc();
  return true;
}
