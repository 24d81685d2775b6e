// Text the CLI did not write itself (model text, tool output, traces, results headers, inputs) on its way to a
// terminal. A control character in it would be obeyed by the terminal: OSC 52 writes the clipboard, ESC[2J clears
// the screen, OSC 8 disguises a link, a lone CR overwrites a line. Every control character but newline and tab
// (C0, DEL and C1; CR unless a newline follows it) is shown as its escape, `\x1b`; `--json` output escapes them as
// JSON does (`\u001b`), C1 and DEL included, which JSON.stringify leaves raw.

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/g;
const RAW_IN_JSON = /[\x7f-\x9f]/g;

const hex = (c: string) => c.charCodeAt(0).toString(16).padStart(2, '0');

/** `text` with every control character but newline and tab (and the CR of a CRLF) shown as `\xHH`. */
export function visibleControls(text: string): string {
  return text.replace(CONTROL, c => `\\x${hex(c)}`);
}

/** JSON.stringify for a terminal: also DEL and the C1 controls as `\u00HH`, so the output holds no control character. */
export function terminalJson(value: unknown, space?: number): string {
  return JSON.stringify(value, null, space).replace(RAW_IN_JSON, c => `\\u00${hex(c)}`);
}
