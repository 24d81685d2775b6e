// The stdio transport. Reading: each message's body is copied into one buffer of its Content-Length as the chunks
// arrive (vscode-jsonrpc's reader keeps every chunk until the message is whole, then copies them: twice the document
// in buffers, which the C heap kept afterwards), and a large body is decoded in slices with a yield between
// (decodeInSlices). Messages are delivered in the order they came, with one exception: while a large message about
// one document is being decoded, a request about another document may be delivered ahead of it (see mayOvertake).
// What each of these saved: docs/performance.md, figures behind the code.
//
// Writing: the server writes its messages through the writer below, so that a large answer (an outline, the folding
// ranges or the program list of a library of 60,000 programs: megabytes of JSON) is serialised in slices with a
// yield between them, instead of one JSON.stringify that holds the event loop for hundreds of milliseconds while a
// hover waits behind it. Small messages are written at once, in order; a large response is written once it is
// serialised, so that answers finished meanwhile go first (responses carry their id, their order does not matter).
// Its slices are written one after the other in the same tick (never interleaved with another message), not
// copied into one buffer first: that copy doubled the memory of a large answer. The bytes written are those
// JSON.stringify would give.
import {
  AbstractMessageReader,
  AbstractMessageWriter,
  type DataCallback,
  type Disposable,
  type Message,
  type MessageReader,
  type MessageWriter,
  type ResponseMessage,
} from 'vscode-languageserver/node';
import { yieldToEventLoop } from './guard';

/** Arrays longer than this in a response are serialised in slices. */
export const LARGE_ARRAY = 2000;
/** Elements serialised between two checks of the clock (objects: outline symbols, programs). */
const STEP = 500;
/** The same for arrays of numbers (semantic tokens' `data`: millions of small integers, cheap each). */
const NUMBER_STEP = 50_000;

/** The large array of a response: its result, or an array property of its result (`programs`, `data`). */
function largeArrayOf(msg: Message): { key: string | null; array: unknown[] } | null {
  const result = (msg as ResponseMessage).result as unknown;
  if (!('id' in msg) || !('result' in msg) || result === null || typeof result !== 'object') return null;
  if (Array.isArray(result)) return result.length > LARGE_ARRAY ? { key: null, array: result } : null;
  for (const [key, value] of Object.entries(result)) if (Array.isArray(value) && value.length > LARGE_ARRAY) return { key, array: value };
  return null;
}

/**
 * The UTF-8 JSON of `msg`, as `JSON.stringify(msg)` gives it, in parts to be written in order, with its large array
 * (see largeArrayOf) serialised `STEP` elements at a time and a yield to the event loop whenever `sliceMs` have
 * passed; null when `msg` has no large array (serialise it at once).
 */
export async function encodeInSlices(msg: Message, sliceMs = 8): Promise<Buffer[] | null> {
  const large = largeArrayOf(msg);
  if (!large) return null;
  const { key, array } = large;
  // The envelope with a marker string in place of the array; JSON.stringify gives a string value as "marker".
  const marker = `\u0000art-large-array-${Math.random().toString(36).slice(2)}\u0000`;
  const result = (msg as ResponseMessage).result as Record<string, unknown>;
  const envelope = { ...msg, result: key === null ? marker : { ...result, [key]: marker } };
  const [head, tail] = JSON.stringify(envelope).split(JSON.stringify(marker));
  const parts: Buffer[] = [Buffer.from(`${head}[`, 'utf8')];
  let since = performance.now();
  const step = typeof array[0] === 'number' ? NUMBER_STEP : STEP;
  for (let i = 0; i < array.length; i += step) {
    const json = JSON.stringify(array.slice(i, i + step));
    parts.push(Buffer.from(`${i === 0 ? '' : ','}${json.slice(1, -1)}`, 'utf8'));
    if (performance.now() - since >= sliceMs) {
      await yieldToEventLoop();
      since = performance.now();
    }
  }
  parts.push(Buffer.from(`]${tail}`, 'utf8'));
  return parts;
}

