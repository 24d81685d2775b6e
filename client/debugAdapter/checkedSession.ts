// What the DAP library leaves to each adapter about the messages it is sent. A body that is not JSON or not a DAP
// message (`null`, a number, an object without `type`) made the library end the process at once with exit code 0 and
// no word; it is now said on stderr (and, for a request it can answer, in an error response) and the adapter reads
// on. An `initialize` without `pathFormat` was refused, though the specification makes it optional with the
// default `path`. A request the adapter does not advertise (`goto`, `gotoTargets`) answered success, doing nothing;
// it is now an error response.
import { LoggingDebugSession } from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';

/** Why a parsed body is not a DAP message, or undefined when it is one. */
export function messageProblem(msg: unknown): string | undefined {
  if (msg === null || typeof msg !== 'object' || Array.isArray(msg))
    return `the body is ${msg === null ? 'null' : Array.isArray(msg) ? 'a list' : `a ${typeof msg}`}, not an object`;
  const m = msg as Record<string, unknown>;
  if (typeof m.seq !== 'number') return 'it has no number "seq"';
  if (m.type === 'request') {
    if (typeof m.command !== 'string') return 'the request has no string "command"';
    if (m.arguments !== undefined && (m.arguments === null || typeof m.arguments !== 'object'))
      return `the "${m.command}" request's "arguments" is not an object`;
    return undefined;
  }
  if (m.type === 'response') return typeof m.request_seq === 'number' ? undefined : 'the response has no number "request_seq"';
  if (m.type === 'event') return undefined;
  return `its "type" is ${JSON.stringify(m.type) ?? 'missing'}, not "request", "response" or "event"`;
}

/** Requests the library answers with success by default though this adapter does not implement them. */
const NOT_SUPPORTED = new Set(['goto', 'gotoTargets']);

export class CheckedDebugSession extends LoggingDebugSession {
  constructor() {
    super();
    // The library ends the process on any 'error' event, a body it could not handle included: only a broken stream does.
    this.removeAllListeners('error');
    this.on('error', (e: DebugProtocol.Event) => {
      const what = String(e.body ?? '');
      if (/^(in|out)Stream error/.test(what)) this.shutdown();
      else process.stderr.write(`art debug adapter: ignored a message it could not read (${what}); reading on\n`);
    });
  }

  override handleMessage(msg: DebugProtocol.ProtocolMessage): void {
    const problem = messageProblem(msg);
    if (!problem) return super.handleMessage(msg);
    process.stderr.write(`art debug adapter: ignored a message that is not a DAP message: ${problem}\n`);
    const m = msg as unknown as Record<string, unknown> | null;
    if (m && typeof m === 'object' && m.type === 'request' && typeof m.seq === 'number' && typeof m.command === 'string')
      this.sendErrorResponse(
        { seq: 0, type: 'response', request_seq: m.seq, command: m.command, success: false },
        1100,
        `not a DAP request: ${problem}`,
      );
  }

  protected override dispatchRequest(request: DebugProtocol.Request): void {
    if (request.command === 'initialize') {
      // pathFormat is optional, `path` by default (the library refused a request without it).
      const args = { ...(request.arguments as DebugProtocol.InitializeRequestArguments | undefined) };
      args.pathFormat ??= 'path';
      return super.dispatchRequest({ ...request, arguments: args });
    }
    if (NOT_SUPPORTED.has(request.command))
      return this.sendErrorResponse(
        { seq: 0, type: 'response', request_seq: request.seq, command: request.command, success: false },
        1101,
        `the art debug adapter does not support "${request.command}" (it is not among its capabilities)`,
      );
    super.dispatchRequest(request);
  }
}
