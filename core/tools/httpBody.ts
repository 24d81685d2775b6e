// An HTTP response body read with a byte cap: the reading stops (and the connection is released) as soon as the cap
// is passed, so a tool endpoint that sends hundreds of megabytes costs at most the cap, never the whole body.

/** The most of an HTTP tool's body read (its output is cut at 1 MB characters after that). */
export const MAX_HTTP_BODY_BYTES = 4 * 1024 * 1024;

/** The body's text up to `maxBytes` (a multi-byte character cut there dropped); `over` when there was more. */
export async function readBodyCapped(res: Response, maxBytes = MAX_HTTP_BODY_BYTES): Promise<{ text: string; over: boolean }> {
  if (!res.body) return { text: '', over: false };
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let read = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text: text + decoder.decode(), over: false };
    if (read + value.length > maxBytes) {
      text += decoder.decode(value.subarray(0, maxBytes - read), { stream: true });
      await reader.cancel().catch(() => undefined);
      return { text, over: true };
    }
    read += value.length;
    text += decoder.decode(value, { stream: true });
  }
}
