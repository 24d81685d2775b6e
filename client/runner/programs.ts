// The runnable units of an open document, as the language server lists them (`art/programs`): the programs of a
// task library and the agents of a spec. The CodeLenses, the dynamic debug configurations and F5 all use this one
// list, so a program offered is a program that runs, and one that cannot run says why.
import * as vscode from 'vscode';
import { languageOf } from '../../core/common/language';
import type { LanguageClient } from 'vscode-languageclient/node';
import { programsRequest } from '../protocol';
import { programsOf } from '../../server/protocol';

export interface RunUnit {
  /** The launch configuration's `task`: a program index, or an agent's index. */
  task: number;
  title: string;
  kind: 'program' | 'agent';
  /** The line the CodeLens sits on. */
  line: number;
  range: vscode.Range;
  /** Why it cannot run (the `%s` template, a program with no `Input:`); undefined when it can. */
  notRunnable?: string;
}

const LSP_TIMEOUT_MS = 3000;

export function isRunnable(doc: vscode.TextDocument): boolean {
  const language = languageOf(doc.uri.path, doc.languageId);
  return language !== undefined && language !== 'trace';
}

/** The server's list of a document's units and the document version it was made from. */
export interface UnitsAnswer {
  version: number;
  units: RunUnit[];
}

/**
 * The units of `doc` as the server lists them, however long it takes to answer (until `token` is cancelled);
 * undefined when the server is not running, knows no such document (yet) or the request failed (a line in the log).
 * The answer may be for an older version of the document than `doc.version`.
 */
export async function askUnits(
  doc: vscode.TextDocument,
  client: LanguageClient | undefined,
  log?: vscode.LogOutputChannel,
  token?: vscode.CancellationToken,
): Promise<UnitsAnswer | undefined> {
  if (!client?.isRunning()) return undefined;
  try {
    const answer = await client.sendRequest(programsRequest, { textDocument: { uri: doc.uri.toString() } }, token);
    if (!answer) return undefined;
    const units = programsOf(answer).map(p => ({
      task: p.index,
      title: p.title,
      kind: p.kind,
      line: p.headerLine,
      range: new vscode.Range(p.range.start.line, p.range.start.character, p.range.end.line, p.range.end.character),
      notRunnable: p.notRunnable,
    }));
    return { version: answer.version, units };
  } catch (e) {
    if (!token?.isCancellationRequested) log?.warn(`art/programs failed for ${doc.uri.fsPath}: ${e instanceof Error ? e.message : String(e)}`);
    return undefined;
  }
}

/**
 * The units of `doc` from the language server; an empty list (and a line in the log) when it is not running or does
 * not answer in time, or when the document changed while it answered.
 */
export async function unitsOf(doc: vscode.TextDocument, client: LanguageClient | undefined, log?: vscode.LogOutputChannel): Promise<RunUnit[]> {
  if (!client?.isRunning()) return [];
  const cancel = new vscode.CancellationTokenSource();
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const answer = await Promise.race([
      askUnits(doc, client, log, cancel.token),
      new Promise<'timeout'>(resolve => (timer = setTimeout(() => resolve('timeout'), LSP_TIMEOUT_MS))),
    ]);
    if (answer === 'timeout') {
      log?.warn(`art/programs: no answer within ${LSP_TIMEOUT_MS} ms for ${doc.uri.fsPath}`);
      return [];
    }
    return answer?.version === doc.version ? answer.units : [];
  } finally {
    clearTimeout(timer);
    cancel.cancel();
    cancel.dispose();
  }
}

/** The unit at `position`: the one containing it, else the nearest one above it, else the first. */
export function unitAt(units: RunUnit[], position: vscode.Position): RunUnit | undefined {
  const inside = units.find(u => u.range.contains(position));
  if (inside) return inside;
  const above = units.filter(u => u.range.start.isBeforeOrEqual(position));
  return above[above.length - 1] ?? units[0];
}
