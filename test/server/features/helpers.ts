// In-process harness for the server's feature modules: in-memory TextDocuments and the real Analyzer behind a
// ServerContext, so completion, hover, ... are called as functions (no connection, no stdio; the stdio tests in
// test/server/ cover the wiring). The texts are the project's own small fixtures.
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Position, TextEdit } from 'vscode-languageserver';
import { ToolCatalog } from '../../../core/art';
import { Analyzer } from '../../../server/analysis';
import type { ClientFeatures, ServerContext } from '../../../server/context';
import { serverDocuments } from '../../../server/document';

/** Two programs and the template: tools and model sub-steps, a multi-line answer, `#k` references. */
export const LIBRARY = [
  'Description: (Capital) Name the capital of a country and its length.',
  'Input: Peru',
  'Q1: [search] capital of Peru',
  '#1: Lima is the capital of Peru.',
  'Q2: [generate python code] count the letters of the city in #1',
  '#2:',
  'city = "Lima"',
  'ans = len(city)',
  'Q3: [code execute] Execute the python code in #2',
  '#3: 4',
  'Q4: [compare] compare #3 with 5',
  '#4: shorter',
  'Q5: [EOQ]',
  'Ans: Lima (4 letters)',
  '----',
  'Description: (Capital) Name the capital of a country and its length.',
  'Input: Chile',
  'Q1: [search] capital of Chile',
  '#1: Santiago',
  'Q2: [EOQ]',
  'Ans: Santiago',
  '----',
  'Description: %s',
  'Input: %s',
  'Q1:',
  '',
].join('\n');

/** A question-answering agent with an environment input. */
export const AGENT = [
  '; Think, then answer.',
  '(define qa',
  '  (:states',
  '    (Ques (:text "[Question]") (:flags :env-input))',
  '    (Tht (:text "[Thought]"))',
  '    (Ans (:text "[Answer]")))',
  '  (:behavior',
  '    (next Ques (until Tht Ans))))',
  '',
].join('\n');

export interface Workspace {
  ctx: ServerContext;
  /** Opens (or replaces) a document; the language follows the extension of `name`. Returns its uri. */
  open(name: string, text: string): string;
  doc(uri: string): TextDocument;
}

const quiet = {
  info: () => {},
  error: (m: string) => {
    throw new Error(`the server logged an error: ${m}`);
  },
};

export function workspace(client: Partial<ClientFeatures> = {}, tools = new ToolCatalog()): Workspace {
  const docs = new Map<string, TextDocument>();
  const ctx: ServerContext = {
    documents: { get: (uri: string) => docs.get(uri) },
    analyzer: new Analyzer(() => tools),
    tools: () => tools,
    log: quiet,
    client: { snippets: false, markdownHover: true, markdownCompletion: true, definitionLinks: false, hierarchicalSymbols: true, ...client },
  };
  let n = 0;
  return {
    ctx,
    open(name, text) {
      const uri = `file:///work/${name}`;
      const old = docs.get(uri);
      docs.set(uri, serverDocuments.create(uri, '', old ? old.version + 1 : ++n, text));
      return uri;
    },
    doc(uri) {
      const d = docs.get(uri);
      if (!d) throw new Error(`${uri} is not open`);
      return d;
    },
  };
}

/** Position of the `nth` occurrence of `needle` in `text`, plus `delta` characters. */
export function at(text: string, needle: string, delta = 0, nth = 0): Position {
  let i = -1;
  for (let k = 0; k <= nth; k++) {
    i = text.indexOf(needle, i + 1);
    if (i < 0) throw new Error(`'${needle}' (${k + 1}) not in text`);
  }
  return TextDocument.create('x', 'x', 0, text).positionAt(i + delta);
}

export const lineOf = (text: string, needle: string, nth = 0) => at(text, needle, 0, nth).line;

export const apply = (text: string, edits: TextEdit[]) => TextDocument.applyEdits(TextDocument.create('x', 'x', 0, text), edits);
