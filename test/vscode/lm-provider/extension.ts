// Test only: a provider of VS Code's Language Model API (`vscode.lm.registerLanguageModelChatProvider`, vendor
// `art-test`) whose models are the scripted OpenAI-compatible endpoints of test/support, listed in the setting
// `artTestModels.endpoints`. A request's messages go to the endpoint as a streamed chat completion
// (test/support/chatProxy.ts) and its text and function call come back as the API's response parts, so ART Studio's
// runs on a "VS Code" model meet the zoo's habits (wrappers, echoes, reasoning, refusals, ignored stops, calls) through
// the real API. Built by test/vscode/build-suite.mjs into dist/extension.js; loaded beside ART Studio by the
// integration and end-to-end harnesses.
import * as vscode from 'vscode';
import type { ChatMessage } from '../../../core/model/chatContinuation';
import { proxyChat } from '../../support/chatProxy';

interface Endpoint {
  id: string;
  name?: string;
  baseURL: string;
  toolCalling?: boolean;
}

type Info = vscode.LanguageModelChatInformation & { baseURL: string };

const endpoints = (): Endpoint[] => vscode.workspace.getConfiguration('artTestModels').get<Endpoint[]>('endpoints') ?? [];

/** A request's messages in the neutral shape chatProxy.ts sends: text, a call, a call's result. */
function messagesOf(messages: readonly vscode.LanguageModelChatRequestMessage[]): ChatMessage[] {
  return messages.map(m => {
    const out: ChatMessage = { role: m.role === vscode.LanguageModelChatMessageRole.Assistant ? 'assistant' : 'user', text: '' };
    for (const part of m.content) {
      if (part instanceof vscode.LanguageModelTextPart) out.text += part.value;
      else if (part instanceof vscode.LanguageModelToolCallPart)
        out.call = { id: part.callId, name: part.name, arguments: JSON.stringify(part.input) };
      else if (part instanceof vscode.LanguageModelToolResultPart)
        out.result = {
          id: part.callId,
          output: part.content.map(c => (c instanceof vscode.LanguageModelTextPart ? c.value : '')).join(''),
        };
    }
    return out;
  });
}

export function activate(context: vscode.ExtensionContext): void {
  const changed = new vscode.EventEmitter<void>();
  const provider: vscode.LanguageModelChatProvider<Info> = {
    onDidChangeLanguageModelChatInformation: changed.event,
    provideLanguageModelChatInformation: () =>
      endpoints().map(e => ({
        id: e.id,
        name: e.name ?? e.id,
        family: e.id,
        version: '1',
        maxInputTokens: 100_000,
        maxOutputTokens: 4_096,
        capabilities: { toolCalling: !!e.toolCalling },
        baseURL: e.baseURL,
      })),
    async provideLanguageModelChatResponse(model, messages, options, progress, token) {
      const ctrl = new AbortController();
      const sub = token.onCancellationRequested(() => ctrl.abort());
      try {
        const functions = options.tools?.map(t => ({
          name: t.name,
          description: t.description,
          parameters: (t.inputSchema ?? {}) as Record<string, unknown>,
        }));
        for await (const part of proxyChat(model.baseURL, model.id, messagesOf(messages), { functions, signal: ctrl.signal })) {
          if (typeof part === 'string') progress.report(new vscode.LanguageModelTextPart(part));
          else
            progress.report(
              new vscode.LanguageModelToolCallPart(part.call.id ?? 'call', part.call.name, JSON.parse(part.call.arguments || '{}') as object),
            );
        }
      } finally {
        sub.dispose();
      }
    },
    provideTokenCount: async (_model, text) => Math.ceil((typeof text === 'string' ? text : JSON.stringify(text.content)).length / 4),
  };
  context.subscriptions.push(
    changed,
    vscode.lm.registerLanguageModelChatProvider('art-test', provider),
    vscode.workspace.onDidChangeConfiguration(e => e.affectsConfiguration('artTestModels') && changed.fire()),
  );
}