/** Writes each message with its Content-Length header; a large response's parts are serialised in slices first. */
class SlicedStreamWriter extends AbstractMessageWriter implements MessageWriter {
  private errors = 0;

  constructor(private readonly stream: NodeJS.WritableStream) {
    super();
    stream.on('error', (error: Error) => this.fireError(error));
    stream.on('close', () => this.fireClose());
  }

  async write(msg: Message): Promise<void> {
    try {
      const parts = (await encodeInSlices(msg)) ?? [Buffer.from(JSON.stringify(msg), 'utf8')];
      let length = 0;
      for (const part of parts) length += part.length;
      // One tick, no await: the header and every part go out together, before any other message.
      this.stream.write(`Content-Length: ${length}\r\n\r\n`, 'ascii');
      for (const part of parts) this.stream.write(part);
      this.errors = 0;
    } catch (error) {
      this.errors++;
      this.fireError(error as Error, msg, this.errors);
      throw error;
    }
  }

  end(): void {
    this.stream.end();
  }
}

/** The server's writer over a stream (stdout): see the top of this file. */
export function slicedStreamWriter(stream: NodeJS.WritableStream): MessageWriter {
  return new SlicedStreamWriter(stream);
}

/** Bodies larger than this are decoded in slices of this size (bytes, then characters). */
export const DECODE_SLICE = 1024 * 1024;
const HEADER_END = Buffer.from('\r\n\r\n', 'ascii');

/** Yields to the event loop once `sliceMs` have passed since the last yield. */
function clock(sliceMs: number): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < sliceMs) return;
    await yieldToEventLoop();
    since = performance.now();
  };
}

/**
 * The message in a body of UTF-8 JSON, as JSON.parse gives it. A large body is decoded a slice at a time with a
 * yield between slices, and its long string values (a document's text) apart from the rest: their JSON is decoded
 * DECODE_SLICE characters at a time (cut where no escape sequence is under way), the small rest with a placeholder
 * in their place is parsed at once, and the strings are put back: JSON.parse of a large document in one go held the
 * event loop far past a keystroke's budget (docs/performance.md).
 */
export async function decodeInSlices(body: Buffer, sliceMs = 8): Promise<Message> {
  return decodeBody({ body }, sliceMs);
}

/** decodeInSlices, which lets go of the body (`held.body = null`) once it is decoded to characters. */
async function decodeBody(held: { body: Buffer | null }, sliceMs = 8): Promise<Message> {
  let body: Buffer | null = held.body!;
  if (body.length <= DECODE_SLICE) return JSON.parse(body.toString('utf8')) as Message;
  const tick = clock(sliceMs);
  const decoder = new TextDecoder('utf-8');
  const parts: string[] = [];
  for (let at = 0; at < body.length; at += DECODE_SLICE) {
    const end = Math.min(at + DECODE_SLICE, body.length);
    parts.push(decoder.decode(body.subarray(at, end), { stream: end < body.length }));
    await tick();
  }
  held.body = body = null;
  return decodeParts(parts, tick);
}

const BACKSLASH = 92;

/** Whether the quote at `q` is escaped: an odd run of backslashes before it (`carry`: those that ended the last part). */
function escapedAt(part: string, q: number, carry: number): boolean {
  let p = q - 1;
  while (p >= 0 && part.charCodeAt(p) === BACKSLASH) p--;
  const run = q - 1 - p + (p < 0 ? carry : 0);
  return run % 2 === 1;
}

/**
 * A place at or before `c` (and after `from`, at least 6 characters into the stretch so that an escape begun in the
 * previous part is over) where a string's JSON can be cut without cutting an escape sequence, or -1. An escape is at
 * most 6 characters (`\uXXXX`) and has a backslash only as its first character (or second, in `\\`): so `c` is
 * safe when none of the 5 characters before it is a backslash, and otherwise the start of that run of backslashes is.
 */
