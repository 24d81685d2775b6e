// "Run" and "Debug" above each runnable program of a task library and each agent of a spec (the server's list).
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { isCotPrompt } from '../../core/launch/companions';
import { unitsOf } from './programs';

export const RUN_COMMAND = 'art.runProgram';
export const DEBUG_COMMAND = 'art.debugProgram';

export class RunCodeLenses implements vscode.CodeLensProvider {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  constructor(
    private readonly client: LanguageClient | undefined,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** The server (re)started or its tools changed: ask again. */
  refresh(): void {
    this.changed.fire();
  }

  async provideCodeLenses(doc: vscode.TextDocument): Promise<vscode.CodeLens[]> {
    // A MultiTool-CoT prompt (NAME.cot.txt) is one runnable unit, the whole file: its lenses sit on its first line.
    if (isCotPrompt(doc.uri.path)) {
      const top = new vscode.Range(0, 0, 0, 0);
      return [
        new vscode.CodeLens(top, {
          title: '$(play) Run',
          tooltip: 'Run this MultiTool-CoT prompt to the end',
          command: RUN_COMMAND,
          arguments: [doc.uri],
        }),
        new vscode.CodeLens(top, {
          title: '$(debug-alt) Debug',
          tooltip: 'Debug this MultiTool-CoT prompt: pause at every <<Tool>> trigger',
          command: DEBUG_COMMAND,
          arguments: [doc.uri],
        }),
      ];
    }
    const units = await unitsOf(doc, this.client, this.log);
    return units
      .filter(u => !u.notRunnable)
      .flatMap(u => {
        const range = new vscode.Range(u.line, 0, u.line, 0);
        const what = u.kind === 'agent' ? `agent ${u.title}` : `program ${u.task} (${u.title})`;
        return [
          new vscode.CodeLens(range, { title: '$(play) Run', tooltip: `Run ${what} to the end`, command: RUN_COMMAND, arguments: [doc.uri, u.task] }),
          new vscode.CodeLens(range, {
            title: '$(debug-alt) Debug',
            tooltip: `Debug ${what}: pause at every tool call`,
            command: DEBUG_COMMAND,
            arguments: [doc.uri, u.task],
          }),
        ];
      });
  }

  dispose(): void {
    this.changed.dispose();
  }
}
