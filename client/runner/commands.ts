// The runner's commands: the API key in SecretStorage, overriding the paused tool call's output, saving a finished
// (possibly corrected) program into a task library as a demonstration (offering first the library it came from, also
// for a replayed trace), and opening a trace.
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { appendDemonstrationEdit, demonstrationText, DemonstrationError } from '../../core/prompt/demonstration';
import { AlternativesRequest, ChooseAlternativeRequest, DEBUG_TYPE, SetToolOutputRequest, StateRequest } from '../debugAdapter/protocol';
import type { ProgramStreams } from '../views/streamEditor';
import type { TraceView } from '../views/traceView';
import { typedText } from '../../core/common/typedText';
import { readSetting } from '../settings';
import { plural } from '../../core/common/counts';
import { programOfRun } from '../../core/trace/history';

/** The SecretStorage key of the model API key. */
export const API_KEY_SECRET = 'art.model.apiKey';

export async function setApiKey(secrets: vscode.SecretStorage, value?: string): Promise<void> {
  const key =
    value ??
    (await vscode.window.showInputBox({
      title: 'ART: Set API Key',
      prompt:
        "The key of the OpenAI-compatible endpoint, kept in VS Code's secret storage (never in settings, logs or traces). Leave empty to remove it.",
      password: true,
      ignoreFocusOut: true,
    }));
  if (key === undefined) return;
  if (key.trim() === '') {
    await secrets.delete(API_KEY_SECRET);
    void vscode.window.showInformationMessage(
      'ART Studio: the API key was removed; runs use the environment variable named by "art.model.apiKeyEnv".',
    );
  } else {
    await secrets.store(API_KEY_SECRET, key.trim());
    void vscode.window.showInformationMessage('ART Studio: the API key is stored in secret storage.');
  }
}

function artSession(): vscode.DebugSession | undefined {
  const s = vscode.debug.activeDebugSession;
  return s?.type === DEBUG_TYPE ? s : undefined;
}

/** The thread focused in the Call Stack view (a sample of a self-consistency run); none: the adapter picks the paused one. */
function focusedThread(session: vscode.DebugSession): { threadId?: number } {
  const item = vscode.debug.activeStackItem;
  return item && item.session.id === session.id ? { threadId: item.threadId } : {};
}

/** Sets the output the model will see for the tool call the active session is paused at. */
export async function overrideToolOutput(text?: string): Promise<boolean> {
  const session = artSession();
  if (!session) {
    void vscode.window.showWarningMessage('ART Studio: no ART debug session is active.');
    return false;
  }
  const thread = focusedThread(session);
  const state = (await session.customRequest(StateRequest.command, thread)) as StateRequest.Response;
  if (state.state !== 'paused' || !state.call) {
    void vscode.window.showWarningMessage('ART Studio: the run is not paused at a tool call.');
    return false;
  }
  const call = state.call;
  const value =
    text ??
    (await vscode.window.showInputBox({
      title: `Override the output of [${call.tool}]`,
      prompt: `What the model sees as the output${call.error !== undefined ? ` (the tool failed: ${call.error})` : ''}. A "JSON string" gives several lines.`,
      value: call.override ?? call.output ?? '',
      ignoreFocusOut: true,
    }));
  if (value === undefined) return false;
  await session.customRequest(SetToolOutputRequest.command, { text: typedText(value), ...thread } satisfies SetToolOutputRequest.Arguments);
  return true;
}

/** How many continuations "ART: Sample Alternatives" asks for. */
const ALTERNATIVES_K = 4;

/**
 * Asks the paused session for `k` continuations of the next step, shows them best first with their scores in a
 * QuickPick, and continues with the one picked (the others stay in the trace as branches). Returns the index picked.
 */
export async function sampleAlternatives(k = ALTERNATIVES_K): Promise<number | undefined> {
  const session = artSession();
  if (!session) {
    void vscode.window.showWarningMessage('ART Studio: no ART debug session is active.');
    return undefined;
  }
  let list: AlternativesRequest.Response['alternatives'];
  try {
    const r = (await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `ART: sampling ${k} continuations of the next step…` },
      () => session.customRequest(AlternativesRequest.command, { k, ...focusedThread(session) } satisfies AlternativesRequest.Arguments),
    )) as AlternativesRequest.Response;
    list = r.alternatives;
  } catch (e) {
    void vscode.window.showWarningMessage(`ART Studio: ${(e as Error).message}`);
    return undefined;
  }
  const items = list.map((a, index) => ({
    index,
    label: a.text.split('\n').find(l => l.trim()) ?? '(empty)',
    description: `${a.nll !== null ? `NLL ${a.nll.toFixed(3)}` : 'no logprobs'} · ${a.votes} of ${plural(k, 'sample')}`,
    detail: a.text.includes('\n') ? a.text.replace(/\n/g, ' ⏎ ') : undefined,
  }));
  const picked = await vscode.window.showQuickPick(items, {
    title: 'ART: Sample Alternatives (best first)',
    placeHolder: 'Continue with…',
    matchOnDetail: true,
  });
  if (!picked) return undefined;
  await session.customRequest(ChooseAlternativeRequest.command, {
    index: picked.index,
    ...focusedThread(session),
  } satisfies ChooseAlternativeRequest.Arguments);
  return picked.index;
}