function safeCut(part: string, c: number, from: number, end: number): number {
  if (c > end) return -1;
  const b = part.lastIndexOf('\\', c - 1);
  if (b < c - 5) return c;
  let r = b;
  while (r > from && part.charCodeAt(r - 1) === BACKSLASH) r--;
  return r > from ? r : -1;
}

/**
 * The message whose JSON is `parts` (characters, in order). Strings are found with indexOf (a quote, then whether an
 * odd run of backslashes escapes it), not by visiting every escape sequence; a long string's JSON is cut about every
 * DECODE_SLICE characters at a place where no escape is under way and each slice decoded by JSON.parse, with a yield
 * between parts. A long string is put back in place of a marker once the rest is parsed.
 */
async function decodeParts(parts: string[], tick: () => Promise<void>): Promise<Message> {
  const tag = `\u0000art-long-string-${Math.random().toString(36).slice(2)}-`;
  const long = new Map<string, string>();
  const rest: string[] = []; // the JSON without the long strings
  let inString = false;
  let raw: string[] = []; // the current string's JSON since its last cut
  let rawLength = 0;
  let decoded: string[] = []; // the current string's characters before its last cut
  let carry = 0; // backslashes that ended the previous part, inside a string
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    let from = 0; // start of what this part has not yet handed to `rest` or `raw`
    let j = 0;
    for (;;) {
      if (!inString) {
        const q = part.indexOf('"', j);
        if (q < 0) break;
        rest.push(part.slice(from, q));
        from = j = q + 1;
        inString = true;
        raw = [];
        rawLength = 0;
        decoded = [];
        continue;
      }
      let q = part.indexOf('"', j);
      while (q >= 0 && escapedAt(part, q, carry)) q = part.indexOf('"', q + 1);
      const end = q < 0 ? part.length : q;
      while (rawLength + (end - from) >= DECODE_SLICE) {
        const cut = safeCut(part, Math.max(from + 6, from + DECODE_SLICE - rawLength), from, end);
        if (cut < 0) break;
        raw.push(part.slice(from, cut));
        decoded.push(JSON.parse(`"${raw.join('')}"`) as string);
        raw = [];
        rawLength = 0;
        from = cut;
      }
      raw.push(part.slice(from, end));
      rawLength += end - from;
      from = end;
      if (q < 0) break;
      // The string ends at q.
      from = j = q + 1;
      inString = false;
      if (decoded.length === 0 && rawLength <= DECODE_SLICE) rest.push(`"${raw.join('')}"`);
      else {
        decoded.push(JSON.parse(`"${raw.join('')}"`) as string);
        const key = `${tag}${long.size}`;
        long.set(key, decoded.join(''));
        rest.push(JSON.stringify(key));
      }
      raw = [];
      decoded = [];
    }
    if (!inString) {
      rest.push(part.slice(from));
      carry = 0;
    } else {
      let p = part.length - 1;
      while (p >= 0 && part.charCodeAt(p) === BACKSLASH) p--;
      carry = part.length - 1 - p + (p < 0 ? carry : 0);
    }
    parts[i] = ''; // handed on: let it go
    await tick();
  }
  if (inString) throw new Error('Unterminated string in JSON message');
  const message = JSON.parse(rest.join('')) as unknown;
  return (long.size ? restore(message, long) : message) as Message;
}

function restore(value: unknown, long: Map<string, string>): unknown {
  if (typeof value === 'string') return long.get(value) ?? value;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = restore(value[i], long);
    return value;
  }
  const o = value as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    const v = restore(o[k], long);
    const key = long.get(k);
    if (key === undefined) o[k] = v;
    else {
      delete o[k];
      Object.defineProperty(o, key, { value: v, enumerable: true, writable: true, configurable: true });
    }
  }
  return o;
}

/**
 * The longest header read before its end (`\r\n\r\n`): an LSP header is a Content-Length and perhaps a
 * Content-Type. Without a bound, a header that never ends was kept whole, growing as fast as it was sent.
 */
export const MAX_HEADER_BYTES = 8192;

/** A header field name (RFC 9110's token); a line of the header must start with one. */
const FIELD_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]*$/;

