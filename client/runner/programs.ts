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

/**
 * The units of `doc` from the language server; an empty list (and a line in the log) when it is not running or does
 * not answer in time, or when the document changed while it answered.
 */
export async function unitsOf(doc: vscode.TextDocument, client: LanguageClient | undefined, log?: vscode.LogOutputChannel): Promise<RunUnit[]> {
  if (!client?.isRunning()) return [];
  try {
    const answer = await Promise.race([
      client.sendRequest(programsRequest, { textDocument: { uri: doc.uri.toString() } }),
      new Promise<'timeout'>(resolve => setTimeout(() => resolve('timeout'), LSP_TIMEOUT_MS)),
    ]);
    if (answer === 'timeout') {
      log?.warn(`art/programs: no answer within ${LSP_TIMEOUT_MS} ms for ${doc.uri.fsPath}`);
      return [];
    }
    if (!answer || answer.version !== doc.version) return [];
    return programsOf(answer).map(p => ({
      task: p.index,
      title: p.title,
      kind: p.kind,
      line: p.headerLine,
      range: new vscode.Range(p.range.start.line, p.range.start.character, p.range.end.line, p.range.end.character),
      notRunnable: p.notRunnable,
    }));
  } catch (e) {
    log?.warn(`art/programs failed for ${doc.uri.fsPath}: ${e instanceof Error ? e.message : String(e)}`);
    return [];
  }
}

/** The unit at `position`: the one containing it, else the nearest one above it, else the first. */
export function unitAt(units: RunUnit[], position: vscode.Position): RunUnit | undefined {
  const inside = units.find(u => u.range.contains(position));
  if (inside) return inside;
  const above = units.filter(u => u.range.start.isBeforeOrEqual(position));
  return above[above.length - 1] ?? units[0];
}