/**
 * Appends the last finished ART run's program to a task library. One WorkspaceEdit on the library's document
 * (undoable, on top of any unsaved edits; the file is not saved), so the program can be corrected there.
 */
export async function saveAsDemonstration(streams: ProgramStreams, target?: vscode.Uri): Promise<vscode.Range | undefined> {
  const run = streams.last;
  if (!run) {
    void vscode.window.showWarningMessage('ART Studio: no run has finished yet: run a program to the end first.');
    return undefined;
  }
  const text = run.text;
  let program: string;
  try {
    program = demonstrationText({ kind: run.kind, text });
  } catch (e) {
    if (e instanceof DemonstrationError) {
      void vscode.window.showWarningMessage(`ART Studio: cannot save this run as a demonstration: ${e.message}.`);
      return undefined;
    }
    throw e;
  }
  const library = target ?? (await pickLibrary(sourceLibrary(run)));
  if (!library) return undefined;
  const doc = await vscode.workspace.openTextDocument(library);
  const e = appendDemonstrationEdit(doc.getText(), program);
  const range = new vscode.Range(doc.positionAt(e.span.start), doc.positionAt(e.span.end));
  const edit = new vscode.WorkspaceEdit();
  edit.replace(doc.uri, range, e.newText, { label: 'Save as demonstration', needsConfirmation: false });
  if (!(await vscode.workspace.applyEdit(edit))) {
    void vscode.window.showErrorMessage(`ART Studio: could not edit ${vscode.workspace.asRelativePath(library)}.`);
    return undefined;
  }
  const start = doc.positionAt(e.span.start);
  const inserted = new vscode.Range(start, doc.positionAt(doc.offsetAt(start) + e.newText.length));
  await vscode.window.showTextDocument(doc, { selection: new vscode.Range(inserted.start, inserted.start), preview: false });
  vscode.window.activeTextEditor?.revealRange(inserted, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  void vscode.window.showInformationMessage(`ART Studio: the program was added to ${basename(library.fsPath)} (unsaved; Undo removes it).`);
  return inserted;
}

/**
 * The task library a finished run came from: its program, or for a replay of a trace (an evaluated example's, a run
 * of the history) the library the run history says that trace's run came from.
 */
function sourceLibrary(run: { language: string; program: string }): vscode.Uri | undefined {
  if (run.language === 'art') return vscode.Uri.file(run.program);
  if (run.language !== 'trace') return undefined;
  const root = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(run.program))?.uri.fsPath;
  const program = root ? programOfRun(run.program, root) : undefined;
  return program?.endsWith('.art') && existsSync(program) ? vscode.Uri.file(program) : undefined;
}

async function pickLibrary(source: vscode.Uri | undefined): Promise<vscode.Uri | undefined> {
  const files = await vscode.workspace.findFiles('**/*.art', '**/node_modules/**', 200);
  const uris = [...(source ? [source] : []), ...files.filter(f => f.fsPath !== source?.fsPath)];
  if (!uris.length) {
    void vscode.window.showWarningMessage('ART Studio: there is no task library (.art) in the workspace to save the program into.');
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(
    uris.map(uri => ({
      label: vscode.workspace.asRelativePath(uri),
      description: uri.fsPath === source?.fsPath ? 'the library the run came from' : undefined,
      uri,
    })),
    { title: 'Save as Demonstration: into which task library?', ignoreFocusOut: true },
  );
  return pick?.uri;
}

/** Opens a trace in the ART Trace view: the given one, the last run's, or one picked from disk. */
export async function openTrace(view: TraceView, streams: ProgramStreams, uri?: vscode.Uri): Promise<void> {
  let target = uri;
  if (!target && streams.last?.tracePath) {
    const last = vscode.Uri.file(streams.last.tracePath);
    const choice = await vscode.window.showQuickPick(
      [
        { label: `The last run's trace`, description: streams.last.sessionName, uri: last },
        { label: 'Open a trace file…', uri: undefined },
      ],
      { title: 'ART: Open Trace' },
    );
    if (!choice) return;
    target = choice.uri;
  }
  if (!target) {
    // Start where the runs are kept (the workspace's runs folder, else the last run's folder).
    const folder = vscode.workspace.workspaceFolders?.[0];
    const runsFolder = folder ? vscode.Uri.joinPath(folder.uri, readSetting('runs.folder', folder.uri)) : undefined;
    const lastFolder = streams.last?.tracePath ? vscode.Uri.file(streams.last.tracePath.replace(/[\\/][^\\/]*$/, '')) : undefined;
    const picked = await vscode.window.showOpenDialog({
      defaultUri: runsFolder ?? lastFolder,
      canSelectMany: false,
      filters: { 'ART run traces': ['jsonl'], 'All files': ['*'] },
      title: 'ART: Open Trace',
    });
    target = picked?.[0];
  }
  if (!target) return;
  try {
    const { records, errors } = await view.open(target);
    if (!records)
      void vscode.window.showWarningMessage(
        `ART Studio: ${vscode.workspace.asRelativePath(target)} holds no trace records${errors.length ? ` (line ${errors[0].line}: ${errors[0].message})` : ''}.`,
      );
  } catch (e) {
    void vscode.window.showErrorMessage(`ART Studio: cannot open the trace: ${(e as Error).message}`);
  }
}
