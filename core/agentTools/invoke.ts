// One call of an agent tool, as both shells make it: a tool that runs programs first waits for a place among those
// the shell lets run at once (limits.ts, RunSlots); what the tool throws becomes an answer with isError (one line
// naming the file or option and the fix; an internal error is logged with its stack and said in one line), never a
// crash of the shell; the keys the call may have read are replaced by `***` in every string of the answer, and the
// answer is kept under MAX_ANSWER_BYTES, its longest texts cut and marked.
import { z } from 'zod';
import { Redactor } from '../common/redact';
import { isCliError } from '../common/sourceFiles';
import { isOwnedFileError } from '../common/ownedFiles';
import { EvalDataError } from '../evaluation/eval';
import { LaunchError } from '../launch/options';
import type { AgentTool, ToolAnswer, ToolHost } from './tool';

/**
 * The largest answer, in bytes of its JSON: MCP's stdio transport drops a client that receives a message over 10 MB,
 * and the text and the structured content repeat each other.
 */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/** Calls `tool` with `args` (validated by the shell against its input schema) on `host`. */
export async function invokeTool(tool: AgentTool, args: Record<string, unknown>, host: ToolHost): Promise<ToolAnswer> {
  let release: (() => void) | undefined;
  try {
    if (tool.runsPrograms)
      release = await host.slots.acquire(host.signal, () =>
        host.progress(
          `waiting: ${host.slots.max} call(s) that run programs are under way, the most at once (art mcp --max-runs); this one starts when one ends`,
        ),
      );
    const answer = await tool.run(z.object(tool.input).parse(args) as never, host);
    return capAnswer(redact(answer, host.secrets()));
  } catch (e) {
    const message = userError(e);
    if (message !== undefined) return capAnswer(redact({ text: message, isError: true }, host.secrets()));
    host.log(`${tool.name}: internal error: ${(e as Error).stack ?? String(e)}`);
    return capAnswer(
      redact(
        { text: `${tool.name} failed: ${(e as Error).message ?? String(e)} (an internal error: the log has the details)`, isError: true },
        host.secrets(),
      ),
    );
  } finally {
    release?.();
  }
}

/** The errors a caller can fix (a file, an option, a dataset): their message is the answer; others are the shell's. */
export function userError(e: unknown): string | undefined {
  if (isCliError(e) || e instanceof LaunchError || e instanceof EvalDataError || isOwnedFileError(e)) return (e as Error).message;
  if (e instanceof z.ZodError) return `invalid arguments: ${e.issues.map(i => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ')}`;
  return undefined;
}

/** `answer` with its longest strings cut (each says so) until its JSON fits in `max` bytes. */
export function capAnswer(answer: ToolAnswer, max = MAX_ANSWER_BYTES): ToolAnswer {
  const size = (v: unknown) => Buffer.byteLength(JSON.stringify(v));
  if (size(answer) <= max) return answer;
  for (let limit = Math.floor(max / 4); limit >= 256; limit = Math.floor(limit / 2)) {
    const capped = mapStrings(answer, v =>
      v.length > limit ? `${v.slice(0, limit)}… [${v.length - limit} characters cut: a result is kept under ${max / 2 ** 20} MB]` : v,
    );
    if (size(capped) <= max) return capped;
  }
  return { text: `the result is over ${max / 2 ** 20} MB even with every text cut: ask for less`, isError: true };
}

/** Every form of a secret (core/common/redact.ts: the key, its body, a masked form) in the strings of `value` redacted. */
export function redact<T>(value: T, secrets: readonly (string | undefined)[]): T {
  const keys = secrets.filter((s): s is string => !!s && s.length >= 4);
  if (!keys.length) return value;
  const redactor = new Redactor(keys);
  return mapStrings(value, v => redactor.redact(v));
}

/** `value` with every string in it (in arrays and objects, at any depth) replaced by `f` of it. */
function mapStrings<T>(value: T, f: (s: string) => string): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return f(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}
