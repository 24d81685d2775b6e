// Models of VS Code's Language Model API (`vscode.lm`: GitHub Copilot's, or any extension's) as the run's model
// (the run option `modelSource: "vscode"`): the chosen model, found by id, family or name, adapted to core's
// ChatBackend (core/model/chatContinuation.ts), which continues programs over chat without stop sequences,
// log-probabilities or prefill and, when the model calls tools, over its function calling. Every request carries a
// justification, so VS Code's consent dialog (shown once, on the first request of a run the person started) says
// why ART Studio asks; a refusal or a vanished model is one line that says what to do.
import * as vscode from 'vscode';
import type { ChatBackend, ChatMessage, ChatPart } from '../../core/model/chatContinuation';

/** A model's identity in traces and results headers: `vscode-lm:VENDOR/ID` (never a key). */
export const modelId = (m: Pick<vscode.LanguageModelChat, 'vendor' | 'id'>) => `vscode-lm:${m.vendor}/${m.id}`;

/** How a model is shown to a person: its name, and its vendor. */
export const modelLabel = (m: Pick<vscode.LanguageModelChat, 'name' | 'vendor'>) => `${m.name} (${m.vendor})`;

/** The model of `all` that `wanted` names (id, family, name or vendor/id, any case; empty: the first), if any. */
export function pickModel<M extends Pick<vscode.LanguageModelChat, 'id' | 'family' | 'name' | 'vendor'>>(
  all: readonly M[],
  wanted: string,
): M | undefined {
  const w = wanted.trim().toLowerCase();
  return w ? all.find(m => [m.id, m.family, m.name, `${m.vendor}/${m.id}`].some(x => x.toLowerCase() === w)) : all[0];
}

/** The models VS Code offers, and the one `wanted` names (pickModel). */
export async function findModel(wanted: string): Promise<{ model?: vscode.LanguageModelChat; all: vscode.LanguageModelChat[] }> {
  const all = await vscode.lm.selectChatModels();
  return { model: pickModel(all, wanted), all };
}

/** Why no model can be used, as one line for the run's error. */
export function noModelMessage(wanted: string, all: readonly vscode.LanguageModelChat[]): string {
  if (!all.length)
    return 'the model source is "vscode" but VS Code offers no language model (install and sign in to an extension that provides one, such as GitHub Copilot), or choose the endpoint in the status bar\'s run mode item';
  return `no language model of VS Code is "${wanted}" (art.model.vscodeModel): VS Code offers ${all.map(m => `"${m.id}"`).join(', ')}; choose one in the status bar's run mode item`;
}

/** The messages as the Language Model API takes them: text, a call in an assistant message, a result in a user one. */
export function lmMessages(messages: readonly ChatMessage[]): vscode.LanguageModelChatMessage[] {
  return messages.map(m => {
    if (m.role === 'assistant') {
      const parts: (vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart)[] = m.text ? [new vscode.LanguageModelTextPart(m.text)] : [];
      if (m.call) parts.push(new vscode.LanguageModelToolCallPart(m.call.id, m.call.name, parseArguments(m.call.arguments)));
      return vscode.LanguageModelChatMessage.Assistant(parts);
    }
    const parts: (vscode.LanguageModelTextPart | vscode.LanguageModelToolResultPart)[] = [];
    if (m.result) parts.push(new vscode.LanguageModelToolResultPart(m.result.id, [new vscode.LanguageModelTextPart(m.result.output)]));
    if (m.text) parts.push(new vscode.LanguageModelTextPart(m.text));
    return vscode.LanguageModelChatMessage.User(parts);
  });
}

function parseArguments(args: string): object {
  try {
    const v = JSON.parse(args) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? v : { instruction: String(v) };
  } catch {
    return { instruction: args };
  }
}

/** The error of a request as one line: VS Code's reason (no permission, not found, blocked) and what to do. */
export function requestError(model: vscode.LanguageModelChat, e: unknown): Error {
  const name = modelLabel(model);
  if (e instanceof vscode.LanguageModelError) {
    if (e.code === vscode.LanguageModelError.NoPermissions.name)
      return new Error(
        `${name}: VS Code did not give ART Studio access to the model (${e.message}); allow it when VS Code asks, or choose another model`,
      );
    if (e.code === vscode.LanguageModelError.NotFound.name)
      return new Error(`${name}: the model is no longer available (${e.message}); choose another in the status bar`);
    if (e.code === vscode.LanguageModelError.Blocked.name)
      return new Error(`${name}: the request was blocked (${e.message}), e.g. a quota; try again later`);
  }
  return new Error(`${name}: ${(e as Error)?.message ?? String(e)}`);
}

/** A model of the Language Model API as core's ChatBackend; `justification` is said in VS Code's consent dialog. */
export function chatBackend(model: vscode.LanguageModelChat, justification: string): ChatBackend {
  const callsFunctions = toolCalling(model);
  return {
    id: modelId(model),
    callsFunctions,
    async *send(messages, opts): AsyncGenerator<ChatPart> {
      const cancel = new vscode.CancellationTokenSource();
      const onAbort = () => cancel.cancel();
      opts.signal.addEventListener('abort', onAbort, { once: true });
      try {
        let response: vscode.LanguageModelChatResponse;
        try {
          response = await model.sendRequest(
            lmMessages(messages),
            {
              justification,
              // Not every provider reads these: the runner's local budget and stop sequences hold either way.
              modelOptions: {
                ...(opts.temperature !== undefined ? { temperature: opts.temperature } : {}),
                ...(opts.maxTokens ? { max_tokens: opts.maxTokens } : {}),
              },
              ...(opts.functions?.length
                ? {
                    tools: opts.functions.map(f => ({ name: f.name, description: f.description, inputSchema: f.parameters })),
                    toolMode: vscode.LanguageModelChatToolMode.Auto,
                  }
                : {}),
            },
            cancel.token,
          );
        } catch (e) {
          throw requestError(model, e);
        }
        for await (const part of response.stream) {
          if (part instanceof vscode.LanguageModelTextPart) yield part.value;
          else if (part instanceof vscode.LanguageModelToolCallPart) {
            yield { call: { id: part.callId, name: part.name, arguments: JSON.stringify(part.input ?? {}) } };
            return;
          }
        }
      } finally {
        opts.signal.removeEventListener('abort', onAbort);
        cancel.cancel();
        cancel.dispose();
      }
    },
  };
}

/**
 * Whether the model calls tools. The API's LanguageModelChat does not say it (only a provider's
 * LanguageModelChatInformation does); VS Code puts `capabilities` on the object it hands out, read where present.
 */
function toolCalling(model: vscode.LanguageModelChat): boolean {
  const caps = (model as { capabilities?: { supportsToolCalling?: boolean; toolCalling?: boolean | number } }).capabilities;
  return !!(caps?.supportsToolCalling || caps?.toolCalling);
}

/** The model `wanted` names as a ChatBackend (core's ChatModelProvider); rejects with noModelMessage when there is none. */
export async function provideChatModel(wanted: string, justification: string): Promise<ChatBackend> {
  const { model, all } = await findModel(wanted);
  if (!model) throw new Error(noModelMessage(wanted, all));
  return chatBackend(model, justification);
}