/**
 * What is wrong with the header received so far (`complete`: up to its end, excluded), or null: each line must be
 * `Name: value`, so bytes that cannot begin one (the rest of a body longer than its Content-Length said) are a
 * framing error at once, not after MAX_HEADER_BYTES.
 */
function headerProblem(header: string, complete: boolean): string | null {
  const lines = header.split('\r\n');
  for (let i = 0; i < lines.length; i++) {
    const last = i === lines.length - 1 && !complete;
    const line = last ? lines[i].replace(/\r$/, '') : lines[i];
    const colon = line.indexOf(':');
    if (FIELD_NAME.test(colon < 0 ? line : line.slice(0, colon)) && (colon > 0 || (last && colon < 0))) continue;
    if (last && line === '') continue;
    return `Not a header line: ${JSON.stringify(line.slice(0, 60))}`;
  }
  return null;
}

/** Reads `Content-Length`-framed JSON-RPC messages from a stream (the LSP base protocol). */
export class FramedMessageReader extends AbstractMessageReader implements MessageReader {
  /** Header bytes received so far, when a header is split between chunks. */
  private header: Buffer | null = null;
  private body: Buffer | null = null;
  private filled = 0;
  private failed = false;
  private delivered: Promise<void> = Promise.resolve();
  /** The messages read and not yet delivered, in order, with the document each is about (null: unknown or none). */
  private readonly waiting: { uri: string | null }[] = [];

  /**
   * `onParseError`: a well-framed body that is not JSON. The stream is still in step, so reading goes on; the caller
   * answers a JSON-RPC parse error (-32700, id null). Without it, such a body is an error of the reader.
   */
  constructor(
    private readonly stream: NodeJS.ReadableStream,
    private readonly options: { onParseError?: (error: Error) => void } = {},
  ) {
    super();
  }

  listen(callback: DataCallback): Disposable {
    const onData = (chunk: Buffer) => {
      try {
        this.read(chunk, callback);
      } catch (e) {
        this.fail(e);
      }
    };
    const onError = (e: Error) => this.fireError(e);
    const onClose = () => this.fireClose();
    this.stream.on('data', onData);
    this.stream.on('error', onError);
    this.stream.on('close', onClose);
    this.stream.on('end', onClose);
    return {
      dispose: () => {
        this.stream.off('data', onData);
        this.stream.off('error', onError);
        this.stream.off('close', onClose);
        this.stream.off('end', onClose);
      },
    };
  }

  /**
   * One message after the other, except a request about a document that none of the messages still waiting to be
   * delivered is about, when they are all known to be about one document: it goes at once (mayOvertake).
   */
  private deliver(held: { body: Buffer | null }, callback: DataCallback): void {
    const body = held.body!;
    const large = body.length > DECODE_SLICE;
    // A small message read while others wait is parsed now, to know whether it may go first and what it is about.
    let parsed: Message | null = null;
    if (!large && this.waiting.length > 0) {
      try {
        parsed = JSON.parse(body.toString('utf8')) as Message;
      } catch (e) {
        this.notJson(e);
        return;
      }
      if (mayOvertake(parsed, this.waiting)) {
        callback(parsed);
        return;
      }
    }
    const entry = { uri: large ? documentOfLargeBody(body) : parsed && documentOf(parsed) };
    this.waiting.push(entry);
    this.delivered = this.delivered.then(async () => {
      try {
        if (this.failed) return;
        let message = parsed;
        if (!message) {
          try {
            message = await decodeBody(held);
          } catch (e) {
            this.notJson(e);
            return;
          }
        }
        callback(message);
      } catch (e) {
        this.fail(e);
      } finally {
        this.waiting.splice(this.waiting.indexOf(entry), 1);
      }
    });
  }

  /** A body that did not decode: a parse error for the caller to answer, or, without onParseError, a failure. */
  private notJson(e: unknown): void {
    const error = e instanceof Error ? e : new Error(String(e));
    if (this.options.onParseError) this.options.onParseError(error);
    else this.fail(error);
  }

