// User tools declared in the workspace tool file: a command line or an HTTP endpoint (the MCP kind is in
// mcpTools.ts). A user tool reads its input as its entry says, is stopped at its timeout, and reports failures
// (non-zero exit, HTTP error, unreachable endpoint) as results, never as exceptions.
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { isAbsolute, resolve } from 'node:path';
import type { ToolInfo } from '../art/knownTools';
import { capText, deadline, errorMessage, fail, ok, stoppedResult } from './common';
import { detectContainment } from './containment';
import { MAX_HTTP_BODY_BYTES, readBodyCapped } from './httpBody';
import { runProcess } from './process';
import { optionGuard, PLACEHOLDER, readsStdin } from './commandTemplate';
import { describeTool, type CommandToolConfig, type HttpToolConfig } from './toolsFile';
import type { Tool, ToolContext, ToolInput, ToolResult } from './types';

const COMMAND_TIMEOUT_MS = 30_000;
const HTTP_TIMEOUT_MS = 30_000;
const MAX_OUTPUT = 1024 * 1024;

/** The text a user tool receives, per its `input` setting. */
export function userToolInput(input: ToolInput, mode: 'instruction' | 'previousAnswer' | 'both' = 'instruction'): string {
  const previous = input.previousAnswer ?? '';
  if (mode === 'previousAnswer') return previous;
  if (mode === 'both') return previous ? `${input.instruction}\n\n${previous}` : input.instruction;
  return input.instruction;
}

/** Environment for user processes: the MCP SDK's list of safe variables (PATH, HOME, USER, ...) plus the entry's own. */
export function userToolEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { ...getDefaultEnvironment(), ...extra };
}

export function resolveCwd(workspaceRoot: string, cwd?: string): string {
  if (!cwd) return workspaceRoot;
  return isAbsolute(cwd) ? cwd : resolve(workspaceRoot, cwd);
}

export function userInfo(name: string, description: string | undefined, inputDoc: string): ToolInfo {
  return { name, origin: 'user', description: description ?? `Workspace tool ${name}.`, input: inputDoc };
}

export function createCommandTool(cfg: CommandToolConfig, opts: { workspaceRoot: string; fileName: string }): Tool {
  const viaStdin = readsStdin(cfg.command, cfg.stdin);
  const info = describeTool({ ...cfg, kind: 'command' }, cfg.name);
  return {
    info,
    async run(input: ToolInput, ctx: ToolContext): Promise<ToolResult> {
      const text = userToolInput(input, cfg.input);
      const values: Record<string, string> = { input: text, instruction: input.instruction, previousAnswer: input.previousAnswer ?? '' };
      // An argument that begins with a placeholder and whose value starts with "-" (the model's text) would be read
      // as an option: "--" ends the options first, or the call is refused (commandTemplate.ts).
      const guarded = optionGuard(
        cfg.command,
        cfg.command.map(a => a.replace(PLACEHOLDER, (_, k: string) => values[k])),
      );
      if ('refused' in guarded)
        return fail(`[${cfg.name}] was not run: ${guarded.refused} (fix: put "--" before it in "command" in ${opts.fileName})`);
      const [program, ...args] = guarded.args;
      const cwd = resolveCwd(opts.workspaceRoot, cfg.cwd);
      const timeoutMs = ctx.timeoutMs ?? cfg.timeoutMs ?? COMMAND_TIMEOUT_MS;
      const r = await runProcess({
        contain: await detectContainment(),
        command: program,
        args,
        cwd,
        env: userToolEnv(cfg.env),
        stdin: viaStdin ? text : '',
        timeoutMs,
        maxOutputBytes: MAX_OUTPUT,
        signal: ctx.signal,
      });
      const facts = { exitCode: r.exitCode, durationMs: r.durationMs, truncated: r.truncated };
      if (r.startError) {
        const why = r.startError.code === 'ENOENT' ? `"${program}" was not found, or the folder ${cwd} does not exist` : r.startError.message;
        return fail(`[${cfg.name}] cannot run the command: ${why} (fix "command" in ${opts.fileName})`);
      }
      if (r.stoppedFor === 'timeout') return fail(`[${cfg.name}] timed out after ${timeoutMs / 1000} s`, { timedOut: true, details: facts });
      if (r.stoppedFor === 'cancelled') return fail(`[${cfg.name}] was cancelled`, { details: facts });
      if (r.exitCode !== 0 && r.stoppedFor !== 'output-limit') {
        const last = r.stderr.trim().split('\n').pop();
        const how = r.signal ? `was ended by ${r.signal}` : `exited with code ${r.exitCode}`;
        return fail(`[${cfg.name}] the command ${how}${last ? `: ${last}` : ''}`, { details: { ...facts, stderr: r.stderr } });
      }
      const output = r.stdout.replace(/\s+$/, '');
      if (!output) return fail(`[${cfg.name}] the command printed nothing`, { details: { ...facts, stderr: r.stderr } });
      return ok(output, facts);
    },
  };
}

