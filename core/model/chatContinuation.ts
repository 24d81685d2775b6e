// A ModelClient over a chat model that takes messages and streams text, and nothing more: no stop sequences, no
// log-probabilities, no assistant prefill, no system role (VS Code's Language Model API, `vscode.lm`, is such a
// model; client/lm/vscodeModel.ts adapts it to ChatBackend). A program is continued as the chat path of openai.ts
// continues it: an instruction to reply with only the exact continuation, then the text so far, in user messages;
// the reply is made a bare continuation and the stop sequences are applied here (assembly.ts, as for openai.ts), the
// backend's stream given up at the first one. A completion is also cut at the same local budget as openai.ts's.
// The runner's own guards (checked continuations, the no-progress stop) apply to this model as to any other.
//
// A backend that calls functions (`tools`) continues a program over function calling as the tools API of openai.ts
// does (toolsApi.ts): the tools offered as functions, the text so far as a dialogue (a tool step the model's part
// has is an assistant message with the call and a user message with its result), and a call that comes back
// written as the program's tool step.
import type { CompletionChunk, CompletionRequest, CompletionResult, ModelClient } from './types';
import { streamResult } from './types';
import { CHAT_CONTINUE_SYSTEM_PROMPT } from './openai';
import { Assembly } from './assembly';
import { abortError } from './retry';
import {
  callId,
  FunctionNames,
  instructionOf,
  functionDefinitions,
  TOOLS_SYSTEM_PROMPT,
  type FunctionDefinition,
  type StreamedCall,
  type ToolDialogue,
  type ToolProgram,
} from './toolsApi';

/**
 * One message to a chat backend: VS Code's Language Model API has user and assistant messages only; an assistant
 * message may end in a function call, and a user message may carry a call's result.
 */
export interface ChatMessage {
  role: 'user' | 'assistant';
  text: string;
  /** An assistant message's function call (the arguments as JSON). */
  call?: { id: string; name: string; arguments: string };
  /** A user message's result of the call `id`. */
  result?: { id: string; output: string };
}

/** A function offered to the backend. */
export type ChatFunction = FunctionDefinition;

/** What a backend streams: text, or a function call (the reply ends with it). */
export type ChatPart = string | { call: StreamedCall };

/** A chat model as the caller has it: an identity for traces and a streamed reply to messages. */
export interface ChatBackend {
  /** `vscode-lm:copilot/gpt-4o`, ...: never a key. */
  readonly id: string;
  /** Whether the model calls functions (it is then offered the tool library's tools). */
  readonly callsFunctions?: boolean;
  /** Streams the reply; stops (and ends the request) when `signal` aborts. */
  send(
    messages: ChatMessage[],
    opts: { maxTokens?: number; temperature?: number; signal: AbortSignal; functions?: ChatFunction[] },
  ): AsyncIterable<ChatPart>;
}

/**
 * Why the features that read token log-probabilities are unavailable with such a model: said once, by the caller
 * that offers the model (the debugger's console, the evaluation's log).
 */
export const NO_LOGPROBS_NOTE =
  'the model gives no token log-probabilities: search passages are not reranked by negative log-likelihood, llm selection is not scored by log-probability, and alternatives are ranked by vote, not by NLL';

/** The messages that ask for the continuation of `text`: the instruction, then the text, as user messages. */
export function continuationMessages(text: string): ChatMessage[] {
  return [
    { role: 'user', text: CHAT_CONTINUE_SYSTEM_PROMPT },
    { role: 'user', text },
  ];
}

/** The messages of a continuation over function calling: the instruction, the prompt, then each tool turn. */
export function functionCallingMessages(d: ToolDialogue, names: FunctionNames): ChatMessage[] {
  const out: ChatMessage[] = [
    { role: 'user', text: TOOLS_SYSTEM_PROMPT },
    { role: 'user', text: d.prompt },
  ];
  d.turns.forEach((t, i) => {
    const id = callId(i);
    out.push({
      role: 'assistant',
      text: t.text,
      call: { id, name: names.functionOf(t.tool), arguments: JSON.stringify({ instruction: t.instruction }) },
    });
    out.push({ role: 'user', text: '', result: { id, output: t.output } });
  });
  if (d.tail) out.push({ role: 'assistant', text: d.tail });
  return out;
}

export class ChatContinuationModel implements ModelClient {
  readonly honoursStop = false;
  private readonly names: FunctionNames | undefined;

  /** `toolProgram`: the program language's reading of text as a dialogue, for a backend that calls functions. */
  constructor(
    private readonly backend: ChatBackend,
    private readonly toolProgram?: ToolProgram,
  ) {
    this.names = backend.callsFunctions && toolProgram ? new FunctionNames(toolProgram.tools) : undefined;
  }

  /** The request for `text`: over function calling when the backend calls functions and the text is a program. */
  private request(text: string): { messages: ChatMessage[]; functions?: ChatFunction[] } {
    const dialogue = this.names ? this.toolProgram!.dialogue(text) : null;
    if (!dialogue) return { messages: continuationMessages(text) };
    return {
      messages: functionCallingMessages(dialogue, this.names!),
      functions: functionDefinitions(this.toolProgram!.tools, this.names!),
    };
  }

  get id(): string {
    return this.backend.id;
  }

  async *stream(req: CompletionRequest): AsyncGenerator<CompletionChunk, CompletionResult, void> {
    if (req.signal?.aborted) throw abortError(req.signal);
    const ctrl = new AbortController();
    const onAbort = () => ctrl.abort(req.signal?.reason);
    req.signal?.addEventListener('abort', onAbort, { once: true });
    const whole = new Assembly(req.maxTokens);
    const at = whole.attempt(req.stop, req.prompt);
    try {
      const { messages, functions } = this.request(req.prompt);
      const parts = this.backend.send(messages, {
        maxTokens: req.maxTokens,
        temperature: req.temperature,
        signal: ctrl.signal,
        ...(functions ? { functions } : {}),
      });
      for await (const part of parts) {
        if (req.signal?.aborted) throw abortError(req.signal);
        if (typeof part !== 'string') {
          // A function call: what the reply held back, then the call written as the program's tool step; it ends.
          const names = this.names;
          if (names)
            yield* at.call(received =>
              this.toolProgram!.callText(req.prompt + received, names.toolOf(part.call.name), instructionOf(part.call.arguments)),
            );
          break;
        }
        yield* at.text(part);
        if (at.done) break;
      }
      if (req.signal?.aborted) throw abortError(req.signal);
      yield* at.end();
      return { ...whole.result(), finishReason: at.finishReason ?? 'stop' };
    } finally {
      req.signal?.removeEventListener('abort', onAbort);
      // The backend's request never outlives the completion (a stop sequence, the budget, the consumer gone).
      ctrl.abort();
    }
  }

  async complete(req: CompletionRequest): Promise<CompletionResult> {
    return streamResult(this.stream(req));
  }
}
