// The runnable units of an open document: the programs of a task library (from the language server's
// `art/programs` request when it answers, else parsed here with core) and the agents of a spec. They place the
// CodeLenses and resolve the debug configuration's `task` to the program at the cursor.
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { parseAgentFile } from '../../core/agent/parse';
import { programTitle } from '../../core/art/ast';
import { parseArt } from '../../core/art/parse';
import { programsRequest } from '../protocol';

export interface RunUnit {
  /** The launch configuration's `task`: a program index, or an agent's index. */
  task: number;
  title: string;
  kind: 'program' | 'agent';
  /** The line the CodeLens sits on. */
  line: number;
  range: vscode.Range;
}

const LSP_TIMEOUT_MS = 1500;

export function isRunnable(doc: vscode.TextDocument): boolean {
  return doc.languageId === 'art' || doc.languageId === 'art-agent' || /\.(art|agent)$/i.test(doc.uri.path);
}

/** Parsed here with core: synchronous, always available. */
export function unitsOf(doc: vscode.TextDocument): RunUnit[] {
  const text = doc.getText();
  const range = (start: number, end: number) => new vscode.Range(doc.positionAt(start), doc.positionAt(end));
  if (doc.languageId === 'art-agent' || /\.agent$/i.test(doc.uri.path)) {
    return parseAgentFile(text).agents.map((a, i) => ({ task: i, title: a.name || `agent ${i}`, kind: 'agent', line: doc.positionAt(a.span.start).line, range: range(a.span.start, a.span.end) }));
  }
  const units: RunUnit[] = [];
  parseArt(text).programs.forEach((p, i) => {
    if (p.template || !p.input) return;
    const head = p.description ?? p.input;
    units.push({ task: i, title: programTitle(p, i), kind: 'program', line: doc.positionAt(head.span.start).line, range: range(p.span.start, p.span.end) });
  });
  return units;
}

/** The language server's view when it answers in time (it knows the workspace tools), else core's. */
export async function unitsFromServer(doc: vscode.TextDocument, client: LanguageClient | undefined): Promise<RunUnit[]> {
  if (client?.isRunning() && doc.languageId === 'art') {
    try {
      const answer = await Promise.race([
        client.sendRequest(programsRequest, { textDocument: { uri: doc.uri.toString() } }),
        new Promise<null>(resolve => setTimeout(() => resolve(null), LSP_TIMEOUT_MS)),
      ]);
      if (answer && answer.version === doc.version) {
        return answer.programs
          .filter(p => !p.template)
          .map(p => ({
            task: p.index,
            title: p.title,
            kind: 'program' as const,
            line: p.headerRange.start.line,
            range: new vscode.Range(p.range.start.line, p.range.start.character, p.range.end.line, p.range.end.character),
          }));
      }
    } catch {
      /* an older server or a failed request: parse here */
    }
  }
  return unitsOf(doc);
}

/** The unit at `position`: the one containing it, else the nearest one above it, else the first. */
export function unitAt(units: RunUnit[], position: vscode.Position): RunUnit | undefined {
  const inside = units.find(u => u.range.contains(position));
  if (inside) return inside;
  const above = units.filter(u => u.range.start.isBeforeOrEqual(position));
  return above[above.length - 1] ?? units[0];
}
