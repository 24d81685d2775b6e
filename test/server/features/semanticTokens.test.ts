// semanticTokens() called in-process on in-memory documents, the LSP delta encoding decoded back.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SemanticTokens } from 'vscode-languageserver';
import { BUILTIN_TOOLS, ToolCatalog } from '../../../core/art';
import { SEMANTIC_LEGEND, semanticTokens } from '../../../server/semanticTokens';
import { AGENT, LIBRARY, workspace } from './helpers';

/** `line:char text type[+modifiers]` for each token. */
function decode(text: string, tokens: SemanticTokens): string[] {
  const lines = text.split('\n');
  const out: string[] = [];
  let line = 0;
  let char = 0;
  for (let i = 0; i < tokens.data.length; i += 5) {
    const [dLine, dChar, length, type, mods] = tokens.data.slice(i, i + 5);
    line += dLine;
    char = dLine === 0 ? char + dChar : dChar;
    const modifiers = SEMANTIC_LEGEND.tokenModifiers.filter((_, k) => mods & (1 << k));
    out.push(`${line}:${char} ${lines[line].slice(char, char + length)} ${[SEMANTIC_LEGEND.tokenTypes[type], ...modifiers].join('+')}`);
  }
  return out;
}

describe('semantic tokens (in-process)', () => {
  test('.art: a built-in tool is a function, a model sub-step a label; EOQ and the template slot get none', async () => {
    const w = workspace();
    const u = w.open('library.art', LIBRARY);
    assert.deepEqual(decode(LIBRARY, await semanticTokens(w.ctx, { textDocument: { uri: u } })), [
      '2:5 search function+defaultLibrary',
      '4:5 generate python code function+defaultLibrary',
      '8:5 code execute function+defaultLibrary',
      '10:5 compare label',
      '17:5 search function+defaultLibrary',
    ]);
  });

  test('a workspace tool is a function without defaultLibrary', async () => {
    const tools = new ToolCatalog([...BUILTIN_TOOLS, { name: 'compare', description: 'c', input: 'two things', origin: 'user' }]);
    const w = workspace({}, tools);
    const u = w.open('library.art', LIBRARY);
    assert.ok(decode(LIBRARY, await semanticTokens(w.ctx, { textDocument: { uri: u } })).includes('10:5 compare function'));
  });

  test('a range request gives only the tokens in the range', async () => {
    const w = workspace();
    const u = w.open('library.art', LIBRARY);
    const range = { start: { line: 8, character: 0 }, end: { line: 11, character: 0 } };
    assert.deepEqual(decode(LIBRARY, await semanticTokens(w.ctx, { textDocument: { uri: u }, range })), [
      '8:5 code execute function+defaultLibrary',
      '10:5 compare label',
    ]);
  });

  test('.agent: state definitions are declarations, uses in the behavior are not', async () => {
    const w = workspace();
    const u = w.open('qa.agent', AGENT);
    assert.deepEqual(decode(AGENT, await semanticTokens(w.ctx, { textDocument: { uri: u } })), [
      '3:5 Ques enumMember+declaration',
      '4:5 Tht enumMember+declaration',
      '5:5 Ans enumMember+declaration',
      '7:10 Ques enumMember',
      '7:22 Tht enumMember',
      '7:26 Ans enumMember',
    ]);
  });

  test('an unknown document has no tokens', async () => {
    assert.deepEqual((await semanticTokens(workspace().ctx, { textDocument: { uri: 'file:///nowhere.art' } })).data, []);
  });
});
