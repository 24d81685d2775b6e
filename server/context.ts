// What every feature module gets: the open documents, their analyses, the tool catalog and what the client can do.
import type { TextDocuments } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { ToolCatalog } from '../core/art';
import type { AgentAnalysis, Analysis, Analyzer, ArtAnalysis } from './analysis';
import { WorkSlicer, type Logger } from './guard';
import type { CancellationToken } from 'vscode-languageserver';

export interface ClientFeatures {
  snippets: boolean;
  markdownHover: boolean;
  markdownCompletion: boolean;
  definitionLinks: boolean;
  hierarchicalSymbols: boolean;
  /** The most folding ranges the client keeps (`foldingRange.rangeLimit`; VS Code: 5,000), when it says. */
  foldingRangeLimit?: number;
}

export interface ServerContext {
  /** Only `get` is read: tests pass a map of in-memory documents (test/server/features). */
  documents: Pick<TextDocuments<TextDocument>, 'get'>;
  analyzer: Analyzer;
  tools(): ToolCatalog;
  log: Logger;
  client: ClientFeatures;
}

export interface Target<A extends Analysis = Analysis> {
  document: TextDocument;
  analysis: A;
}

/** The open document and its current analysis, or null (not open, not ours). */
export function target(ctx: ServerContext, uri: string): Target | null {
  const document = ctx.documents.get(uri);
  if (!document) return null;
  const analysis = ctx.analyzer.current(document);
  return analysis ? { document, analysis } : null;
}

export const isArt = (t: Target): t is Target<ArtAnalysis> => t.analysis.kind === 'art';
export const isAgent = (t: Target): t is Target<AgentAnalysis> => t.analysis.kind === 'agent';

/** A slicer for long work on `t`'s document: stale once the document has another version (or is closed). */
export function slicerFor(ctx: ServerContext, t: Target, token?: CancellationToken): WorkSlicer {
  const { uri, version } = t.document;
  return new WorkSlicer(() => ctx.documents.get(uri)?.version !== version, token);
}
