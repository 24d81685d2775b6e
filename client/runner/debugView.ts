// The Run and Debug view opened when an ART debug session starts, so that the first stop shows the Tool call scope
// open. VS Code creates the Variables view the first time its container opens, and by default it opens the container
// on the first break, after it focused the stopped frame: a view created then sets its input without expanding the
// first scope (it does so only for a frame focused while the view exists), so the paused call showed collapsed at
// the first stop and open at every later one. Opened at the start, the view exists before the first stop. A user who
// chose `debug.openDebug` keeps their choice; a run without debugging (Ctrl+F5, the Run lens) opens nothing; the
// keyboard focus stays where it was.
import * as vscode from 'vscode';
import { DEBUG_TYPE } from '../debugAdapter/protocol';

/** VS Code's Variables view (in the Run and Debug container). */
const VARIABLES_VIEW = 'workbench.debug.variablesView';

export function openDebugViewOnStart(): vscode.Disposable {
  return vscode.debug.onDidStartDebugSession(async session => {
    if (session.type !== DEBUG_TYPE || session.configuration.noDebug || session.parentSession) return;
    const openDebug = vscode.workspace.getConfiguration('debug').inspect<string>('openDebug');
    if ((openDebug?.workspaceFolderValue ?? openDebug?.workspaceValue ?? openDebug?.globalValue) !== undefined) return;
    // The Variables view opened as VS Code opens it at the break: without the keyboard focus (the person may be
    // typing anywhere). Its `.open` command is the workbench's own for every view (`View: Show Variables`).
    await vscode.commands.executeCommand(`${VARIABLES_VIEW}.open`, { preserveFocus: true });
  });
}
