// Waiting in a test for what cannot be awaited as an event (a process in /proc, a line in a file another process
// writes): the one polling helper of the tests.

export interface UntilOptions {
  /** What the test waits for, as the error on timeout says it: "the code step's Python". */
  what: string;
  /** Default 20 s: generous for a loaded 2-core machine; the wait ends as soon as the predicate holds. */
  timeoutMs?: number;
  /** Default 20 ms. */
  everyMs?: number;
}

/**
 * Resolves once `predicate` holds (it may be asynchronous: a health request); throws `timed out after N ms waiting
 * for WHAT` when it never does.
 */
export async function until(predicate: () => boolean | Promise<boolean>, { what, timeoutMs = 20_000, everyMs = 20 }: UntilOptions): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() >= end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise(r => setTimeout(r, everyMs));
  }
}
