// The editor's language model tools (`contributes.languageModelTools`, generated from the agent tools' declarations
// in core/agentTools/ by scripts/gen-manifest.mjs): the second shell over those tools, beside `art mcp`. Each tool
// named in package.json is registered with vscode.lm.registerTool and, when the agent calls it, runs its declaration
// (in the runner bundle, loaded on first use) on the editor's host (editorHost.ts): paths confined to the workspace
// folders, the person's settings under the caller's run options, the same caps as art mcp's defaults, the key as a
// run reads it, the debug session the person sees, and the views where the work appears. The tools that run code
// or call a model ask first (prepareInvocation); none acts in an untrusted workspace.
import * as vscode from 'vscode';
import type { RunnerApi } from '../runner/activate';
import type { ArtSettings } from '../settings';
import { ArtSessions } from './sessions';
import { editorHost } from './editorHost';

export const UNTRUSTED_TOOL_MESSAGE =
  'ART Studio: this workspace is not trusted: its language model tools do nothing until it is (Manage Workspace Trust).';

export interface LmToolsDeps {
  runner: RunnerApi;
  log: vscode.LogOutputChannel;
  settings: (scope?: vscode.ConfigurationScope) => ArtSettings;
  /** The tools' names, as package.json declares them (`contributes.languageModelTools`). */
  names: readonly string[];
}

/** Registers the tools package.json declares, each over its declaration. */
export function registerLanguageModelTools(deps: LmToolsDeps): vscode.Disposable {
  const sessions = new ArtSessions();
  // The places for calls that run programs, shared by every tool of the editor (art mcp's --max-runs default).
  let slots: InstanceType<ReturnType<RunnerApi['services']>['agentTools']['RunSlots']> | undefined;
  const toolOf = (name: string) => {
    const m = deps.runner.services().agentTools;
    const tool = m.toolOfEditorName(name);
    if (!tool) throw new Error(`${name}: no agent tool of this name (package.json lags core/agentTools: run npm run gen:manifest)`);
    slots ??= new m.RunSlots(m.defaultLimits().runs);
    return { m, tool, slots };
  };

  const registered = deps.names.map(name =>
    vscode.lm.registerTool<Record<string, unknown>>(name, {
      prepareInvocation: o => {
        const { tool } = toolOf(name);
        const input = o.input ?? {};
        const confirm = tool.editor.confirm?.(input as never);
        return {
          invocationMessage: tool.editor.invocation(input as never),
          ...(confirm ? { confirmationMessages: confirm } : {}),
        };
      },
      invoke: async (o, token) => {
        if (!vscode.workspace.isTrusted) throw new Error(UNTRUSTED_TOOL_MESSAGE);
        const { m, tool, slots } = toolOf(name);
        const controller = new AbortController();
        const cancel = token.onCancellationRequested(() => controller.abort(new Error('cancelled')));
        try {
          const call = (report: (message: string) => void, signal: AbortSignal) =>
            m.invokeTool(tool, o.input ?? {}, editorHost({ ...deps, sessions, m, slots, signal, progress: report, tool: name }));
          // A tool that runs programs shows a notification with its progress, whose Cancel stops it as the chat's does.
          const answer = tool.runsPrograms
            ? await vscode.window.withProgress(
                { location: vscode.ProgressLocation.Notification, title: `ART: ${tool.title}`, cancellable: true },
                (progress, stop) => {
                  const sub = stop.onCancellationRequested(() => controller.abort(new Error('cancelled')));
                  return call(message => progress.report({ message }), controller.signal).finally(() => sub.dispose());
                },
              )
            : await call(() => {}, controller.signal);
          if (answer.isError) throw new Error(answer.text);
          return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(answer.text)]);
        } finally {
          cancel.dispose();
        }
      },
    }),
  );
  return vscode.Disposable.from(sessions, ...registered);
}
