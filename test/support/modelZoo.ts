// A model zoo for the live path: OpenAI-compatible chat (and completions) endpoints on 127.0.0.1 that answer like
// real models commonly do when asked to continue a document. Each endpoint has one habit; under it is an honest
// model (a ContinuationScript, see core/model/script.ts) that knows the right continuation of the zoo's program,
// and the habit turns that continuation into what the model sends:
//
//   plain            the continuation, nothing else
//   wrapper          "Sure! Here is the continuation:", a fenced block (restating an unfinished last line), a
//                    closing remark after the fence
//   echo-line        the text's last line restated, then the continuation (`Q1: [calculator] …` after `Q1:`)
//   echo-all         the whole text so far restated, then the continuation
//   think            `<think>…</think>` in the content, then the continuation
//   reasoning-field  the reasoning in `reasoning_content` deltas (usage with reasoning tokens), then the continuation
//   refusal          "I'm sorry, but I can't help with that request."
//   empty            the first step, then nothing at all (finish reason `stop`)
//   same-again       the reply it gave the first time, every time
//   ignore-stop      the continuation past every stop sequence (its own guess of the tool's output included)
//   split-bytes      the continuation with multi-byte characters split across network writes and across deltas
//                    (a surrogate pair in two deltas)
//   length           the first reply cut mid-step with finish reason `length`, the next ones restating the cut line
//   tool-call        a streamed function call (`tool_calls` deltas with the arguments in pieces), no content: the
//                    calculator on `{"instruction": "21 + 3"}` (or the call given); once the messages end with a
//                    `tool` message, the rest of the program: `Qk: [EOQ]` and `Ans:` with the tool's output
//   turn-marker      a base model behind a chat template it was not trained on (Gemma 3 270M behind the ChatML that
//                    llama-server gives a GGUF without a template): at the end of its program, `<|im_end|>` and a user
//                    turn of its own as plain text, where the next program's `----` would come
//
// Stop sequences are applied to what the habit sends (a fence cut by `\n#` stays open), unless `honourStop` is off
// or the habit is ignore-stop. Every request is recorded. A chat-only endpoint (`chatOnly`) answers 404 on
// `/completions`, as chat-only services do.
//
// The wire, whatever the habit: `openai` (default) as OpenAI sends it, or `llama.cpp` as llama-server sends it (seen in
// test/llama-server): a chat stream's first delta is the role alone (`content: null`), log-probabilities on the
// completions API come in the chat form (`logprobs.content[].logprob`, not `token_logprobs`), and the usage rides
// on the finishing chunk, with llama.cpp's `timings`, instead of a chunk of its own.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ContinuationScript, roughTokens } from '../../core/replay/script';
import { StopScanner } from '../../core/model/stops';
import { readBody } from './scriptedServer';
import { LoopbackServer } from './loopback';

export const HABITS = [
  'plain',
  'wrapper',
  'echo-line',
  'echo-all',
  'think',
  'reasoning-field',
  'refusal',
  'empty',
  'same-again',
  'ignore-stop',
  'split-bytes',
  'length',
  'tool-call',
  'turn-marker',
] as const;
export type Habit = (typeof HABITS)[number];

export const REFUSAL = "I'm sorry, but I can't help with that request.";
/** What the turn-marker model writes after its first line: the end of its turn and a user turn of its own. */
export const TURN_MARKER_TAIL = '<|im_end|>\n<|im_start|>user\n';
export const THOUGHT = 'The question asks for 3 + 7; the calculator step comes first.';

/** The zoo's library: one demonstration and the program the models continue (index 1). */
export const ZOO_LIBRARY = [
  'Description: (Pens) Count the pens.',
  'Input: Ann has 2 pens and buys 5 more. How many pens does she have?',
  'Q1: [calculator] 2 + 5',
  '#1: 7',
  'Q2: [EOQ]',
  'Ans: 7',
  '----',
  'Description: (Pens) Count the pens.',
  'Input: Tom has 3 pens and buys 7 more. How many pens does he have?',
  'Q1: [calculator] 3 + 7',
  '#1: 10',
  'Q2: [EOQ]',
  'Ans: 10',
  '',
].join('\n');
export const ZOO_PROGRAM = 1;
/** The answer of the zoo's program, and of the split-bytes model (multi-byte characters in it). */
export const ZOO_ANSWER = '10';
export const ZOO_WIDE_ANSWER = '10 stylos — très bien 🦆';

/**
 * The honest model: after the task's `Q1:`, the calculator step (its own guess of the output is 11, wrong on
 * purpose: a run that took it instead of the calculator's 10 shows), then the answer and the start of another
 * program (which a run must not take).
 */
export function zooScript(answer = ZOO_ANSWER): ContinuationScript {
  return ContinuationScript.parse(
    ` [calculator] 3 + 7\n#⟂1:⟦ 11⟧\nQ2: [EOQ]\nAns: ${answer}\n----\nDescription: (Pens) Count the pencils.\nInput: more`,
    'Input: Tom has 3 pens and buys 7 more. How many pens does he have?\nQ1:',
  );
}

