// Custom LSP messages of the ART language server, declared once and shared by the server and the VS Code client
// (as vscode-eslint does). Only plain data crosses the wire: ranges are LSP ranges (0-based, UTF-16 columns).
//
// This file has no runtime import on purpose (its one function, programsOf, imports nothing): the server (vscode-languageserver 10) and the client
// (vscode-languageclient 11) bundle different vscode-jsonrpc versions whose RequestType classes do not mix.
// Each side types its call with the namespace's Params/Result, e.g.
//   client.sendRequest<ProgramsRequest.Result>(ProgramsRequest.method, params)
//   client.onNotification(DocumentStatusNotification.method, (p: DocumentStatusNotification.Params) => ...)
import type { Range, TextDocumentIdentifier } from 'vscode-languageserver-protocol';
import type { SourceLanguage } from '../core/common/language';

/**
 * The Node flags the server process is started with, by the VS Code client and by the tests and benchmarks alike
 * (`npm run bench -- scale`; what they saved: docs/performance.md, figures behind the code). A young
 * generation of small semi-spaces (its pages counted in the process's memory, with no gain in speed here), and the
 * old generation allowed to grow a quarter past what the last full collection kept before the next one starts,
 * instead of V8's default of doubling or more (the garbage of answering a request on a large library otherwise piles
 * up before it is collected).
 */
export const SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=4', '--heap-growing-percent=25'];

/** Something that can be run: a program of a task library or an agent of a spec (decoded by `programsOf`). */
export interface ProgramInfo {
  /** The launch configuration's `task`: the 0-based program index in the file, or the agent's index. */
  index: number;
  kind: 'program' | 'agent';
  /** The task name, or the start of the input when there is none (core programTitle); the agent's name. */
  title: string;
  /** The whole program or `(define ...)` form. */
  range: Range;
  /** The line a CodeLens sits on: the `Description:` line, else `Input:`, else the first line; an agent's name. */
  headerLine: number;
  /** Why it cannot run (the `%s` prompt template, a program with no `Input:`); absent when it can. */
  notRunnable?: string;
}

export interface ProgramsParams {
  textDocument: TextDocumentIdentifier;
}

/**
 * The units of a document in a compact form: as objects with two ranges each, a large library's programs were
 * megabytes of JSON and hundreds of thousands of objects to build, serialise and parse; as these few arrays they are
 * a fraction of that and almost nothing to allocate (docs/performance.md). `programsOf` gives the units as ProgramInfo
 * objects.
 */
export interface ProgramsResult {
  uri: string;
  /** Document version the answer was computed for. */
  version: number;
  kind: 'program' | 'agent';
  /** Each unit's title, in index order. */
  titles: string[];
  /** Five numbers per unit, in index order: its range (start line, start character, end line, end character), its header line. */
  positions: number[];
  /** Why a unit cannot run, by its index (only the units that cannot). */
  notRunnable: Record<string, string>;
}

/** The units of an `art/programs` answer. */
export function programsOf(r: ProgramsResult): ProgramInfo[] {
  return r.titles.map((title, index) => {
    const n = r.positions.slice(5 * index, 5 * index + 5);
    const unit: ProgramInfo = {
      index,
      kind: r.kind,
      title,
      range: { start: { line: n[0], character: n[1] }, end: { line: n[2], character: n[3] } },
      headerLine: n[4],
    };
    const why = r.notRunnable[index];
    if (why !== undefined) unit.notRunnable = why;
    return unit;
  });
}

/**
 * `art/programs`: what can be run in an open `.art` or `.agent` document, the one list the client's CodeLenses,
 * debug configurations and F5 use (null for other documents).
 */
export namespace ProgramsRequest {
  export const method = 'art/programs' as const;
  export type Params = ProgramsParams;
  export type Result = ProgramsResult | null;
}

export interface DocumentStatusParams {
  uri: string;
  version: number;
  language: SourceLanguage;
  /** Programs in an `.art` file (not counting `%s` prompt templates), agents (`define` forms) in an `.agent` file. */
  units: number;
  errors: number;
  warnings: number;
}

/** `art/documentStatus`: sent with every diagnostics publish, so a client can show counts in its status bar. */
export namespace DocumentStatusNotification {
  export const method = 'art/documentStatus' as const;
  export type Params = DocumentStatusParams;
}

/** Settings read from the client under the `art` section (workspace/configuration); their defaults: server/settings.ts. */
export interface ServerSettings {
  diagnostics: {
    /** Delay after the last keystroke before diagnostics are computed; 0 computes at once. */
    debounceMs: number;
    enable: boolean;
  };
  tools: {
    /** Workspace tool file, relative to the workspace folder (or absolute). */
    file: string;
  };
}
