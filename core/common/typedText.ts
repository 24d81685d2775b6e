// A value typed on one line (the Variables view's Set Value, an input box, a terminal prompt): a JSON string
// literal ("two\nlines") is unquoted, so several lines can be typed on one; anything else is taken as it is.
export function typedText(value: string): string {
  const t = value.trim();
  if (t.length >= 2 && t.startsWith('"') && t.endsWith('"')) {
    try {
      const v: unknown = JSON.parse(t);
      if (typeof v === 'string') return v;
    } catch {
      /* not JSON: the text as typed */
    }
  }
  return value;
}
