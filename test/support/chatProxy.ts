// A chat model of the kind VS Code's Language Model API gives (core/model/chatContinuation.ts's ChatBackend: user and
// assistant messages, function calls and their results, no stop sequences, no log-probabilities) served by an
// OpenAI-compatible chat endpoint of test/support (a model zoo habit, test/support/modelZoo.ts): the messages become a
// streamed chat request, the deltas come back as text and, for a function call, the call once it is whole. The unit
// tests use it as the caller's model; the test-only provider extension (test/vscode/lm-provider/) serves it to VS Code
// as a Language Model API model, so runs in the editor meet the zoo's habits through the real API.
import type { ChatBackend, ChatFunction, ChatMessage, ChatPart } from '../../core/model/chatContinuation';
import { ToolCallAccumulator } from '../../core/model/toolsApi';

type OpenAIMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[] }
  | { role: 'tool'; tool_call_id: string; content: string };

/** The messages as the chat completions API has them: a result is a `tool` message. */
export function openAIMessages(messages: readonly ChatMessage[]): OpenAIMessage[] {
  return messages.flatMap((m): OpenAIMessage[] => {
    if (m.role === 'assistant')
      return [
        {
          role: 'assistant',
          content: m.text || null,
          ...(m.call
            ? { tool_calls: [{ id: m.call.id, type: 'function' as const, function: { name: m.call.name, arguments: m.call.arguments } }] }
            : {}),
        },
      ];
    const out: OpenAIMessage[] = m.result ? [{ role: 'tool', tool_call_id: m.result.id, content: m.result.output }] : [];
    if (m.text) out.push({ role: 'user', content: m.text });
    return out;
  });
}

export interface ChatRequestOptions {
  functions?: readonly ChatFunction[];
  temperature?: number;
  maxTokens?: number;
  signal?: AbortSignal;
}

/** Streams a chat completion of `messages` from the endpoint: text deltas, then the first function call when one came. */
export async function* proxyChat(
  baseURL: string,
  model: string,
  messages: readonly ChatMessage[],
  opts: ChatRequestOptions = {},
): AsyncGenerator<ChatPart> {
  const res = await fetch(`${baseURL.replace(/\/+$/, '')}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    signal: opts.signal,
    body: JSON.stringify({
      model,
      messages: openAIMessages(messages),
      stream: true,
      ...(opts.temperature !== undefined ? { temperature: opts.temperature } : {}),
      ...(opts.maxTokens !== undefined ? { max_tokens: opts.maxTokens } : {}),
      ...(opts.functions?.length ? { tools: opts.functions.map(f => ({ type: 'function', function: f })), tool_choice: 'auto' } : {}),
    }),
  });
  if (!res.ok || !res.body) throw new Error(`the test endpoint answered ${res.status}: ${await res.text()}`);
  const calls = new ToolCallAccumulator();
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const bytes of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(bytes, { stream: true });
    for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
      const event = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const data = event.replace(/^data: /, '');
      if (!data.startsWith('{')) continue;
      const delta = (JSON.parse(data) as { choices?: { delta?: { content?: string; tool_calls?: [] } }[] }).choices?.[0]?.delta;
      if (delta?.content) yield delta.content;
      if (delta?.tool_calls) calls.push(delta.tool_calls);
    }
  }
  const call = calls.finish();
  if (call) yield { call };
}

/** The zoo endpoint at `baseURL` as the caller's chat model (`callsFunctions`: it is offered the tools). */
export function proxiedChatModel(baseURL: string, opts: { id?: string; callsFunctions?: boolean } = {}): ChatBackend {
  return {
    id: opts.id ?? 'vscode-lm:test/zoo',
    callsFunctions: opts.callsFunctions ?? false,
    send: (messages, o) => proxyChat(baseURL, 'zoo', messages, o),
  };
}