export function createHttpTool(cfg: HttpToolConfig): Tool {
  const info = describeTool({ ...cfg, kind: 'http' }, cfg.name);
  return {
    info,
    async run(input: ToolInput, ctx: ToolContext): Promise<ToolResult> {
      const d = deadline({ ...ctx, timeoutMs: ctx.timeoutMs ?? cfg.timeoutMs }, HTTP_TIMEOUT_MS);
      const started = Date.now();
      try {
        const res = await fetch(cfg.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/plain;q=0.9, */*;q=0.5', ...cfg.headers },
          body: JSON.stringify({ tool: cfg.name, instruction: input.instruction, previousAnswer: input.previousAnswer ?? null }),
          signal: d.signal,
          // Following a redirect would send the tool's own headers (an X-Api-Key) to whatever host it names.
          redirect: 'manual',
        });
        if (res.status >= 300 && res.status < 400) {
          void res.body?.cancel().catch(() => undefined);
          const location = res.headers.get('location');
          return fail(
            `[${cfg.name}] ${cfg.url} answered HTTP ${res.status}, a redirect${location ? ` to ${location}` : ''}: redirects are not followed (fix "url" in the tool file to the final address)`,
            { details: { status: res.status, location, durationMs: Date.now() - started } },
          );
        }
        const { text: body, over } = await readBodyCapped(res);
        const facts = { status: res.status, durationMs: Date.now() - started };
        if (!res.ok)
          return fail(`[${cfg.name}] ${cfg.url} answered HTTP ${res.status}${body.trim() ? `: ${body.trim().slice(0, 200)}` : ''}`, {
            details: facts,
          });
        let output: string;
        if (/json/i.test(res.headers.get('content-type') ?? '')) {
          let reply: unknown;
          if (over)
            return fail(`[${cfg.name}] ${cfg.url} sent a JSON reply over ${MAX_HTTP_BODY_BYTES / 2 ** 20} MB: it was not read further`, {
              details: facts,
            });
          try {
            reply = JSON.parse(body);
          } catch {
            return fail(`[${cfg.name}] ${cfg.url} sent invalid JSON`, { details: facts });
          }
          if (typeof reply === 'string') output = reply;
          else if (reply && typeof reply === 'object' && typeof (reply as { output?: unknown }).output === 'string')
            output = (reply as { output: string }).output;
          else if (reply && typeof reply === 'object' && typeof (reply as { error?: unknown }).error === 'string')
            return fail(`[${cfg.name}] ${(reply as { error: string }).error}`, { details: facts });
          else return fail(`[${cfg.name}] the JSON reply of ${cfg.url} has no "output" string`, { details: facts });
        } else output = body;
        const capped = capText(output.replace(/\s+$/, ''), MAX_OUTPUT);
        if (over && !capped.truncated) capped.text += `\n[output truncated at ${MAX_HTTP_BODY_BYTES / 2 ** 20} MB]`;
        return ok(capped.text, { ...facts, truncated: capped.truncated || over });
      } catch (e) {
        if (d.signal.aborted) return stoppedResult(cfg.name, d);
        const cause = (e as { cause?: { code?: string; message?: string } }).cause;
        return fail(`[${cfg.name}] cannot reach ${cfg.url}: ${cause?.code ?? cause?.message ?? errorMessage(e)}`);
      } finally {
        d.dispose();
      }
    },
  };
}
