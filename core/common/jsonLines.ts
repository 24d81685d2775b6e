// JSON Lines: one JSON value a line, blank lines skipped. The one reader of run traces, strict (every record checked
// against its schema, for a replay) or loose (any record with a `t`, for the run history).

export interface JsonLines<T> {
  values: T[];
  /** Lines that are not JSON, or that `check` refused (1-based), with why. */
  errors: { line: number; message: string }[];
}

/** Reads `text` line by line; `check` says what is wrong with a parsed value (null: keep it). */
export function readJsonLines<T>(text: string, check: (value: unknown) => string | null): JsonLines<T> {
  const values: T[] = [];
  const errors: JsonLines<T>['errors'] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      errors.push({ line: i + 1, message: `not JSON: ${e instanceof Error ? e.message : String(e)}` });
      return;
    }
    const problem = check(value);
    if (problem) errors.push({ line: i + 1, message: problem });
    else values.push(value as T);
  });
  return { values, errors };
}