  private fail(e: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.fireError(e);
  }

  private read(chunk: Buffer, callback: DataCallback): void {
    let at = 0;
    while (at < chunk.length && !this.failed) {
      if (!this.body) {
        // The header: find its end in this chunk (or in what came before and this chunk).
        // At most MAX_HEADER_BYTES are kept, plus what may complete the header's end.
        const rest = chunk.subarray(at);
        const held = this.header?.length ?? 0;
        const joined = this.header
          ? Buffer.concat([this.header, rest.subarray(0, MAX_HEADER_BYTES + HEADER_END.length)])
          : rest.subarray(0, MAX_HEADER_BYTES + HEADER_END.length);
        const end = joined.indexOf(HEADER_END);
        if (end < 0) {
          if (held + rest.length > MAX_HEADER_BYTES) throw new Error(`Header longer than ${MAX_HEADER_BYTES} bytes without its end (\\r\\n\\r\\n)`);
          const problem = headerProblem(joined.toString('latin1'), false);
          if (problem) throw new Error(problem);
          this.header = Buffer.from(joined);
          return;
        }
        const headerText = joined.toString('latin1', 0, end);
        at += end + HEADER_END.length - held;
        this.header = null;
        if (headerText.length > MAX_HEADER_BYTES) throw new Error(`Header longer than ${MAX_HEADER_BYTES} bytes`);
        const problem = headerProblem(headerText, true);
        if (problem) throw new Error(problem);
        this.body = Buffer.allocUnsafeSlow(contentLength(headerText));
        this.filled = 0;
      }
      const n = Math.min(this.body.length - this.filled, chunk.length - at);
      chunk.copy(this.body, this.filled, at, at + n);
      this.filled += n;
      at += n;
      if (this.filled === this.body.length) {
        const held = { body: this.body as Buffer | null };
        this.body = null;
        this.deliver(held, callback);
      }
    }
  }
}

/** The document a message is about: its `params.textDocument.uri`, or null. */
function documentOf(msg: Message): string | null {
  const uri = (msg as { params?: { textDocument?: { uri?: unknown } } }).params?.textDocument?.uri;
  return typeof uri === 'string' ? uri : null;
}

/** The start of a large body where a client writes the document's uri (before its text). */
const URI_IN = 64 * 1024;
const TEXT_DOCUMENT_URI = /"textDocument"\s*:\s*\{\s*"uri"\s*:\s*("(?:[^"\\]|\\.)*")/;

/** documentOf for a large body still to be decoded: the uri written first in its `textDocument`, or null. */
function documentOfLargeBody(body: Buffer): string | null {
  const m = TEXT_DOCUMENT_URI.exec(body.toString('utf8', 0, Math.min(body.length, URI_IN)));
  if (!m) return null;
  try {
    return JSON.parse(m[1]) as string;
  } catch {
    return null;
  }
}

/**
 * Whether `msg` may be delivered before the messages still `waiting`: it is a request about a document, and each
 * waiting message is known to be about another document. A notification (a change, a close, a cancellation) or a
 * request about no document (shutdown) keeps its place; so does everything while a waiting message's document is
 * not known.
 */
function mayOvertake(msg: Message, waiting: readonly { uri: string | null }[]): boolean {
  if (!('id' in msg) || !('method' in msg)) return false;
  const uri = documentOf(msg);
  return uri !== null && waiting.every(w => w.uri !== null && w.uri !== uri);
}

/** The Content-Length of a message header, or an error saying what is wrong with it. */
function contentLength(header: string): number {
  for (const line of header.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon < 0 || line.slice(0, colon).trim().toLowerCase() !== 'content-length') continue;
    const value = line.slice(colon + 1).trim();
    if (!/^\d+$/.test(value)) throw new Error(`Content-Length value must be a number. Got ${value}`);
    return Number(value);
  }
  throw new Error(`Header must provide a Content-Length property.\n${JSON.stringify(header)}`);
}
