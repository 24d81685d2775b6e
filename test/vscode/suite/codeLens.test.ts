// The Run/Debug CodeLenses follow the language server's analysis: lenses asked for before the server had the document
// (or had analysed its current version) are asked for again when its status for that version arrives, and a shown
// document VS Code has not asked about is reminded. A scripted stand-in for the language client answers `art/programs`
// and sends `art/documentStatus`, so each order of events is played exactly.
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'mocha';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { RunCodeLenses } from '../../../client/runner/codeLens';
import type { DocumentStatusParams, ProgramsResult } from '../../../server/protocol';
import { open, writeWorkspaceFile } from './helpers';

const LIBRARY = `Description: (Orchard Apples) Multiply.
Input: 5 rows of 8 trees, 3 apples each: how many apples?
Q1: [code execute] print(5 * 8 * 3)
#1: 120
Q2: [EOQ]
Ans: 120
`;

/** A language client as RunCodeLenses uses it: `art/programs` answered with `answer`, the status handler kept. */
function scriptedClient() {
  const state = {
    answer: null as ProgramsResult | null,
    requests: 0,
    status: undefined as ((p: DocumentStatusParams) => void) | undefined,
  };
  const client = {
    isRunning: () => true,
    sendRequest: async () => {
      state.requests++;
      return state.answer;
    },
    onNotification: (_type: unknown, handler: (p: DocumentStatusParams) => void) => {
      state.status = handler;
      return { dispose: () => (state.status = undefined) };
    },
  };
  return { client: client as unknown as LanguageClient, state };
}

/** The server's answer for `doc` at `version`: one program, its lens on line 0. */
function programs(doc: vscode.TextDocument, version: number): ProgramsResult {
  return { uri: doc.uri.toString(), version, kind: 'program', titles: ['Orchard Apples'], positions: [0, 0, 5, 7, 0], notRunnable: {} };
}

function status(doc: vscode.TextDocument, version = doc.version): DocumentStatusParams {
  return { uri: doc.uri.toString(), version, language: 'art', units: 1, errors: 0, warnings: 0 };
}

describe('Run/Debug CodeLenses follow the server', function () {
  const log = vscode.window.createOutputChannel('ART CodeLens test', { log: true });
  const disposables: vscode.Disposable[] = [log];
  let doc: vscode.TextDocument;

  before(async () => {
    await writeWorkspaceFile('lenses-late.art', LIBRARY);
    doc = (await open('lenses-late.art')).document;
  });

  after(async () => {
    for (const d of disposables) d.dispose();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  /** The lenses and a count of their change events. */
  function lensesWith(client: LanguageClient) {
    const lenses = new RunCodeLenses(client, log);
    const changes = { count: 0 };
    disposables.push(
      lenses,
      lenses.onDidChangeCodeLenses(() => changes.count++),
    );
    return { lenses, changes };
  }

  it('asked before the server has the document: no lenses, then asked again when its status arrives', async () => {
    const { client, state } = scriptedClient();
    const { lenses, changes } = lensesWith(client);
    // The server does not know the document yet: it answers null.
    assert.deepEqual(await lenses.provideCodeLenses(doc), []);
    // It opens and analyses it, and says so: VS Code is told to ask again.
    state.answer = programs(doc, doc.version);
    state.status!(status(doc));
    assert.equal(changes.count, 1, 'the status of a version the lenses were not made from asks for them again');
    const shown = await lenses.provideCodeLenses(doc);
    assert.deepEqual(
      shown.map(l => [l.range.start.line, l.command?.command, l.command?.arguments?.[1]]),
      [
        [0, 'art.runProgram', 0],
        [0, 'art.debugProgram', 0],
      ],
    );
    // Another status for the version the lenses were made from (a settings change re-checks): nothing to ask.
    state.status!(status(doc));
    assert.equal(changes.count, 1, 'no change event for the version the lenses show');
  });

  it('an answer for an older version gives no lenses; the status of the current version asks again', async () => {
    const { client, state } = scriptedClient();
    const { lenses, changes } = lensesWith(client);
    state.answer = programs(doc, doc.version - 1);
    assert.deepEqual(await lenses.provideCodeLenses(doc), [], 'lenses from another version of the text would sit on the wrong lines');
    state.answer = programs(doc, doc.version);
    state.status!(status(doc, doc.version - 1));
    assert.equal(changes.count, 1, 'the older version was not shown either: asked again');
    state.status!(status(doc));
    assert.equal(changes.count, 2);
    assert.equal((await lenses.provideCodeLenses(doc)).length, 2);
    assert.equal(state.requests, 2);
  });

  it('a shown document VS Code has not asked about is reminded until it asks', async () => {
    const { client, state } = scriptedClient();
    const { lenses, changes } = lensesWith(client);
    state.answer = programs(doc, doc.version);
    state.status!(status(doc));
    assert.equal(changes.count, 0, 'VS Code asks by itself when a document opens: not told at once');
    // No request comes: the reminder is the next change event (after two seconds).
    await new Promise<void>(resolve => {
      const sub = lenses.onDidChangeCodeLenses(() => {
        sub.dispose();
        resolve();
      });
    });
    assert.equal(changes.count, 1, 'reminded');
    // VS Code asks: the lenses are made from this version.
    assert.equal((await lenses.provideCodeLenses(doc)).length, 2);
    const before = changes.count;
    state.status!(status(doc));
    assert.equal(changes.count, before, 'made from this version: nothing more');
  });
});