export interface ZooRequest {
  path: string;
  body: Record<string, any>;
  /** The text the model continues (the last message's content, or the prompt). */
  prompt: string;
  stop: string[];
  /** What the model sent (content), after stop sequences. */
  sent: string;
  finishReason: string;
}

interface Piece {
  content?: string;
  reasoning_content?: string;
  tool_calls?: unknown[];
}

export class ZooServer extends LoopbackServer {
  readonly requests: ZooRequest[] = [];
  private first: string | null = null;
  private readonly script: ContinuationScript;

  constructor(
    readonly habit: Habit,
    private readonly opts: {
      honourStop?: boolean;
      tokenDelayMs?: number;
      call?: { name: string; arguments: string };
      wire?: 'openai' | 'llama.cpp';
      /** The endpoint has no `/completions` (404), as chat-only services. */
      chatOnly?: boolean;
    } = {},
  ) {
    super();
    this.script = zooScript(habit === 'split-bytes' ? ZOO_WIDE_ANSWER : ZOO_ANSWER);
  }

  start(): Promise<this> {
    return this.listen((req, res) => {
      this.handle(req, res).catch(err => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: String(err) } }));
      });
    });
  }

  /** The right continuation of `prompt`: the script's rest where the prompt ends in it ('' when it does not follow it). */
  honest(prompt: string): string {
    const at = this.script.locate(prompt);
    return at ? this.script.rest(at).text : '';
  }

  /** What the model sends for `prompt`: pieces in order, and the finish reason. */
  reply(prompt: string, messages: { role?: string; content?: unknown }[] = []): { pieces: Piece[]; finish: string; reasoningTokens?: number } {
    const honest = this.honest(prompt);
    const lastLine = prompt.endsWith('\n')
      ? prompt.slice(prompt.lastIndexOf('\n', prompt.length - 2) + 1)
      : prompt.slice(prompt.lastIndexOf('\n') + 1);
    /** The unfinished last line a fenced block starts with ('' when the text ends with a line break). */
    const partialLine = prompt.slice(prompt.lastIndexOf('\n') + 1);
    const tokens = (s: string): Piece[] => roughTokens(s).map(content => ({ content }));
    switch (this.habit) {
      case 'plain':
      case 'ignore-stop':
        return { pieces: tokens(honest), finish: 'stop' };
      case 'wrapper':
        return {
          pieces: tokens(`Sure! Here is the continuation:\n\n\`\`\`\n${partialLine}${honest}\n\`\`\`\n\nLet me know if you need anything else.`),
          finish: 'stop',
        };
      case 'echo-line':
        return { pieces: tokens(lastLine + honest), finish: 'stop' };
      case 'echo-all':
        return { pieces: tokens(prompt + honest), finish: 'stop' };
      case 'think':
        return { pieces: [{ content: '<thi' }, { content: `nk>${THOUGHT}</th` }, { content: 'ink>\n\n' }, ...tokens(honest)], finish: 'stop' };
      case 'reasoning-field':
        return {
          pieces: [...roughTokens(THOUGHT).map(r => ({ reasoning_content: r })), ...tokens(honest)],
          finish: 'stop',
          reasoningTokens: roughTokens(THOUGHT).length,
        };
      case 'refusal':
        return { pieces: tokens(REFUSAL), finish: 'stop' };
      case 'empty':
        // The first step, then nothing at all.
        return { pieces: this.requests.length === 1 ? tokens(honest) : [], finish: 'stop' };
      case 'same-again': {
        this.first ??= honest;
        return { pieces: tokens(this.first), finish: 'stop' };
      }
      case 'split-bytes': {
        // Deltas cut inside a surrogate pair (the duck), on top of the byte-level cuts made when writing.
        const pieces: Piece[] = [];
        for (const t of roughTokens(honest)) {
          const i = t.indexOf('\ud83e');
          if (i >= 0) pieces.push({ content: t.slice(0, i + 1) }, { content: t.slice(i + 1) });
          else pieces.push({ content: t });
        }
        return { pieces, finish: 'stop' };
      }
      case 'length': {
        if (this.requests.length === 1) return { pieces: tokens(honest.slice(0, ' [calcul'.length)), finish: 'length' };
        return { pieces: tokens(lastLine + honest), finish: 'stop' };
      }
      case 'turn-marker': {
        // Where its program ends (before the next `----`), its turn ends, and it goes on with a turn of its own.
        const end = honest.indexOf('\n----');
        const reply = end < 0 ? honest : `${honest.slice(0, end)}${TURN_MARKER_TAIL}${partialLine}${honest}`;
        return { pieces: tokens(reply), finish: end < 0 ? 'stop' : 'length' };
      }
      case 'tool-call': {
        const last = messages.at(-1);
        if (last?.role === 'tool') {
          const k = messages.filter(m => m.role === 'tool').length + 1;
          return { pieces: tokens(`Q${k}: [EOQ]\nAns: ${String(last.content)}`), finish: 'stop' };
        }
        const call = this.opts.call ?? { name: 'calculator', arguments: JSON.stringify({ instruction: '21 + 3' }) };
        const args = call.arguments;
        const pieces: Piece[] = [
          { tool_calls: [{ index: 0, id: `call_${this.requests.length}`, type: 'function', function: { name: call.name, arguments: '' } }] },
          ...[args.slice(0, 5), args.slice(5, 12), args.slice(12)].map(a => ({ tool_calls: [{ index: 0, function: { arguments: a } }] })),
        ];
        return { pieces, finish: 'tool_calls' };
      }
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').replace(/\?.*$/, '');
    const isChat = path.endsWith('/chat/completions');
    if (req.method !== 'POST' || !(isChat || (path.endsWith('/completions') && !this.opts.chatOnly))) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${path}` } }));
      return;
    }
    const body = JSON.parse(await readBody(req)) as Record<string, any>;
    const prompt = isChat ? String(body.messages?.at(-1)?.content ?? '') : String(body.prompt ?? '');
    const stop: string[] = body.stop == null ? [] : Array.isArray(body.stop) ? body.stop : [body.stop];
    const rec: ZooRequest = { path, body, prompt, stop, sent: '', finishReason: '' };
    this.requests.push(rec);
    const { pieces, finish, reasoningTokens } = this.reply(prompt, isChat && Array.isArray(body.messages) ? body.messages : []);
    const honour = (this.opts.honourStop ?? true) && this.habit !== 'ignore-stop';
    const scanner = new StopScanner(honour ? stop : []);
    const id = `zoo-${this.requests.length}`;
    const event = (choice: Record<string, unknown>, usage?: unknown) => ({
      id,
      object: isChat ? 'chat.completion.chunk' : 'text_completion',
      created: 0,
      model: body.model,
      choices: choice ? [{ index: 0, ...choice }] : [],
      ...(usage ? { usage } : {}),
    });
    const llama = this.opts.wire === 'llama.cpp';
    // Log-probabilities (completions API, when asked for): -0.5 a piece, in the form the wire gives them.
    const logprobs = (text: string) =>
      !body.logprobs
        ? {}
        : llama
          ? { logprobs: { content: [{ token: text, logprob: -0.5, bytes: [], top_logprobs: [] }] } }
          : { logprobs: { tokens: [text], token_logprobs: [-0.5] } };
    const delta = (p: Piece) =>
      isChat ? { delta: p, finish_reason: null } : { text: p.content ?? '', ...logprobs(p.content ?? ''), finish_reason: null };
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const write = async (payload: unknown) => {
      const bytes = Buffer.from(`data: ${JSON.stringify(payload)}\n\n`, 'utf8');
      // split-bytes: every event goes out in two writes, cut inside a multi-byte character where there is one.
      const cut = this.habit === 'split-bytes' ? multiByteCut(bytes) : -1;
      if (cut > 0) {
        res.write(bytes.subarray(0, cut));
        await new Promise(resolve => setTimeout(resolve, 2));
        res.write(bytes.subarray(cut));
      } else res.write(bytes);
      if (this.opts.tokenDelayMs) await new Promise(resolve => setTimeout(resolve, this.opts.tokenDelayMs));
    };
    let finishReason = finish;
    let completionTokens = 0;
    if (llama && isChat) await write(event({ delta: { role: 'assistant', content: null }, finish_reason: null }));
    for (const p of pieces) {
      if (res.destroyed) return;
      if (p.content !== undefined) {
        const { release, stopped } = scanner.push(p.content);
        if (release) {
          rec.sent += release;
          completionTokens++;
          await write(event(delta({ content: release })));
        }
        if (stopped) {
          finishReason = 'stop';
          break;
        }
      } else {
        completionTokens++;
        await write(event(delta(p)));
      }
    }
    if (finishReason === finish) {
      const rest = scanner.flush();
      if (rest) {
        rec.sent += rest;
        await write(event(delta({ content: rest })));
      }
    }
    rec.finishReason = finishReason;
    const finishing = isChat ? { delta: {}, finish_reason: finishReason } : { text: '', finish_reason: finishReason };
    const promptTokens = roughTokens(prompt).length;
    const usage = body.stream_options?.include_usage
      ? {
          prompt_tokens: promptTokens,
          completion_tokens: completionTokens + (reasoningTokens ?? 0),
          total_tokens: promptTokens + completionTokens + (reasoningTokens ?? 0),
          ...(reasoningTokens ? { completion_tokens_details: { reasoning_tokens: reasoningTokens } } : {}),
        }
      : undefined;
    if (llama) await write({ ...event(finishing, usage), timings: { prompt_n: promptTokens, predicted_n: completionTokens } });
    else {
      await write(event(finishing));
      if (usage) await write(event(null as unknown as Record<string, unknown>, usage));
    }
    res.write('data: [DONE]\n\n');
    res.end();
  }
}

/** A byte offset inside the first multi-byte UTF-8 character of `bytes` (after its first byte), or -1. */
function multiByteCut(bytes: Buffer): number {
  for (let i = 0; i < bytes.length; i++) if (bytes[i] >= 0xc0) return i + 1;
  return -1;
}
