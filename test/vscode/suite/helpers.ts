// Shared helpers for the integration tests: the workspace's files, the extension's API, and waiting on events
// (diagnostics arrive by onDidChangeDiagnostics; nothing here sleeps for a fixed time).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ArtStudioApi } from '../../../client/extension';

export const EXTENSION_ID = 'art-studio.art-studio';

export function workspaceUri(name: string): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'the tests need a workspace folder (test/vscode/workspace)');
  return vscode.Uri.joinPath(folder.uri, name);
}

export async function open(name: string): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument(workspaceUri(name));
  return vscode.window.showTextDocument(doc);
}

/** The extension's API once it is active and its language server has answered `initialize`. */
export async function artStudio(): Promise<ArtStudioApi> {
  const ext = vscode.extensions.getExtension<ArtStudioApi>(EXTENSION_ID);
  assert.ok(ext, `extension ${EXTENSION_ID} is not installed`);
  const api = await ext.activate();
  await api.serverReady;
  return api;
}

export function codeOf(d: vscode.Diagnostic): string {
  return typeof d.code === 'object' ? String(d.code.value) : String(d.code);
}

function describeDiagnostics(uri: vscode.Uri): string {
  const ds = vscode.languages.getDiagnostics(uri);
  return ds.length ? ds.map(d => `${d.range.start.line + 1}:${d.range.start.character + 1} ${codeOf(d)} ${d.message}`).join('\n  ') : '(none)';
}

/** Resolves with the document's diagnostics as soon as `accept` holds for them (now or after a change event). */
export function waitForDiagnostics(
  uri: vscode.Uri,
  accept: (ds: vscode.Diagnostic[]) => boolean,
  what: string,
  timeoutMs = 15_000,
): Promise<vscode.Diagnostic[]> {
  return new Promise((resolve, reject) => {
    const check = (): boolean => {
      const ds = vscode.languages.getDiagnostics(uri);
      if (!accept(ds)) return false;
      cleanup();
      resolve(ds);
      return true;
    };
    const sub = vscode.languages.onDidChangeDiagnostics(e => {
      if (e.uris.some(u => u.toString() === uri.toString())) check();
    });
    const timer = setTimeout(() => {
      cleanup();
      reject(
        new Error(
          `timed out after ${timeoutMs} ms waiting for ${what} in ${vscode.workspace.asRelativePath(uri)}; diagnostics now:\n  ${describeDiagnostics(uri)}`,
        ),
      );
    }, timeoutMs);
    const cleanup = (): void => {
      sub.dispose();
      clearTimeout(timer);
    };
    check();
  });
}

export const hasCode =
  (code: string) =>
  (ds: vscode.Diagnostic[]): boolean =>
    ds.some(d => codeOf(d) === code);
export const lacksCode =
  (code: string) =>
  (ds: vscode.Diagnostic[]): boolean =>
    !ds.some(d => codeOf(d) === code);

/**
 * Waits for a state that has no event of its own (extension activation, a status bar text), checking on each
 * turn of the event loop's timers. A timeout, not a sleep: it returns as soon as the condition holds.
 */
export async function until<T>(probe: () => T | undefined | false, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise(r => setTimeout(r, 25));
  }
}

/** Position of the `nth` (0-based) occurrence of `needle` in the document, plus `offsetInNeedle`. */
export function positionOf(doc: vscode.TextDocument, needle: string, offsetInNeedle = 0, nth = 0): vscode.Position {
  let at = -1;
  for (let i = 0; i <= nth; i++) {
    at = doc.getText().indexOf(needle, at + 1);
    assert.ok(at >= 0, `"${needle}" (occurrence ${nth + 1}) not found in ${vscode.workspace.asRelativePath(doc.uri)}`);
  }
  return doc.positionAt(at + offsetInNeedle);
}

/** Line number (0-based) of the first line starting with `prefix`, after `fromLine`. */
export function lineStartingWith(doc: vscode.TextDocument, prefix: string, fromLine = 0): number {
  for (let l = fromLine; l < doc.lineCount; l++) if (doc.lineAt(l).text.startsWith(prefix)) return l;
  assert.fail(`no line starting with "${prefix}" in ${vscode.workspace.asRelativePath(doc.uri)}`);
}

/** Discards unsaved edits and closes every editor, so each test starts from the files on disk. */
/** Writes a file of the test workspace. */
export async function writeWorkspaceFile(name: string, text: string): Promise<void> {
  await vscode.workspace.fs.writeFile(workspaceUri(name), new TextEncoder().encode(text));
}

/** A suite's end: its listeners disposed and the debug session it may have left running stopped. */
export async function disposeAndStopDebugging(subscriptions: vscode.Disposable[]): Promise<void> {
  for (const s of subscriptions) s.dispose();
  if (vscode.debug.activeDebugSession) await vscode.debug.stopDebugging();
}

export async function revertAndCloseAll(): Promise<void> {
  for (const doc of vscode.workspace.textDocuments) {
    if (doc.isDirty) {
      await vscode.window.showTextDocument(doc);
      await vscode.commands.executeCommand('workbench.action.files.revert');
    }
  }
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
}

/** Plain text of a hover's contents. */
export function hoverText(hovers: vscode.Hover[]): string {
  return hovers
    .flatMap(h => h.contents)
    .map(c => (typeof c === 'string' ? c : c.value))
    .join('\n');
}
